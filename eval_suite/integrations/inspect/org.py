"""The org behind the tools, chosen as `crmarena eval` chooses it (CRMARENA_TARGET and the variables of
eval_suite/run/target.py: a private copy of the default org served here by default, a running mock at
CRMARENA_MOCK_URL, or a real org). It is opened, and checked with one query, by the first sample that needs it
and kept for the rest of the inspect run (a private mock is served once, not per sample).

Each running sample has a session of its own, set to its instance's day. Sessions are reused by later samples,
and new ones log in one at a time: the mock counts a login as a failure until it has succeeded (lockout.py), so
a burst of simultaneous logins of one user (inspect starts many samples at once) would lock that user out. A
session that met an org failure is not reused. A hook closes everything when the inspect
run ends; it is registered when the first org opens, since inspect lists every registered hook when it starts."""

from __future__ import annotations

import atexit
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import anyio
from inspect_ai.hooks import Hooks, RunEnd, hooks

from ...errors import InfraError
from ...run.target import Target, TargetSettings, open_target


@dataclass
class Session:
    """A logged-in simple-salesforce client of one org; ``broken`` once an org failure came through it."""

    sf: Any
    settings: TargetSettings
    broken: bool = False


_lock = threading.Lock()
_login = threading.Lock()  # one login at a time
_targets: dict[TargetSettings, tuple[ExitStack, Target]] = {}
_idle: dict[TargetSettings, list[Session]] = {}
_sessions: dict[str, Session] = {}  # by sample uuid
_hook: list[type[Hooks]] = []  # the registered hook, once an org has opened


def shared_target(settings: TargetSettings) -> Target:
    """The org ``settings`` name, opened and checked on first use (blocking: call it from a worker thread).
    An org that cannot be used raises TargetUnavailable; the next sample tries again."""
    with _lock:
        if settings not in _targets:
            stack = ExitStack()
            try:
                target = stack.enter_context(open_target(settings))
                target.preflight()
            except BaseException:
                stack.close()
                raise
            _targets[settings] = (stack, target)
            if not _hook:
                _hook.append(hooks(name="crmarena_org", description=CloseOrgsAtRunEnd.__doc__ or "")(CloseOrgsAtRunEnd))
        return _targets[settings][1]


def open_session(key: str, settings: TargetSettings, today: str | None) -> Session:
    """A session on ``today`` for the sample ``key``, until close_session (blocking). A failure to log in or
    to set the day is an InfraError."""
    target = shared_target(settings)
    with _lock:
        idle = _idle.setdefault(settings, [])
        session = idle.pop() if idle else None
    if session is None:
        with _login:
            session = Session(target.connect(), settings)
    with _lock:
        _sessions[key] = session
    try:
        target.set_today(session.sf, today)
    except InfraError:
        session.broken = True
        raise
    return session


def session_of(key: str) -> Session:
    with _lock:
        return _sessions[key]


def close_session(key: str) -> None:
    """The sample is over: its session waits for the next sample, or is closed if it met an org failure or
    its org has closed."""
    with _lock:
        session = _sessions.pop(key, None)
        if session is not None and not session.broken and session.settings in _targets:
            _idle.setdefault(session.settings, []).append(session)
            return
    if session is not None:
        session.sf.session.close()


def close_targets() -> None:
    """Close every session and org opened here (a served private copy is removed)."""
    with _lock:
        opened = list(_targets.values())
        idle = [session for sessions in _idle.values() for session in sessions]
        _targets.clear()
        _idle.clear()
    for session in idle:
        session.sf.session.close()
    for stack, _ in opened:
        stack.close()


atexit.register(close_targets)


class CloseOrgsAtRunEnd(Hooks):
    """Closes the orgs the crmarena tasks opened when the inspect run ends."""

    def enabled(self) -> bool:
        return bool(_targets)

    async def on_run_end(self, data: RunEnd) -> None:
        await anyio.to_thread.run_sync(close_targets)
