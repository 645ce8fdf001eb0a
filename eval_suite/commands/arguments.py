"""The argument types the ``crmarena`` subcommands share: each refuses a bad value before anything runs
(argparse reports it as a usage error, exit 2). The errors and exit codes are in mock_org/user_errors.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import re
from collections.abc import Callable


def iso_date(text: str) -> dt.date:
    """``--today``: a real calendar day written YYYY-MM-DD."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return dt.date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date; write it YYYY-MM-DD, e.g. 2024-05-31")


def positive_number(text: str) -> float:
    """``--scale``: a finite number above zero."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number above 0, e.g. 0.5 or 2")
    return value


def positive_int(text: str) -> int:
    """``--threads``: a whole number above zero."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return int(text)


def port_number(text: str) -> int:
    """``--port``: 0 (pick a free port) to 65535."""
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535; 0 picks a free one)")
    return int(text)


def count(minimum: int) -> Callable[[str], int]:
    """``--per-task``: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse
