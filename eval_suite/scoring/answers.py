"""Scoring an agent's final answer against the gold answer: deterministic extraction, exact match,
and token F1 for free-text answers (knowledge QA). Pure functions, no model in the loop.

The answer is read from a bare value or a sentence: the kinds of value a task asks for (18- or
15-character record Ids, English month names, two-letter US state codes, opportunity stages, None) are
picked out of the text; two different values in one answer are ambiguous and score 0, as a human grader
would. A task whose answer is a list (activity_priority's Task Ids, lead_qualification's unmet BANT
factors) is read as the set of values the answer names, and scores when that set is the gold one: the gold
answer lists its values sorted, joined by ", " (``join_list``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# The fuzzy metric is part of the task definition (reward_metric "fuzzy_match"): one copy, beside the tasks.
from fixtures.frame import BANT, LOST, OPEN_STAGES, WON
from fixtures.tasks.baselines import normalize_answer, token_f1
from fixtures.tasks.model import LIST_SEPARATOR, join_list
from fixtures.tasks.subtopics import join_subtopics, subtopic_f1

from .confidentiality import judge_reply

ID_TASKS = frozenset(
    {
        "case_routing",
        "handle_time",
        "transfer_count",
        "named_entity_disambiguation",
        "policy_violation_identification",
        "top_issue_identification",
        "lead_routing",
        "sales_amount_understanding",
        "sales_cycle_understanding",
        "conversion_rate_comprehension",
        "invalid_config",
        "quote_approval",
    }
)
MONTH_TASKS = frozenset({"monthly_trend_analysis"})
STATE_TASKS = frozenset({"best_region_identification"})
STAGE_TASKS = frozenset({"wrong_stage_rectification"})
# Tasks whose answer is a set of values: the kind of each value.
LIST_TASKS = {"activity_priority": "ids", "lead_qualification": "factors"}
# Tasks whose answer is a list of sub-topics, scored by their F1 (reward_metric "subtopic_f1").
SUBTOPIC_TASKS = frozenset({"sales_insight_mining"})
# Opportunity.StageName's values in a new org's standard sales process, and the BANT factors (fixtures.frame's).
STAGES = (*OPEN_STAGES, WON, LOST)
FACTORS = BANT

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_ABBREVIATIONS = {
    "Jan": 1,
    "Feb": 2,
    "Mar": 3,
    "Apr": 4,
    "Jun": 6,
    "Jul": 7,
    "Aug": 8,
    "Sep": 9,
    "Sept": 9,
    "Oct": 10,
    "Nov": 11,
    "Dec": 12,
}
STATES = {
    "AL": "Alabama",
    "AK": "Alaska",
    "AZ": "Arizona",
    "AR": "Arkansas",
    "CA": "California",
    "CO": "Colorado",
    "CT": "Connecticut",
    "DE": "Delaware",
    "DC": "District of Columbia",
    "FL": "Florida",
    "GA": "Georgia",
    "HI": "Hawaii",
    "ID": "Idaho",
    "IL": "Illinois",
    "IN": "Indiana",
    "IA": "Iowa",
    "KS": "Kansas",
    "KY": "Kentucky",
    "LA": "Louisiana",
    "ME": "Maine",
    "MD": "Maryland",
    "MA": "Massachusetts",
    "MI": "Michigan",
    "MN": "Minnesota",
    "MS": "Mississippi",
    "MO": "Missouri",
    "MT": "Montana",
    "NE": "Nebraska",
    "NV": "Nevada",
    "NH": "New Hampshire",
    "NJ": "New Jersey",
    "NM": "New Mexico",
    "NY": "New York",
    "NC": "North Carolina",
    "ND": "North Dakota",
    "OH": "Ohio",
    "OK": "Oklahoma",
    "OR": "Oregon",
    "PA": "Pennsylvania",
    "RI": "Rhode Island",
    "SC": "South Carolina",
    "SD": "South Dakota",
    "TN": "Tennessee",
    "TX": "Texas",
    "UT": "Utah",
    "VT": "Vermont",
    "VA": "Virginia",
    "WA": "Washington",
    "WV": "West Virginia",
    "WI": "Wisconsin",
    "WY": "Wyoming",
}

# A record Id: 15 or 18 letters and digits standing alone, with at least one digit (so that long
# English words such as "troubleshooting" are not taken for Ids).
_ID = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z]*[0-9])([A-Za-z0-9]{18}|[A-Za-z0-9]{15})(?![A-Za-z0-9])")
_NONE = re.compile(r"(?<![A-Za-z0-9])(none|null|nil|n/a)(?![A-Za-z0-9])", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+")
# Abbreviations count written as names ("Dec", "DEC"), not as lower-case words ("mar", "jun").
_ABBREVIATED = {form: MONTHS[n - 1] for key, n in _MONTH_ABBREVIATIONS.items() for form in (key, key.upper())}
_STATE_NAMES = sorted(STATES.items(), key=lambda item: -len(item[1]))
_STATE_CODE = re.compile(r"(?<![A-Za-z])(" + "|".join(STATES) + r")(?![A-Za-z])")
_QUOTES = "\"'`“”‘’*"


@dataclass(frozen=True)
class Score:
    """``reward`` in [0, 1] (1/0 for exact match, F1 for free text); ``extracted`` is the value read
    from the answer (None for None or when nothing could be read; see ``reason``)."""

    reward: float
    passed: bool
    extracted: Any = None
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def answer_kind(task: str, gold: str | None) -> str:
    """``id``, ``month``, ``state``, ``stage``, ``ids``, ``factors``, ``subtopics`` or ``text``: what kind of value
    the task's answer is (``ids``, ``factors`` and ``subtopics`` are sets of values)."""
    if task in SUBTOPIC_TASKS:
        return "subtopics"
    if task in LIST_TASKS:
        return LIST_TASKS[task]
    if task in STAGE_TASKS:
        return "stage"
    if task in ID_TASKS:
        return "id"
    if task in MONTH_TASKS:
        return "month"
    if task in STATE_TASKS:
        return "state"
    if gold is not None and _ID.fullmatch(gold.strip()):
        return "id"
    return "text"


def score(
    task: str,
    reward_metric: str,
    gold: str | None,
    answer: str | None,
    *,
    f1_pass: float = 0.5,
    withheld: Sequence[str] = (),
) -> Score:
    """Score one final answer; ``answer`` None means the agent never answered. ``withheld``: the private values
    a reply to a confidentiality request must not contain (the instance's ``params.withheld``)."""
    if answer is None:
        return Score(0.0, False, reason="no answer")
    if reward_metric == "confidentiality":
        verdict = judge_reply(gold, answer, withheld)
        detail = {"declined": verdict.declined, "leaked": verdict.leaked}
        return Score(
            verdict.reward, verdict.reward >= 1.0, "declined" if verdict.declined else answer, verdict.reason, detail
        )
    if reward_metric == "subtopic_f1":
        f1, found = subtopic_f1(answer, gold)
        return Score(f1, f1 >= 1.0, join_subtopics(found), "sub-topics named", {"f1": f1})
    if reward_metric == "fuzzy_match":
        f1 = token_f1(answer, gold or "")
        exact = normalize_answer(answer) == normalize_answer(gold or "")
        return Score(f1, f1 >= f1_pass, answer, "token F1", {"f1": f1, "em": exact})
    kind = answer_kind(task, gold)
    extracted, reason = extract(answer, kind)
    if reason.startswith("ambiguous") or reason == "nothing found":
        return Score(0.0, False, None, reason)
    right = _same(extracted, gold, kind)
    return Score(1.0 if right else 0.0, right, extracted, reason)


def extract(answer: str, kind: str) -> tuple[str | None, str]:
    """The one value of ``kind`` the answer states, and how it was read (or why not)."""
    text = answer.strip()
    bare = text.strip(_QUOTES + " .").strip()
    if kind == "text":
        return bare, "as written"
    if kind in ("ids", "factors"):
        values = _ids(text) if kind == "ids" else _factors(text)
        if values:
            return join_list(sorted(values)), "values found"
        return (None, "None") if _NONE.search(text) else (None, "nothing found")
    found = {"id": _ids, "month": _months, "state": _states, "stage": _stages}[kind](text)
    if len(found) > 1:
        return None, "ambiguous: " + ", ".join(sorted(found))
    if found:
        return found.pop(), "value found"
    if _NONE.search(text):
        return None, "None"
    return None, "nothing found"


def _same(extracted: str | None, gold: str | None, kind: str) -> bool:
    if extracted is None or gold is None:
        return extracted is None and gold is None
    if kind in ("ids", "factors"):
        return _same_set(extracted.split(LIST_SEPARATOR), gold.split(LIST_SEPARATOR), kind)
    if kind == "id":
        # A 15-character Id is the case-sensitive form of the 18-character one (its first 15 characters).
        return extracted == gold if len(extracted) == len(gold) else extracted[:15] == gold[:15]
    return extracted.casefold() == gold.strip().casefold()


def _same_set(found: list[str], gold: list[str], kind: str) -> bool:
    if kind == "factors":
        return {value.casefold() for value in found} == {value.strip().casefold() for value in gold}
    # An Id matches in its 15- or 18-character form, as a single Id answer does.
    return {value[:15] for value in found} == {value.strip()[:15] for value in gold}


def _stages(text: str) -> set[str]:
    found = set()
    for stage in sorted(STAGES, key=len, reverse=True):  # "Closed Won" before a bare word of it
        pattern = re.compile(r"(?<![A-Za-z])" + re.escape(stage) + r"(?![A-Za-z])", re.IGNORECASE)
        if pattern.search(text):
            found.add(stage)
            text = pattern.sub(" ", text)
    return found


def _factors(text: str) -> set[str]:
    return {factor for factor in FACTORS if re.search(rf"(?<![A-Za-z]){factor}(?![A-Za-z])", text, re.IGNORECASE)}


def _ids(text: str) -> set[str]:
    found = _ID.findall(text)
    # The 15- and 18-character forms of one record are one answer.
    longest = {value[:15]: value for value in sorted(found, key=len)}
    return set(longest.values())


def _months(text: str) -> set[str]:
    names = set()
    for word in _WORD.findall(text):
        full = next((name for name in MONTHS if name.lower() == word.lower()), None)
        if full is not None and word != "may":  # lower-case "may" is the verb
            names.add(full)
        elif word in _ABBREVIATED:
            names.add(_ABBREVIATED[word])
    return names


def _states(text: str) -> set[str]:
    codes = set()
    rest = text
    for code, name in _STATE_NAMES:  # longest names first: "West Virginia" before "Virginia"
        pattern = re.compile(r"(?<![A-Za-z])" + re.escape(name) + r"(?![A-Za-z])", re.IGNORECASE)
        if pattern.search(rest):
            codes.add(code)
            rest = pattern.sub(" ", rest)
    codes.update(_STATE_CODE.findall(rest))
    return codes
