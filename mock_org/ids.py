"""Salesforce record Ids: 15 and 18 characters, key prefixes, the case-safe checksum, minting.

A 15-character Id is case-sensitive: a 3-character key prefix (the object), a 2-character pod,
a reserved ``0`` and a 9-character base-62 serial. The 18-character form appends a checksum of
three characters that encodes which of the 15 are upper-case, so that the Id survives
case-insensitive systems (reference/salesforce_api.md §6.1).
"""

from __future__ import annotations

import re
import threading

_CHECKSUM_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ID_SHAPE = re.compile(r"[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?")

# The pod part of the Ids this org mints (real orgs have values such as "5g" or "Ws").
POD = "Ws"


# Byte → b"1" for an ASCII upper-case letter, b"0" for anything else; then five such flags (the first
# character first) → the checksum character they encode.
_UPPER_FLAGS = bytes(49 if 65 <= byte <= 90 else 48 for byte in range(256))
_FLAGS_CHARACTER = {format(bits, "05b")[::-1].encode(): _CHECKSUM_ALPHABET[bits] for bits in range(32)}


def checksum(id15: str) -> str:
    """The three case-safe characters that turn a 15-character Id into an 18-character one: each
    encodes which of five characters are upper-case, the first character as the lowest bit."""
    if len(id15) == 15 and id15.isascii():  # every Id: a table look-up per five characters, for speed
        flags = id15.encode("ascii").translate(_UPPER_FLAGS)
        return _FLAGS_CHARACTER[flags[:5]] + _FLAGS_CHARACTER[flags[5:10]] + _FLAGS_CHARACTER[flags[10:]]
    suffix = []
    for chunk in range(3):
        bits = 0
        for position, char in enumerate(id15[chunk * 5 : chunk * 5 + 5]):
            if "A" <= char <= "Z":
                bits |= 1 << position
        suffix.append(_CHECKSUM_ALPHABET[bits])
    return "".join(suffix)


def to18(record_id: str) -> str:
    """The 18-character form of a 15- or 18-character Id; raises ValueError for anything else.

    An 18-character Id must carry the right checksum for its first 15 characters, except that a
    checksum may differ in case only (Salesforce reads it case-insensitively).
    """
    if not isinstance(record_id, str) or not _ID_SHAPE.fullmatch(record_id):
        raise ValueError(f"not a Salesforce Id: {record_id!r}")
    expected = checksum(record_id[:15])
    if len(record_id) == 18 and record_id[15:].upper() != expected:
        raise ValueError(f"bad Id checksum: {record_id!r}")
    return record_id[:15] + expected


def is_id(value: object) -> bool:
    try:
        to18(value)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def key_prefix(record_id: str) -> str:
    return record_id[:3]


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, remainder = divmod(number, 62)
        digits.append(_BASE62[remainder])
    if number:
        raise OverflowError("Id serial out of range")
    return "".join(reversed(digits))


def make_id(prefix: str, serial: int, pod: str = POD) -> str:
    """The 18-character Id with this key prefix and serial number."""
    if len(prefix) != 3 or len(pod) != 2:
        raise ValueError("a key prefix has 3 characters and a pod 2")
    id15 = prefix + pod + "0" + _base62(serial, 9)
    return id15 + checksum(id15)


class IdMinter:
    """Hands out new Ids per key prefix from counters; thread-safe.

    ``start`` gives the first serial of each prefix, so that Ids minted by a running org never
    collide with the ones already in its data.
    """

    def __init__(self, start: dict[str, int] | None = None, pod: str = POD) -> None:
        self._next = dict(start or {})
        self._pod = pod
        self._lock = threading.Lock()

    @property
    def pod(self) -> str:
        return self._pod

    def skip_to(self, prefix: str, serial: int) -> None:
        """Mint no serial below ``serial`` for ``prefix`` from now on."""
        with self._lock:
            self._next[prefix] = max(self._next.get(prefix, 1), serial)

    def mint(self, prefix: str) -> str:
        with self._lock:
            serial = self._next.get(prefix, 1)
            self._next[prefix] = serial + 1
        return make_id(prefix, serial, self._pod)


def serial_of(record_id: str) -> int:
    """The serial number inside an Id (the inverse of ``make_id``)."""
    number = 0
    for char in record_id[6:15]:
        number = number * 62 + _BASE62.index(char)
    return number
