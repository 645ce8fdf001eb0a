"""What a server instance is configured with: credentials, limits and the versions it advertises."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..auth import AuthConfig
from .limits import ServerLimits, from_args

OLDEST_VERSION, NEWEST_VERSION = 20, 62  # the versions list a real org serves runs from 20.0 up
_SEASONS = ("Winter", "Spring", "Summer")


@dataclass(frozen=True)
class Settings:
    auth: AuthConfig = field(default_factory=AuthConfig)
    limits: ServerLimits = field(default_factory=ServerLimits)
    newest_version: int = NEWEST_VERSION
    # The UI's query console (``--ui-console off`` takes it and its link away: a browser agent must navigate).
    ui_console: bool = True

    def __post_init__(self) -> None:
        """The session timeout and the lockout are limits; the authenticator reads them from its config."""
        limits = self.limits
        auth = dataclasses.replace(
            self.auth,
            lockout_attempts=limits.lockout_attempts,
            lockout_seconds=limits.lockout_seconds,
            session_seconds=limits.session_seconds,
        )
        object.__setattr__(self, "auth", auth)

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] = os.environ, limits: ServerLimits | None = None, *, ui_console: bool = True
    ) -> Settings:
        """Credentials from the environment; ``limits`` as given (the serve flags), else from the environment."""
        limits = limits if limits is not None else from_args(None, env)
        return cls(auth=AuthConfig.from_env(env), limits=limits, ui_console=ui_console)

    def versions(self) -> list[dict[str, str]]:
        """``GET /services/data``: every API version with its release label (v59.0 is Winter '24)."""
        listed = []
        for number in range(OLDEST_VERSION, self.newest_version + 1):
            offset = number - 59
            label = f"{_SEASONS[offset % 3]} '{24 + offset // 3:02d}"
            listed.append({"label": label, "url": f"/services/data/v{number}.0", "version": f"{number}.0"})
        return listed
