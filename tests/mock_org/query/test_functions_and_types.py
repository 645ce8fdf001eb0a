"""Every date function, conversion functions, and multi-select picklists (INCLUDES / EXCLUDES / =)."""

from __future__ import annotations

import json

import pytest

from mock_org.schema import DEFAULT_SCHEMA, load_schema

from ..builder import build_org, rid
from ..conftest import CASES


def one(org, query: str) -> dict:  # type: ignore[no-untyped-def]
    record = org.query(query)["records"][0]
    return {key: value for key, value in record.items() if key != "attributes"}


def test_every_date_function_on_a_known_moment(org) -> None:
    # Case 2 was created at 2023-03-01T23:30:00Z, a Wednesday; in Los Angeles it was 15:30 the same day.
    record = one(
        org,
        "SELECT CALENDAR_YEAR(CreatedDate) y, CALENDAR_QUARTER(CreatedDate) q, CALENDAR_MONTH(CreatedDate) m, "
        "DAY_IN_MONTH(CreatedDate) dm, DAY_IN_WEEK(CreatedDate) dw, DAY_IN_YEAR(CreatedDate) dy, "
        "DAY_ONLY(CreatedDate) d, HOUR_IN_DAY(CreatedDate) h, HOUR_IN_DAY(convertTimezone(CreatedDate)) lh, "
        "WEEK_IN_MONTH(CreatedDate) wm, WEEK_IN_YEAR(CreatedDate) wy, FISCAL_MONTH(CreatedDate) fm, "
        "FISCAL_QUARTER(CreatedDate) fq, FISCAL_YEAR(CreatedDate) fy, COUNT(Id) n "
        f"FROM Case WHERE Id = '{CASES[1]}' GROUP BY CALENDAR_YEAR(CreatedDate), CALENDAR_QUARTER(CreatedDate), "
        "CALENDAR_MONTH(CreatedDate), DAY_IN_MONTH(CreatedDate), DAY_IN_WEEK(CreatedDate), DAY_IN_YEAR(CreatedDate), "
        "DAY_ONLY(CreatedDate), HOUR_IN_DAY(CreatedDate), HOUR_IN_DAY(convertTimezone(CreatedDate)), "
        "WEEK_IN_MONTH(CreatedDate), WEEK_IN_YEAR(CreatedDate), FISCAL_MONTH(CreatedDate), FISCAL_QUARTER(CreatedDate), "
        "FISCAL_YEAR(CreatedDate)",
    )
    assert record == {
        "y": 2023,
        "q": 1,
        "m": 3,
        "dm": 1,
        "dw": 4,
        "dy": 60,
        "d": "2023-03-01",
        "h": 23,
        "lh": 15,
        "wm": 1,
        "wy": 9,
        "fm": 3,
        "fq": 1,
        "fy": 2023,
        "n": 1,
    }


def test_date_functions_on_a_date_field(org) -> None:
    record = one(
        org,
        "SELECT CALENDAR_MONTH(EffectiveDate) m, DAY_IN_WEEK(EffectiveDate) d, COUNT(Id) n FROM Order "
        "WHERE OrderNumber = '00000102' GROUP BY CALENDAR_MONTH(EffectiveDate), DAY_IN_WEEK(EffectiveDate)",
    )
    assert record == {"m": 3, "d": 1, "n": 1}  # 2023-03-05 was a Sunday


def test_convert_currency_is_the_amount_in_a_single_currency_org(org) -> None:
    assert one(org, "SELECT convertCurrency(UnitPrice) p FROM PricebookEntry WHERE Name = 'Trail Running Shoe'") == {
        "p": 129.99
    }


def test_large_amounts_stay_doubles(org) -> None:
    assert one(org, "SELECT UnitPrice FROM PricebookEntry WHERE Name = 'Yoga Mat 50% Off'") == {"UnitPrice": 2.5e7}


@pytest.fixture(scope="module")
def tagged_org(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The default schema plus a multi-select picklist on Case, and three tagged cases."""
    data = json.loads(DEFAULT_SCHEMA.read_text())
    case = next(o for o in data["objects"] if o["name"] == "Case")
    case["fields"].append(
        {
            "name": "Tags__c",
            "label": "Tags",
            "type": "multipicklist",
            "length": 4099,
            "filterable": True,
            "sortable": False,
            "groupable": False,
            "custom": True,
            "picklistValues": [
                {"value": v, "label": v, "active": True, "defaultValue": False} for v in ["AAA", "BBB", "CCC", "DDD"]
            ],
        }
    )
    directory = tmp_path_factory.mktemp("tagged")
    path = directory / "schema.json"
    path.write_text(json.dumps(data))
    schema = load_schema(path)
    records = {
        "Case": [
            {"Id": rid("500", 1), "CaseNumber": "1", "Tags__c": "AAA;BBB"},
            {"Id": rid("500", 2), "CaseNumber": "2", "Tags__c": "BBB;AAA;DDD"},
            {"Id": rid("500", 3), "CaseNumber": "3", "Tags__c": "CCC"},
            {"Id": rid("500", 4), "CaseNumber": "4", "Tags__c": None},
        ]
    }
    org = build_org(directory / "org.db", records, schema=schema, read_only=True)
    yield org
    org.close()


def numbers(org, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        r["CaseNumber"] for r in org.query(f"SELECT CaseNumber FROM Case WHERE {where} ORDER BY CaseNumber")["records"]
    ]


def test_includes_reads_semicolons_as_and_and_commas_as_or(tagged_org) -> None:
    assert numbers(tagged_org, "Tags__c INCLUDES ('AAA;BBB', 'CCC')") == ["1", "2", "3"]
    assert numbers(tagged_org, "Tags__c INCLUDES ('aaa;ddd')") == ["2"]
    assert numbers(tagged_org, "Tags__c INCLUDES ('BBB')") == ["1", "2"]


def test_excludes_is_the_complement_and_keeps_empty_values(tagged_org) -> None:
    assert numbers(tagged_org, "Tags__c EXCLUDES ('AAA')") == ["3", "4"]


def test_equality_on_a_multi_select_picklist_compares_the_set(tagged_org) -> None:
    assert numbers(tagged_org, "Tags__c = 'BBB;AAA'") == ["1"]
    assert numbers(tagged_org, "Tags__c != 'AAA;BBB'") == ["2", "3", "4"]


def test_multi_select_picklists_cannot_be_ordered(tagged_org) -> None:
    from mock_org.errors import InvalidField

    with pytest.raises(InvalidField):
        tagged_org.query("SELECT Id FROM Case ORDER BY Tags__c")
