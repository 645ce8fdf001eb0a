"""``crmarena org push``: make every record of a dump in an org, in dependency order, and map the Ids.

The records go through the REST sObject Collections API (``composite/sobjects``, 200 a request,
allOrNone, so that a request lands entirely or not at all), with the workarounds a real org needs
(reference/crmarena.md §6):

- the records every org has already (its Organization, profiles, record types, queues, the Standard
  Price Book) and the users are matched, never made: users by username (or ``--user-map``);
- audit fields (CreatedDate, CreatedById, LastModifiedDate, LastModifiedById) are sent only when the
  user has "Set Audit Fields upon Record Creation"; without it the push stops before making anything,
  unless told to do without them;
- ProductCatalog before ProductCategory, LiveChatVisitor before LiveChatTranscript, follow from the
  dependency order; a person account makes its own contact, which is mapped, not made again;
- Knowledge articles carry their Language; where PublishStatus cannot be set the articles are
  published afterwards through the ``publishKnowledgeArticles`` action;
- duplicate rules are told to let the records through (``Sforce-Duplicate-Rule-Header: allowSave=true``).

Resumable: the Id map is saved after every request, and the request in flight is written down
before it is sent (``IDMAP.pending``). A push that was killed finds, on its next run, the records
that request made, if the org committed it, by their content, and goes on from there: nothing is
made twice.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from fixtures.dump import sha256_of
from mock_org.user_errors import InvalidData

from ..run.records import write_json_atomic
from . import sales_push
from .idmap import IdMap, load_idmap, save_idmap
from .refusal import PushRefused
from .remap import map_known_ids
from .source import AUDIT_FIELDS, Dump, SourceField, SourceObject

BATCH_SIZE = 200  # the most records one sObject Collections request takes
DUPLICATE_RULES = {"Sforce-Duplicate-Rule-Header": "allowSave=true"}
# Objects every org has: found by these fields, never created (Organization: the org's only one).
MATCHED: dict[str, tuple[str, ...]] = {
    "User": ("Username",),
    "Organization": (),
    "RecordType": ("SobjectType", "DeveloperName"),
    "Profile": ("Name",),
    "Group": ("DeveloperName",),
}
NEVER_SENT = frozenset({"id", "isdeleted", "systemmodstamp"})
_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


@dataclass
class Plan:
    """What a push makes, in which order, and which references wait for a second pass."""

    order: list[str]
    deferred: dict[str, list[str]] = field(default_factory=dict)  # object → reference fields set afterwards


def plan(objects: Mapping[str, SourceObject], made: Iterable[str]) -> Plan:
    """A topological order of ``made`` over their references; a self-reference, or a reference that
    closes a cycle, is left out of the creates and set by an update once everything exists."""
    made = list(made)
    pending = set(made)
    order: list[str] = []
    deferred: dict[str, list[str]] = {}

    def waits_on(name: str) -> set[str]:
        targets = set()
        for reference in objects[name].references:
            if reference.name in deferred.get(name, ()):
                continue
            targets |= {target for target in reference.reference_to if target in pending and target != name}
        return targets

    for name in made:
        for reference in objects[name].references:
            if name in reference.reference_to:
                deferred.setdefault(name, []).append(reference.name)
    while pending:
        ready = [name for name in made if name in pending and not waits_on(name)]
        if not ready:  # a cycle: break it at the object with the fewest waits, on nillable references
            name = min((name for name in made if name in pending), key=lambda n: len(waits_on(n)))
            for reference in objects[name].references:
                if set(reference.reference_to) & pending - {name}:
                    if not reference.nillable:
                        raise InvalidData(f"{name}.{reference.name} closes a cycle of required references")
                    deferred.setdefault(name, []).append(reference.name)
            continue
        for name in ready:
            pending.discard(name)
            order.append(name)
    return Plan(order, deferred)


def normalised(value: Any) -> Any:
    """A value as both sides can compare it: numbers as floats, datetimes in UTC, text without edge spaces."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 6)
    text = str(value).replace("\r\n", "\n").strip()
    if _DATETIME.match(text):
        try:
            return dt.datetime.fromisoformat(text).astimezone(dt.UTC).isoformat()
        except ValueError:
            return text
    return text


class Pusher:
    """One push of ``dump`` into the org behind ``sf``, recorded in the Id map at ``idmap_path``."""

    def __init__(
        self,
        sf: Any,
        dump: Dump,
        idmap_path: Path,
        *,
        target: Mapping[str, Any],
        audit: bool = True,
        user_map: Mapping[str, str] | None = None,
        batch_size: int = BATCH_SIZE,
        progress: bool | None = None,
        after_batch: Callable[[str, int], None] | None = None,
    ) -> None:
        self.sf, self.dump, self.idmap_path = sf, dump, Path(idmap_path)
        self.pending_path = self.idmap_path.with_name(self.idmap_path.name + ".pending")
        self.audit, self.batch_size, self.progress = audit, batch_size, progress
        self.user_map = {key.casefold(): value for key, value in (user_map or {}).items()}
        self.after_batch = after_batch  # tests: a hook after each saved request
        self.source = {"dump": str(dump.path), "sha256": sha256_of(dump.path)}
        self.idmap = self._open_idmap(dict(target))
        self.objects = dump.objects
        self._describes: dict[str, dict[str, dict[str, Any]]] = {}
        self._flat_cache: dict[str, str] = {}
        self._flat_size = -1
        self.notes: list[str] = []  # what the push could not carry over, for the user to read

    # ------------------------------------------------------------------ the Id map

    def _open_idmap(self, target: dict[str, Any]) -> IdMap:
        if not self.idmap_path.exists():
            return IdMap(source=self.source, target=target)
        idmap = load_idmap(self.idmap_path)
        if idmap.source.get("sha256") != self.source["sha256"]:
            raise PushRefused(
                f"{self.idmap_path} maps another dump ({idmap.source.get('dump')}); give a new --idmap path"
            )
        if target.get("url") and idmap.target.get("url") not in (None, target["url"]):
            raise PushRefused(
                f"{self.idmap_path} maps records of another org ({idmap.target['url']}); give a new --idmap path"
            )
        return idmap

    def _save(self) -> None:
        save_idmap(self.idmap, self.idmap_path)

    # ------------------------------------------------------------------ the run

    def run(self) -> dict[str, int]:
        """Push everything not pushed yet; the number of records made per object."""
        the_plan = plan(self.objects, self._made_objects())
        self._check_target(the_plan.order)
        self._match_existing()
        self._recover()
        rows = {name: self._rows(name) for name in the_plan.order}
        todo = sum(1 for name in the_plan.order for row in rows[name] if row["Id"] not in self._mapped(name))
        made: dict[str, int] = {}
        with tqdm(
            total=todo, unit="rec", desc="push", disable=None if self.progress is None else not self.progress
        ) as bar:
            for name in the_plan.order:
                if name == "Contact":
                    self._map_person_contacts()
                made[name] = self._create(name, rows[name], the_plan.deferred.get(name, []), bar)
        for name, fields in the_plan.deferred.items():
            self._set_deferred(name, rows[name], fields)
        self._publish_articles(rows.get("Knowledge__kav", []))
        sales_push.activate_contracts(self, rows.get("Contract", []))
        sales_push.convert_leads(self, rows.get("Lead", []))
        self.notes = sales_push.notes(self, rows)
        return made

    def _made_objects(self) -> list[str]:
        """The objects a push makes: not the records every org has, nor what the org writes itself."""
        return [name for name, sobject in self.objects.items() if name not in MATCHED and sobject.createable]

    def _mapped(self, name: str) -> dict[str, str]:
        return self.idmap.objects.setdefault(name, {})

    # ------------------------------------------------------------------ what the org has

    def _describe(self, name: str) -> dict[str, dict[str, Any]]:
        if name not in self._describes:
            try:
                described = self.sf.restful(f"sobjects/{name}/describe")
            except Exception as error:
                feature = sales_push.FEATURES.get(name, "the feature it belongs to")
                raise PushRefused(
                    f"the org has no {name} object ({_reason(error)}): enable {feature} and deploy "
                    "the metadata (docs/real-org-lane.md)"
                ) from None
            self._describes[name] = {item["name"].lower(): item for item in described["fields"]}
        return self._describes[name]

    def _check_target(self, order: list[str]) -> None:
        """Refuse, before anything is made, an org that lacks an object or a field of the dump."""
        missing = []
        for name in order:
            described = self._describe(name)
            missing += [f"{name}.{f.name}" for f in self._sent_fields(name) if f.name.lower() not in described]
        if missing:
            raise PushRefused(
                f"the org lacks {len(missing)} field(s) of the dump: {', '.join(missing[:8])}"
                f"{' …' if len(missing) > 8 else ''}; deploy the metadata first (crmarena org metadata)"
            )

    def _sent_fields(self, name: str) -> list[SourceField]:
        audit = {name.lower() for name in AUDIT_FIELDS} if self.audit else set()
        return [
            f
            for f in self.objects[name].fields
            if f.name.lower() not in NEVER_SENT and (f.createable or f.name.lower() in audit)
        ]

    def _query(self, soql: str) -> list[dict[str, Any]]:
        return [dict(record) for record in self.sf.query_all_iter(soql)]

    def _match_existing(self) -> None:
        """Map the records every org has (and the users) to the org's own, by their natural keys."""
        for name, keys in MATCHED.items():
            if name not in self.objects:
                continue
            source_rows = self.dump.rows(name)
            columns = ", ".join(("Id", *keys))
            found = self._query(f"SELECT {columns} FROM {name}")
            if name == "User":
                by_key = {record["Username"].casefold(): record["Id"] for record in found}
                wanted = {
                    row["Id"]: self.user_map.get(row["Username"].casefold(), row["Username"]) for row in source_rows
                }
                keyed = {source_id: by_key.get(username.casefold()) for source_id, username in wanted.items()}
                label = {row["Id"]: row["Username"] for row in source_rows}
            else:
                by_key = {tuple(str(record[key]).casefold() for key in keys): record["Id"] for record in found}
                keyed = {row["Id"]: by_key.get(tuple(str(row[key]).casefold() for key in keys)) for row in source_rows}
                label = {row["Id"]: " ".join(str(row[key]) for key in keys) or name for row in source_rows}
            absent = [label[source_id] for source_id, target_id in keyed.items() if target_id is None]
            if absent:
                hint = "create them or map them with --user-map" if name == "User" else "create them in Setup"
                raise PushRefused(
                    f"{len(absent)} {name} record(s) of the dump are not in the org: {', '.join(absent[:5])}"
                    f"{' …' if len(absent) > 5 else ''} ({hint})"
                )
            for source_id, target_id in keyed.items():
                self.idmap.add(name, source_id, str(target_id))
        if "Pricebook2" in self.objects:
            standard = self._query("SELECT Id FROM Pricebook2 WHERE IsStandard = true")
            for row in self.dump.rows("Pricebook2"):
                if row.get("IsStandard") and standard:
                    self.idmap.add("Pricebook2", row["Id"], standard[0]["Id"])
        self._save()

    # ------------------------------------------------------------------ records

    def _rows(self, name: str) -> list[dict[str, Any]]:
        rows = self.dump.rows(name)
        if name == "Contact":
            person = self._person_contacts()
            rows = [row for row in rows if row["Id"] not in person]
        if name == "Pricebook2":
            rows = [row for row in rows if not row.get("IsStandard")]
        if name == "PricebookEntry":  # a product's standard price comes before its other prices
            standard = {row["Id"] for row in self.dump.rows("Pricebook2") if row.get("IsStandard")}
            rows.sort(key=lambda row: row["Pricebook2Id"] not in standard)
        return rows

    def _person_contacts(self) -> dict[str, str]:
        """Source person contact → its account: the oldest contact of a person account with the account's
        names (the rule by which the mock links them, mock_org/platform.py)."""
        if "Account" not in self.objects or self.objects["Account"].field("IsPersonAccount") is None:
            return {}
        accounts = {row["Id"]: row for row in self.dump.rows("Account") if row.get("IsPersonAccount")}
        found: dict[str, str] = {}
        contacts = sorted(self.dump.rows("Contact"), key=lambda row: (row["CreatedDate"] or "", row["Id"]))
        for contact in contacts:
            account = accounts.get(contact.get("AccountId"))
            names = (contact.get("FirstName") or "", contact.get("LastName") or "")
            if account is None or (account.get("FirstName") or "", account.get("LastName") or "") != names:
                continue
            if account["Id"] not in found.values():
                found[contact["Id"]] = account["Id"]
        return found

    def _map_person_contacts(self) -> None:
        """A person account made its contact in the org: map the dump's to it."""
        person = self._person_contacts()
        if not person:
            return
        accounts = self._mapped("Account")
        found = self._query("SELECT Id, PersonContactId FROM Account WHERE IsPersonAccount = true")
        contact_of = {record["Id"]: record["PersonContactId"] for record in found}
        for contact_id, account_id in person.items():
            target = contact_of.get(accounts.get(account_id, ""))
            if target:
                self.idmap.add("Contact", contact_id, target)
        self._save()

    def payload(self, name: str, row: Mapping[str, Any], skipped: Iterable[str] = ()) -> dict[str, Any]:
        """The record to send for ``row``: its settable fields with their references mapped."""
        described = self._describe(name)
        skipped = {field.lower() for field in skipped}
        audit = {name.lower() for name in AUDIT_FIELDS}
        flat = self._flat()
        record: dict[str, Any] = {"attributes": {"type": name}}
        for f in self._sent_fields(name):
            value = row.get(f.name)
            key = f.name.lower()
            if value is None or key in skipped:
                continue
            if not (described[key].get("createable") or key in audit):
                continue  # the org sets it itself (a name, an auto number, a status)
            if name == "Account" and key == "name" and row.get("IsPersonAccount"):
                continue  # a person account's name is its person's
            if f.reference_to:
                mapped = flat.get(value)
                if mapped is None:
                    raise PushRefused(f"{name} {row['Id']}: {f.name} names {value}, which the push has not made")
                value = mapped
            elif f.type == "boolean":
                value = bool(value)
            elif isinstance(value, str):
                value = map_known_ids(value, flat)  # Ids inside text, such as EmailMessage.ToIds
            record[f.name] = value
        return sales_push.on_create(self, name, row, record)

    def _flat(self) -> dict[str, str]:
        """Every source Id → the org's (both forms), remade only when the map has grown."""
        if self._flat_size != len(self.idmap):
            self._flat_cache, self._flat_size = self.idmap.flat(), len(self.idmap)
        return self._flat_cache

    def _create(self, name: str, rows: list[dict[str, Any]], deferred: list[str], bar: tqdm) -> int:
        mapped = self._mapped(name)
        todo = [row for row in rows if row["Id"] not in mapped]
        made = 0
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            records = [self.payload(name, row, deferred) for row in batch]
            write_json_atomic(self.pending_path, {"object": name, "source_ids": [row["Id"] for row in batch]})
            results = self.sf.restful(
                "composite/sobjects",
                method="POST",
                json={"allOrNone": True, "records": records},
                headers=DUPLICATE_RULES,
            )
            try:
                _check_results(name, batch, results)
            except PushRefused:
                self.pending_path.unlink(missing_ok=True)  # the org answered: an allOrNone request made nothing
                raise
            for row, result in zip(batch, results, strict=True):
                self.idmap.add(name, row["Id"], result["id"])
            self._save()
            self.pending_path.unlink(missing_ok=True)
            made += len(batch)
            bar.update(len(batch))
            if self.after_batch is not None:
                self.after_batch(name, made)
        return made

    def _recover(self) -> None:
        """Map the records of the request a killed push had in flight, if the org made them."""
        if not self.pending_path.exists():
            return
        pending = json.loads(self.pending_path.read_text(encoding="utf-8"))
        name = pending["object"]
        mapped = self._mapped(name)
        rows = {row["Id"]: row for row in self.dump.rows(name)}
        waiting = [rows[source_id] for source_id in pending["source_ids"] if source_id not in mapped]
        if waiting:
            self._match_by_content(name, waiting)
        self._save()
        self.pending_path.unlink(missing_ok=True)

    def _match_by_content(self, name: str, waiting: list[dict[str, Any]]) -> None:
        """Find in the org the records made from ``waiting`` that the map does not know: same content."""
        plan_deferred = plan(self.objects, self._made_objects()).deferred.get(name, [])
        payloads = {row["Id"]: self.payload(name, row, plan_deferred) for row in waiting}
        fields = sorted({key for record in payloads.values() for key in record if key != "attributes"})
        known = set(self._mapped(name).values())
        candidates: dict[tuple, list[str]] = {}
        for record in self._query(f"SELECT Id, {', '.join(fields)} FROM {name}"):
            if record["Id"] in known:
                continue
            key = tuple(normalised(record.get(f)) for f in fields)
            candidates.setdefault(key, []).append(record["Id"])
        for source_id, record in payloads.items():
            key = tuple(normalised(record.get(f)) for f in fields)
            if candidates.get(key):
                self.idmap.add(name, source_id, candidates[key].pop(0))

    # ------------------------------------------------------------------ second passes

    def _set_deferred(self, name: str, rows: list[dict[str, Any]], fields: list[str]) -> None:
        """The references that waited (self-references, cycles): one update per record that has one."""
        flat, mapped = self._flat(), self._mapped(name)
        updates = []
        for row in rows:
            values = {f: flat[row[f]] for f in fields if row.get(f) is not None}
            if values:
                updates.append({"attributes": {"type": name}, "Id": mapped[row["Id"]], **values})
        self._update_records(name, updates)

    def _update_records(self, name: str, updates: list[dict[str, Any]]) -> None:
        """Update records of the org (each with its Id), a request per batch, all or none."""
        for start in range(0, len(updates), self.batch_size):
            batch = updates[start : start + self.batch_size]
            results = self.sf.restful("composite/sobjects", method="PATCH", json={"allOrNone": True, "records": batch})
            _check_results(name, batch, results)

    def _publish_articles(self, rows: list[dict[str, Any]]) -> None:
        """Where the org would not take PublishStatus on create, publish the dump's online articles."""
        if not rows or self._describe("Knowledge__kav").get("publishstatus", {}).get("createable"):
            return
        mapped = self._mapped("Knowledge__kav")
        online = [mapped[row["Id"]] for row in rows if row.get("PublishStatus") == "Online"]
        published = {r["Id"] for r in self._query("SELECT Id FROM Knowledge__kav WHERE PublishStatus = 'Online'")}
        online = [article for article in online if article not in published]
        for start in range(0, len(online), self.batch_size):
            inputs = [{"articleVersionIdList": online[start : start + self.batch_size], "pubAction": "PUBLISH_ARTICLE"}]
            self.sf.restful("actions/standard/publishKnowledgeArticles", method="POST", json={"inputs": inputs})


def _check_results(name: str, batch: Sequence[Mapping[str, Any]], results: Any) -> None:
    """Raise the first real refusal of an allOrNone request (the others only say they were rolled back)."""
    if isinstance(results, list) and len(results) == len(batch) and all(r.get("success") for r in results):
        return
    for row, result in zip(batch, results if isinstance(results, list) else [], strict=False):
        for error in result.get("errors") or []:
            code, fields = error.get("statusCode"), error.get("fields") or []
            if code == "ALL_OR_NONE_OPERATION_ROLLED_BACK":
                continue
            hint = ""
            if code == "INVALID_FIELD_FOR_INSERT_UPDATE" and set(fields) & set(AUDIT_FIELDS):
                hint = (
                    "; the user lacks 'Set Audit Fields upon Record Creation': assign it (docs/real-org-lane.md) "
                    "or push with --without-audit-fields (the tasks that depend on dates will then fail)"
                )
            raise PushRefused(f"the org refused {name} {row.get('Id')}: {code}: {error.get('message')}{hint}")
    raise PushRefused(f"the org refused a request of {len(batch)} {name} records: {str(results)[:300]}")


def _reason(error: BaseException) -> str:
    content = getattr(error, "content", None)
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return f"{content[0].get('errorCode')}: {content[0].get('message')}"
    return f"{type(error).__name__}: {error}"
