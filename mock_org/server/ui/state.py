"""What the pages of one app share: the key their CSRF tokens are made with and the org's describe."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from flask import current_app

from ...shared import SharedState
from .catalog import Catalog

EXTENSION = "crmarena.ui"


@dataclass
class UiKeys:
    """The secret of one app's CSRF tokens: new on every start, never written down outside the server's
    state, so no other server copy (nor this one after a restart) accepts them; the workers of one
    server share it through their state file."""

    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @classmethod
    def kept_in(cls, shared: SharedState) -> UiKeys:
        with shared.lock:
            return cls(shared.table("secrets").setdefault("csrf", secrets.token_bytes(32)))

    def sign(self, purpose: str, value: str) -> str:
        return hmac.new(self.key, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()

    def check(self, purpose: str, value: str, token: str) -> bool:
        return hmac.compare_digest(self.sign(purpose, value), token or "")


@dataclass
class UiState:
    catalog: Catalog
    keys: UiKeys = field(default_factory=UiKeys)


def ui_state() -> UiState:
    return current_app.extensions[EXTENSION]
