"""The in-process backend: a throw-away copy of the org served by this Python process on a free loopback port
(mock_org's serve_org); needs nothing but the package."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from mock_org.server.serve import serve_org

from .served_org import Credentials, ServedOrg


class InProcessOrg(ServedOrg):
    """``source`` served from a private copy; ``reset()`` serves a new copy on the same port."""

    def __init__(self, source: Path) -> None:
        self._source = source
        self._stack = ExitStack()
        self._serve(port=0)

    def _serve(self, port: int) -> None:
        running = self._stack.enter_context(serve_org(self._source, port=port))
        self._port = running.server.port
        self.credentials = Credentials(
            running.url, running.username, running.password, running.security_token, running.ca_bundle
        )

    def reset(self) -> None:
        self._stack.close()
        self._stack = ExitStack()
        self._serve(port=self._port)

    def close(self) -> None:
        self._stack.close()
