"""The push's one error: the org refused a record, or lacks what the dump needs (exit 1)."""

from __future__ import annotations

from mock_org.user_errors import REFUSED, CommandError


class PushRefused(CommandError):
    """The org refused a record, or lacks what the dump needs (exit 1)."""

    exit_code = REFUSED
