"""The org in a browser: Lightning-style pages (``/lightning/…``), a login page, ``frontdoor.jsp`` and a
query console, served by the same app and reading and writing through the same ``Org`` as the API.

Phases: ``account`` (login, frontdoor, logout) and ``sessions`` (cookie, CSRF); ``pages`` and
``edit`` (the views) over ``listing``, ``records``, ``search``, ``console`` and ``forms`` (what each
page asks the org), ``columns`` and ``catalog`` (describe), ``display`` and ``conversation`` (how
values read); templates/ and static/ (plain CSS and JS, served locally).
"""

from __future__ import annotations

from flask import Flask

from ..rest.state import EXTENSION as SERVER_EXTENSION
from . import account, edit, pages  # noqa: F401  (their routes join the blueprint)
from .blueprint import blueprint
from .catalog import Catalog
from .state import EXTENSION, UiKeys, UiState


def register(app: Flask) -> None:
    """Serve the pages on ``app`` (after its server state is set up)."""
    server = app.extensions[SERVER_EXTENSION]
    app.extensions[EXTENSION] = UiState(Catalog(server.org), UiKeys.kept_in(server.shared))
    app.register_blueprint(blueprint)
