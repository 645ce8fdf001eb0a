"""Ids (15/18 characters, checksum, minting) and value formats (datetimes, Java doubles)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mock_org.ids import IdMinter, checksum, is_id, make_id, serial_of, to18
from mock_org.values import format_datetime, java_double, parse_datetime


@pytest.mark.parametrize(
    ("id15", "id18"),
    [
        ("001D000000IqhSL", "001D000000IqhSLIAZ"),
        ("001D000000Iomaz", "001D000000IomazIAB"),
        ("005i0000002MUqL", "005i0000002MUqLAAW"),
        ("00Di0000000icUB", "00Di0000000icUBEAY"),
        ("500Ws000007qifM", "500Ws000007qifMIAQ"),  # an Id of the original CRMArena org
    ],
)
def test_checksum_matches_salesforce(id15: str, id18: str) -> None:
    assert to18(id15) == id18
    assert to18(id18) == id18
    assert to18(id18[:15] + id18[15:].lower()) == id18  # the suffix is read case-insensitively


@given(st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=15, max_size=15))
def test_the_checksum_encodes_each_fives_upper_case_letters(id15: str) -> None:
    """Bit i of each checksum character says whether character i of its five is upper-case."""
    expected = ""
    for start in (0, 5, 10):
        bits = sum(1 << i for i, char in enumerate(id15[start : start + 5]) if char.isupper())
        expected += "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"[bits]
    assert checksum(id15) == expected


@pytest.mark.parametrize("bad", ["", "001", "001D000000IqhSLZZZ", "001D000000Iqh$L", "001D000000IqhSLIA", None, 42])
def test_malformed_ids_are_refused(bad: object) -> None:  # ZZZ: a checksum that does not match
    assert not is_id(bad)
    with pytest.raises(ValueError):
        to18(bad)


@given(st.sampled_from(["001", "500", "a1N", "ka0", "0ZG"]), st.integers(0, 62**9 - 1))
def test_minted_ids_are_valid_and_carry_their_serial(prefix: str, serial: int) -> None:
    record_id = make_id(prefix, serial)
    assert len(record_id) == 18 and record_id[:3] == prefix and record_id[3:5] == "Ws"
    assert checksum(record_id[:15]) == record_id[15:]
    assert serial_of(record_id) == serial


def test_minter_continues_after_the_highest_serial() -> None:
    minter = IdMinter({"500": 41})
    assert serial_of(minter.mint("500")) == 41 and serial_of(minter.mint("500")) == 42
    assert serial_of(minter.mint("001")) == 1


def test_datetimes_are_utc_with_milliseconds() -> None:
    moment = dt.datetime(2020, 12, 22, 3, 0, 0, 123456, tzinfo=dt.timezone(dt.timedelta(hours=-8)))
    assert format_datetime(moment) == "2020-12-22T11:00:00.123+0000"
    for text in [
        "2020-12-22T11:00:00.000+0000",
        "2020-12-22T11:00:00Z",
        "2020-12-22T03:00:00-08:00",
        "2020-12-22 11:00:00",
    ]:
        assert format_datetime(parse_datetime(text)) == "2020-12-22T11:00:00.000+0000"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (15000.0, "15000.0"),
        (22.5, "22.5"),
        (1.0, "1.0"),
        (0.001, "0.001"),
        (99213206.0, "9.9213206E7"),
        (10_000_000.0, "1.0E7"),
        (0.0001, "1.0E-4"),
        (-2.5e10, "-2.5E10"),
        (0.0, "0.0"),
    ],
)
def test_doubles_print_like_java(value: float, text: str) -> None:
    assert java_double(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_java_doubles_read_back_as_the_same_number(value: float) -> None:
    assert float(java_double(value)) == value
