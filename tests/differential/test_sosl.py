"""Differential SOSL tests: the records a search returns against plain-Python word matching over the
same records. Relevance order is the engine's own choice, so results compare as sets."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import reference as ref
from .conftest import RECORDS

R = RECORDS
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "mock_org" / "crmarena_schema.json").read_text())
TEXT = {"string", "textarea", "email", "phone", "url"}


def text_fields(sobject: str, group: str = "ALL") -> list[str]:
    fields = next(o["fields"] for o in SCHEMA["objects"] if o["name"] == sobject)
    names = [f["name"] for f in fields if f["type"] in TEXT and f["name"] != "Id"]
    if group == "NAME" and sobject not in ("Knowledge__kav", "Product2"):
        extra = {"Case": {"Subject"}}.get(sobject, set())
        names = [f["name"] for f in fields if f["type"] in TEXT and (f["nameField"] or f["name"] in extra)]
    if group == "EMAIL" and sobject not in ("Knowledge__kav", "Product2"):
        names = [f["name"] for f in fields if f["type"] == "email"]
    return names


@dataclass
class Search:
    name: str
    sosl: str
    expected: set[tuple[str, str]]  # (object, Id)


SEARCHES: list[Search] = []


def matches(sobject: str, predicate, group: str = "ALL", where=lambda r: True) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    fields = text_fields(sobject, group)
    return {(sobject, r["Id"]) for r in R[sobject] if where(r) and predicate(r, fields)}


def word(term: str, prefix: bool = False):  # type: ignore[no-untyped-def]
    return lambda record, fields: ref.contains_word(record, fields, term, prefix)


def all_of(*predicates):  # type: ignore[no-untyped-def]
    return lambda record, fields: all(p(record, fields) for p in predicates)


def any_of(*predicates):  # type: ignore[no-untyped-def]
    return lambda record, fields: any(p(record, fields) for p in predicates)


def add(name: str, sosl: str, expected: set[tuple[str, str]]) -> None:
    if all(search.sosl != sosl for search in SEARCHES):  # two samples may pick the same words
        SEARCHES.append(Search(name, sosl, expected))


product_words = [
    w for w, _ in Counter(w for p in R["Product2"] for w in ref.words(p["Name"]) if len(w) > 3).most_common(40)
][::3]
for index, term in enumerate(product_words):
    add(
        f"product word {index}",
        f"FIND {{{term}}} IN ALL FIELDS RETURNING Product2(Id, Name, Description)",
        matches("Product2", word(term)),
    )
    add(
        f"product prefix {index}",
        f"FIND {{{term[:4]}*}} RETURNING Product2",
        matches("Product2", word(term[:4], prefix=True)),
    )

for index, product in enumerate(R["Product2"][:: len(R["Product2"]) // 8][:8]):
    first, last = ref.words(product["Name"])[0], ref.words(product["Name"])[-1]
    add(
        f"two product words {index}",
        f"FIND {{{first} {last}}} IN ALL FIELDS RETURNING Product2(Id, Name, Description)",
        matches("Product2", all_of(word(first), word(last))),
    )
    add(
        f"product phrase {index}",
        f'FIND {{"{first} {ref.words(product["Name"])[1]}"}} RETURNING Product2(Name)',
        matches("Product2", word(f"{first} {ref.words(product['Name'])[1]}")),
    )

article_words = [
    w for w, _ in Counter(w for k in R["Knowledge__kav"] for w in ref.words(k["Title"]) if len(w) > 4).most_common(30)
][::2]
for index, term in enumerate(article_words):
    add(
        f"knowledge word {index}",
        f"FIND {{{term}}} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c WHERE PublishStatus = 'Online' AND Language = 'en_US')",
        matches("Knowledge__kav", word(term), where=lambda k: k["PublishStatus"] == "Online"),
    )
for index, (a, b) in enumerate(zip(article_words[::2], article_words[1::2], strict=False)):
    # Articles OR their words unless told otherwise.
    add(
        f"knowledge two words {index}",
        f"FIND {{{a} {b}}} RETURNING Knowledge__kav(Id)",
        matches("Knowledge__kav", any_of(word(a), word(b))),
    )
    add(
        f"knowledge explicit and {index}",
        f"FIND {{{a} AND {b}}} RETURNING Knowledge__kav(Id)",
        matches("Knowledge__kav", all_of(word(a), word(b))),
    )

for index, account in enumerate(R["Account"][:: len(R["Account"]) // 10][:10]):
    last = account["LastName"]
    add(
        f"customer name {index}",
        f"FIND {{{last}}} IN NAME FIELDS RETURNING Account(Id, Name), Contact(Id, Name)",
        matches("Account", word(last), "NAME") | matches("Contact", word(last), "NAME"),
    )

for index, contact in enumerate([c for c in R["Contact"] if c["Email"]][::40][:5]):
    local = contact["Email"].split("@")[0]
    add(
        f"contact email {index}",
        f"FIND {{{local}}} IN EMAIL FIELDS RETURNING Contact(Id, Email)",
        matches("Contact", word(local), "EMAIL"),
    )

subject_words = [
    w for w, _ in Counter(w for c in R["Case"] for w in ref.words(c["Subject"]) if len(w) > 4).most_common(12)
]
for index, term in enumerate(subject_words[:6]):
    add(
        f"case subject word closed {index}",
        f"FIND {{{term}}} IN NAME FIELDS RETURNING Case(Id, Subject WHERE Status = 'Closed')",
        matches("Case", word(term), "NAME", where=lambda c: c["Status"] == "Closed"),
    )
for index, (a, b) in enumerate(zip(subject_words[:6], subject_words[6:12], strict=True)):
    add(
        f"case or {index}",
        f"FIND {{{a} OR {b}}} IN NAME FIELDS RETURNING Case(Id)",
        matches("Case", any_of(word(a), word(b)), "NAME"),
    )
    add(
        f"case and not {index}",
        f"FIND {{{a} AND NOT {b}}} IN NAME FIELDS RETURNING Case(Id)",
        matches("Case", lambda r, f, a=a, b=b: word(a)(r, f) and not word(b)(r, f), "NAME"),
    )


def test_there_are_enough_searches() -> None:
    assert len(SEARCHES) >= 50
    assert len({search.sosl for search in SEARCHES}) == len(SEARCHES)
    assert sum(1 for search in SEARCHES if search.expected) >= 45


@pytest.mark.parametrize("search", SEARCHES, ids=[search.name for search in SEARCHES])
def test_engine_finds_what_the_reference_finds(engine, search: Search) -> None:
    records = engine.search(search.sosl)["searchRecords"]
    got = [(r["attributes"]["type"], r["attributes"]["url"].rsplit("/", 1)[1]) for r in records]
    assert len(got) == len(set(got))
    assert set(got) == search.expected
