"""What a test sees of a served org, whichever backend serves it, and which database that org starts from."""

from __future__ import annotations

import fcntl
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mock_org.cache import cache_root

if TYPE_CHECKING:
    from simple_salesforce import Salesforce

CLIENT_TIMEOUT = 60.0  # seconds a client's request may go unanswered before it fails


class OrgUnavailable(Exception):
    """The org could not be served (no Docker daemon, a failed image build, a container that never got
    healthy): an infrastructure failure, reported in one line."""


@dataclass
class Credentials:
    """Where an org is and how to log in to it and trust it."""

    url: str
    username: str
    password: str
    security_token: str
    ca_bundle: Path


class ServedOrg(ABC):
    """A served org: ``url``, the administrator's ``username``/``password``/``security_token``, the
    ``ca_bundle`` that makes its certificate trusted, ``connect()`` for a logged-in simple-salesforce client
    and ``reset()`` to bring back its pristine data (clients made before a reset must log in again)."""

    credentials: Credentials

    @property
    def url(self) -> str:
        return self.credentials.url

    @property
    def username(self) -> str:
        return self.credentials.username

    @property
    def password(self) -> str:
        return self.credentials.password

    @property
    def security_token(self) -> str:
        return self.credentials.security_token

    @property
    def ca_bundle(self) -> Path:
        return self.credentials.ca_bundle

    @property
    def environment(self) -> dict[str, str]:
        """The variables `crmarena serve` prints, for code under test that reads its org from the environment
        (``monkeypatch.setenv`` each); requests-based code also trusts the org through REQUESTS_CA_BUNDLE."""
        return {
            "CRMARENA_URL": self.url,
            "CRMARENA_USERNAME": self.username,
            "CRMARENA_PASSWORD": self.password,
            "CRMARENA_SECURITY_TOKEN": self.security_token,
            "CRMARENA_CA_BUNDLE": str(self.ca_bundle),
            "REQUESTS_CA_BUNDLE": str(self.ca_bundle),
        }

    def connect(self, version: str = "59.0") -> Salesforce:
        """A simple-salesforce client logged in as the administrator, every request bounded by a timeout."""
        from mock_org.client import connect

        return connect(
            self.url,
            username=self.username,
            password=self.password,
            security_token=self.security_token,
            ca_bundle=self.ca_bundle,
            version=version,
            timeout=CLIENT_TIMEOUT,
        )

    @abstractmethod
    def reset(self) -> None:
        """Serve the pristine data again, at the same URL with the same credentials."""

    @abstractmethod
    def close(self) -> None:
        """Stop serving and remove whatever was made for this org."""


def seeded_org(seed: int) -> Path:
    """The database of the org built from ``seed`` (the default scale, no task instances), built once into
    the cache; concurrent sessions (pytest-xdist workers) wait for the one that builds it."""
    from fixtures.build import build
    from mock_org.dump import DB_FILE

    folder = cache_root() / "pytest-orgs" / f"seed-{seed}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"seed-{seed}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / DB_FILE).is_file():
            build(seed, 1.0, folder, per_task=0)
    return folder / DB_FILE
