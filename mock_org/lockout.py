"""Login lockout: after ``attempts`` failed logins in a row a user is locked out for ``seconds``, as a
real org's default password policy does (10 attempts, 15 minutes) — counted per client address.

Two rules keep the count honest under load:

- An attempt is counted when it starts, not when its password check (a slow PBKDF2) has failed:
  ``begin`` checks and counts in one step under the state's lock, so ten wrong passwords sent at
  once are ten failures before any of them finishes, and the eleventh attempt, right or wrong, is
  refused. A right password then clears the count (``succeeded``).
- A locked entry is never forgotten to make room: only the users of the org are counted (a
  username nobody has cannot be locked, and junk usernames take no room), and when the table is
  full the oldest entries that lock nobody go first.

Salesforce lets an org keep strangers from locking its users out by where they log in from (Login
IP Ranges, trusted networks; Salesforce Help, "Restrict Login IP Addresses in Profiles") or have an
administrator unlock a user. The mock takes the address rule: failures count against a user *from
one client address*, so wrong passwords from elsewhere lock only that address out, and the
administrator on its own machine is never locked out of its org by anyone else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from .shared import SharedState

TRACKED = 100_000  # entries kept before those that lock nobody are forgotten


@dataclass(frozen=True)
class LockoutPolicy:
    attempts: int  # 0: nobody is ever locked out
    seconds: float


class Lockout:
    def __init__(self, state: SharedState, policy: LockoutPolicy, now: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self.now = now
        self._lock = state.lock
        self._entries: MutableMapping[str, tuple[int, float]] = state.table("lockout")  # key → (failures, last)

    @staticmethod
    def key(username: str, address: str) -> str:
        return f"{username.strip().casefold()}\x00{address}"

    def begin(self, key: str) -> bool:
        """Count one attempt for ``key`` unless it is locked out; whether the attempt may go on."""
        if not self.policy.attempts:
            return True
        with self._lock:
            count, last = self._entries.get(key, (0, 0.0))
            now = self.now()
            if now - last >= self.policy.seconds:
                count = 0  # a lockout (or a run of failures) that has run its time starts afresh
            if count >= self.policy.attempts:
                return False
            self._entries.pop(key, None)  # re-inserted: the most recent entries are the last
            self._entries[key] = (count + 1, now)
            if len(self._entries) > TRACKED:
                self._forget(now)
            return True

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def locked(self, key: str) -> bool:
        with self._lock:
            count, last = self._entries.get(key, (0, 0.0))
        attempts = self.policy.attempts
        return bool(attempts) and count >= attempts and self.now() - last < self.policy.seconds

    def _forget(self, now: float) -> None:
        """Drop the oldest entries that lock nobody (too few failures, or a lockout that has ended)."""
        excess = len(self._entries) - TRACKED
        stale = [key for key, entry in self._entries.items() if not self._locks(entry, now)][:excess]
        for key in stale:
            del self._entries[key]

    def _locks(self, entry: Any, now: float) -> bool:
        count, last = entry
        return count >= self.policy.attempts and now - last < self.policy.seconds
