"""Driving the UI through Flask's test client: log in through the login form, read a form's CSRF token."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def form_token(client: FlaskClient, path: str) -> str:
    page = client.get(path)
    match = TOKEN.search(page.get_data(as_text=True))
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def log_in(client: FlaskClient, username: str, password: str) -> None:
    answer = client.post("/", data={"csrf_token": form_token(client, "/"), "username": username, "password": password})
    assert answer.status_code == 302, answer.get_data(as_text=True)
    assert client.get_cookie("sid") is not None
