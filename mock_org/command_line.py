"""What every ``crmarena`` subcommand shares: the mistakes a user can fix, each with its exit code,
and the argument types that refuse a bad value before anything runs.

A subcommand raises one of these errors (or an exception class derived from one) and
``eval_suite.cli.main`` prints it as one line on stderr and exits with its code; no subcommand
catches and prints errors itself. The codes are documented in the README.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import re

# The exit codes, one per kind of failure (README, "Exit codes").
OK = 0
REFUSED = 1  # the org refused the query, the query does not parse, no server answered the check
USAGE = 2  # the command line itself is wrong
BAD_FILE = 3  # a file named on the command line cannot be used as asked
INVALID_DATA = 4  # the data breaks the dump's rules
UNAVAILABLE = 5  # something the command needs is busy or out of reach: a port, an endpoint, the working copy
INTERNAL = 70  # a bug (EX_SOFTWARE): CRMARENA_DEBUG=1 shows the traceback
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
BROKEN_PIPE = 141  # the reader of our output went away, as in `crmarena query … | head` (128 + SIGPIPE)


class CommandError(Exception):
    """A failure the user can act on; the message says what is wrong and what to do."""

    exit_code = REFUSED


class UsageError(CommandError):
    exit_code = USAGE


class BadFile(CommandError):
    exit_code = BAD_FILE


class InvalidData(CommandError):
    exit_code = INVALID_DATA


class Unavailable(CommandError):
    exit_code = UNAVAILABLE


# ----------------------------------------------------------------------------- argument types


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
