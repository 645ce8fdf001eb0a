"""Which connections the front keeps when there are too many: caps in total and per client address, a
reserve for connections whose requests carry a session, and the order in which the others are shed.

Every connection tells the registry what it is doing (``Phase``). A new connection is admitted while
there is room; when there is none, the connection least worth keeping makes room for it: among those
without a session (silent since they connected, idle between requests, or reading a request), one of
the client address holding the most connections, the one that has waited longest in what it does;
only when there is none of those, an idle connection of a client with a session, by the same order.
A connection reading a request with a session, running one or answering one is never shed. A
newcomer from an address holding fewer connections than the victim's may shed it at once; one from
an address holding as many (its own address, or another as greedy) only a connection that has waited
``shed_after_seconds`` (1 s) in what it does. When nobody may be shed, the newcomer is closed at once.
So the client hogging connections pays first, and waiting time, not the kind of wait, decides within
it: a socket that has said nothing for seconds or trickles a body goes; attackers that reconnect as
fast as they are closed cannot churn each other's fresh connections and are turned away at the door
(an accept and a close), while a client of a quieter address (a few milliseconds from connect to
answer) always gets in.
Connections without a session (new ones count as such until their first request shows a session)
may hold at most ``max_connections - authenticated_reserve``.

No sockets here: shedding calls the function the connection registered (front.py shuts its socket).
"""

from __future__ import annotations

import enum
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..limits import ServerLimits


class Phase(enum.IntEnum):
    """What a connection does."""

    NEW = 0  # accepted (its TLS handshake included), no byte of a request yet
    IDLE = 1  # between requests, its last one without a session
    READING = 2  # reading a request without a session (a head counts as such until it shows one)
    IDLE_AUTHENTICATED = 3  # between requests, its last one with a session
    BUSY = 4  # reading a request after one with a session, running the app, answering: never shed


SHEDDABLE = (Phase.NEW, Phase.IDLE, Phase.READING, Phase.IDLE_AUTHENTICATED)


@dataclass(eq=False)
class Entry:
    address: str
    shed: Callable[[], None]
    phase: Phase = Phase.NEW
    since: float = field(default_factory=time.monotonic)
    authenticated: bool = False  # its last request carried a session


class Registry:
    def __init__(self, limits: ServerLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._entries: set[Entry] = set()
        self._per_address: Counter[str] = Counter()
        self.shed_count = 0  # connections shed since the start (for tests and benchmarks)

    def admit(self, address: str, shed: Callable[[], None]) -> Entry | None:
        """A new connection's entry, or None when nothing can make room (the caller closes it)."""
        limits = self.limits
        with self._lock:
            entries = list(self._entries)
            if self._per_address[address] >= limits.max_connections_per_client and not self._shed_one(
                [entry for entry in entries if entry.address == address], address
            ):
                return None
            if len(self._entries) >= limits.max_connections and not self._shed_one(list(self._entries), address):
                return None
            unauthenticated = [entry for entry in self._entries if not entry.authenticated]
            room = limits.max_connections - limits.authenticated_reserve
            if len(unauthenticated) >= room and not self._shed_one(unauthenticated, address):
                return None
            entry = Entry(address, shed)
            self._entries.add(entry)
            self._per_address[address] += 1
            return entry

    def enter(self, entry: Entry, phase: Phase, *, authenticated: bool | None = None) -> None:
        with self._lock:
            entry.phase = phase
            entry.since = time.monotonic()
            if authenticated is not None:
                entry.authenticated = authenticated

    def release(self, entry: Entry) -> None:
        with self._lock:
            if entry in self._entries:
                self._forget(entry)

    def holds(self, entry: Entry) -> bool:
        """Whether the connection is still counted (not shed to make room for another)."""
        with self._lock:
            return entry in self._entries

    def open_count(self) -> int:
        with self._lock:
            return len(self._entries)

    def _shed_one(self, candidates: list[Entry], newcomer: str) -> bool:
        """Shed the candidate least worth keeping for a newcomer from ``newcomer``, if any may be shed;
        whether one was."""
        held = self._per_address
        waited = time.monotonic() - self.limits.shed_after_seconds
        sheddable = [
            entry
            for entry in candidates
            if entry.phase in SHEDDABLE and (held[entry.address] > held[newcomer] or entry.since <= waited)
        ]
        if not sheddable:
            return False
        victim = min(
            sheddable, key=lambda entry: (entry.phase == Phase.IDLE_AUTHENTICATED, -held[entry.address], entry.since)
        )
        self._forget(victim)  # its room is free at once; its thread winds down on its own
        self.shed_count += 1
        victim.shed()
        return True

    def _forget(self, entry: Entry) -> None:
        self._entries.discard(entry)
        self._per_address[entry.address] -= 1
        if not self._per_address[entry.address]:
            del self._per_address[entry.address]
