"""What a run shows while it works, on stderr: a bar on a terminal, plain log lines anywhere else
(nohup, CI, Slurm), where a bar would print nothing or garbage.

Off a terminal a line goes out every tenth of the attempts and at least every 30 s; on a terminal the
bar's counts follow each attempt. Either way a model call being retried is shown as it happens
("retrying: HTTP 500: …, 3/6"), so a storm of failures never looks like a silent hang.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

INTERVAL = 30.0  # seconds between log lines off a terminal, at most
RETRY_SHOWN = 10.0  # seconds a retry note stays on the bar
RETRY_LINES = 5.0  # seconds between retry lines off a terminal, at most


class Progress:
    """Told of each finished attempt (``update``) and each retried call (``retry``, from any thread);
    ``tick`` is called every half second or so by the run's loop."""

    def __init__(
        self,
        total: int,
        done: int,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        interactive: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.total, self.done, self.enabled = total, done, enabled
        self.interactive = _is_terminal(self.stream) if interactive is None else interactive
        self.every = max(1, (total - done) // 10)
        self._clock = clock
        self._started = self._last_line = clock()
        self._since_line = 0
        self._counts: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._retry: tuple[float, str] | None = None
        self._retries_unshown = 0
        self._last_retry_line = -RETRY_LINES
        self._bar = None
        if enabled and self.interactive:
            self._bar = tqdm(
                total=total, initial=done, desc="eval", unit="attempt", file=self.stream, dynamic_ncols=True
            )

    def retry(self, message: str) -> None:
        with self._lock:
            self._retry = (self._clock(), message)
            self._retries_unshown += 1

    def update(self, counts: dict[str, Any]) -> None:
        self.done += 1
        self._since_line += 1
        self._counts = dict(counts)
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(self._postfix(), refresh=False)
        elif self.enabled and self._since_line >= self.every:
            self._line()

    def tick(self) -> None:
        if not self.enabled:
            return
        now = self._clock()
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=True)
            return
        with self._lock:
            retry, unshown = self._retry, self._retries_unshown
        if retry is not None and unshown and now - self._last_retry_line >= RETRY_LINES:
            more = f" (and {unshown - 1} more retries)" if unshown > 1 else ""
            self._write(f"eval: retrying a model call: {retry[1]}{more}")
            with self._lock:
                self._retries_unshown = 0
            self._last_retry_line = now
        if now - self._last_line >= INTERVAL:
            self._line()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self._since_line:
            self._line()

    def _postfix(self) -> str:
        text = _tally(self._counts)
        with self._lock:
            retry = self._retry
        if retry is not None and self._clock() - retry[0] < RETRY_SHOWN:
            text += f" · retrying: {retry[1]}"
        return text

    def _line(self) -> None:
        elapsed = self._clock() - self._started
        percent = 100 * self.done / self.total if self.total else 100.0
        self._write(
            f"eval: {self.done}/{self.total} attempts ({percent:.0f}%) · {_tally(self._counts)} · "
            f"{_duration(elapsed)} elapsed"
        )
        self._last_line = self._clock()
        self._since_line = 0

    def _write(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _tally(counts: dict[str, Any]) -> str:
    if not counts:
        return "nothing finished yet"
    rate = counts["passed"] / counts["scored"] if counts["scored"] else 0.0
    cost = "cost unknown" if counts.get("cost") is None else f"${counts['cost']:.4f}"
    user = f" · user {counts['user']}" if counts.get("user") else ""
    return f"pass {rate:.1%} · infra {counts['infra']}{user} · harness {counts['harness']} · {cost}"


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{seconds:02d}s" if hours else f"{minutes}m{seconds:02d}s"
