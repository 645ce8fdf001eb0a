"""The mistakes a user can fix, each with its exit code: the one vocabulary of every ``crmarena`` command.

A command raises one of these errors (or an exception class derived from one) and
``eval_suite.commands.cli.main`` prints it as one line on stderr and exits with its code; no command catches
and prints errors itself. The engine is the lowest floor that raises them (a file that is not an org,
a working copy being served), so they live here and every floor above imports them. The codes are
documented in the README ("Exit codes").
"""

from __future__ import annotations

# The exit codes, one per kind of failure.
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
