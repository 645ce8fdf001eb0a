"""How long a query may run, and whether anyone still waits for it.

A deadline (and, from the server, a flag saying that the client went away) belongs to the thread
doing the work. SQLite's progress handler, installed on every connection (storage.py), and the
Python functions that SQL calls check it, so a statement that runs too long is cut off inside
SQLite, not after it returns. A real org answers 400 QUERY_TIMEOUT after 120 seconds (SOQL and
SOSL Reference, "SOQL and SOSL Limits"); ours is configurable and far shorter by default.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from sqlalchemy.exc import OperationalError as WrappedOperationalError

from .errors import QueryTimeout, QueryTooComplicated

DEFAULT_SECONDS = 30.0
ENV_VARIABLE = "CRMARENA_QUERY_TIMEOUT"
TIMEOUT_MESSAGE = "Your query request was running for too long."
TOO_COMPLICATED_MESSAGE = "Query is either selecting too many fields or the filter conditions are too complicated."
# SQLite's own limits that a (legal but huge) query can reach; a real org calls them too complicated.
_SQLITE_LIMITS = (
    "expression tree is too large",
    "parser stack overflow",
    "too many sql variables",
    "too many terms in compound select",
    "at most 64 tables in a join",
    "too many columns",
    "string or blob too big",
)

_local = threading.local()


def seconds_from_env(env: Mapping[str, str] = os.environ) -> float:
    """The query timeout ``CRMARENA_QUERY_TIMEOUT`` names (seconds), else the default."""
    text = env.get(ENV_VARIABLE)
    return float(text) if text else DEFAULT_SECONDS


def expired() -> bool:
    """Whether the current thread's query should stop: its deadline passed, or its client left.
    Outside a ``limited`` block (writes, logins) nothing is ever cut off."""
    deadline = getattr(_local, "deadline", None)
    if deadline is None:
        return False
    if time.monotonic() > deadline:
        return True
    abandoned: Callable[[], bool] | None = getattr(_local, "abandoned", None)
    return abandoned is not None and abandoned()


def check() -> None:
    """Raise QUERY_TIMEOUT when the current thread's work should stop (for long Python loops)."""
    if expired():
        raise QueryTimeout(TIMEOUT_MESSAGE)


def progress_handler() -> int:
    """SQLite calls this every few thousand instructions; non-zero interrupts the statement."""
    return 1 if expired() else 0


@contextmanager
def abandoned_when(gone: Callable[[], bool]) -> Iterator[None]:
    """Work done on this thread inside the block stops as soon as ``gone()`` is true (the client left)."""
    previous = getattr(_local, "abandoned", None)
    _local.abandoned = gone
    try:
        yield
    finally:
        _local.abandoned = previous


@contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Run the block under a deadline (None: no time limit, but still abandoned when the client
    leaves); SQLite's interruptions and limits become the errors a real org gives (QUERY_TIMEOUT,
    QUERY_TOO_COMPLICATED). Nested blocks keep the earlier deadline."""
    previous = getattr(_local, "deadline", None)
    mine = math.inf if seconds is None else time.monotonic() + seconds
    _local.deadline = mine if previous is None else min(previous, mine)
    try:
        yield
    except (sqlite3.OperationalError, WrappedOperationalError) as error:
        if expired():
            raise QueryTimeout(TIMEOUT_MESSAGE) from None
        if any(limit in str(error).lower() for limit in _SQLITE_LIMITS):
            raise QueryTooComplicated(TOO_COMPLICATED_MESSAGE) from None
        raise
    except RecursionError:
        raise QueryTooComplicated(TOO_COMPLICATED_MESSAGE) from None
    finally:
        _local.deadline = previous
