"""What a server instance is configured with: credentials, API limits and the versions it advertises."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..auth import AuthConfig

DAILY_API_REQUESTS = 100_000
OLDEST_VERSION, NEWEST_VERSION = 20, 62  # the versions list a real org serves runs from 20.0 up
_SEASONS = ("Winter", "Spring", "Summer")


@dataclass(frozen=True)
class Settings:
    auth: AuthConfig = field(default_factory=AuthConfig)
    daily_api_requests: int = DAILY_API_REQUESTS
    newest_version: int = NEWEST_VERSION
    max_body_bytes: int = 150 * 1024 * 1024  # Bulk API 2.0 accepts uploads of up to 150 MB

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        limit = env.get("CRMARENA_DAILY_API_REQUESTS")
        return cls(auth=AuthConfig.from_env(env), daily_api_requests=int(limit) if limit else DAILY_API_REQUESTS)

    def versions(self) -> list[dict[str, str]]:
        """``GET /services/data``: every API version with its release label (v59.0 is Winter '24)."""
        listed = []
        for number in range(OLDEST_VERSION, self.newest_version + 1):
            offset = number - 59
            label = f"{_SEASONS[offset % 3]} '{24 + offset // 3:02d}"
            listed.append({"label": label, "url": f"/services/data/v{number}.0", "version": f"{number}.0"})
        return listed
