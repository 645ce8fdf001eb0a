"""Writes through forms: new, edit and delete call ``Org.create``, ``Org.update`` and ``Org.delete`` as
the signed-in user. Whatever the org refuses — a read-only org, a missing required field, a bad
value — comes back on the form with the org's own message, the typed values kept."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from ...errors import SalesforceError
from ..rest.state import org
from . import forms, sessions
from .blueprint import blueprint, zone
from .catalog import ObjectInfo
from .pages import html, object_info


def _form(
    info: ObjectInfo, record: dict[str, Any] | None, values: dict[str, Any], error: SalesforceError | None = None
) -> Response:
    fields = forms.form_fields(info, creating=record is None)
    body = render_template(
        "ui/form.html",
        info=info,
        record=record,
        fields=fields,
        values=values,
        error=error,
        error_fields=set(error.fields or []) if error else set(),
    )
    return html(body)


def _user_id() -> str:
    return sessions.user_id()


@blueprint.route("/lightning/o/<sobject>/new", methods=["GET", "POST"], endpoint="new")
def new(sobject: str) -> Response:
    info = object_info(sobject)
    if request.method == "GET":
        return _form(info, None, {})
    body = forms.submitted(info, request.form, forms.form_fields(info, creating=True), zone())
    data = {name: value for name, value in body.items() if value is not None}
    try:
        record_id = org().create(info.name, data, user_id=_user_id())
    except SalesforceError as error:
        return _form(info, None, body, error)
    return redirect(url_for("ui.record", sobject=info.name, record_id=record_id, toast="created"), 303)


@blueprint.route("/lightning/r/<sobject>/<record_id>/edit", methods=["GET", "POST"], endpoint="edit")
def edit(sobject: str, record_id: str) -> Response:
    info = object_info(sobject)
    record = org().retrieve(info.name, record_id)
    if request.method == "GET":
        return _form(info, record, record)
    body = forms.submitted(info, request.form, forms.form_fields(info, creating=False), zone())
    changed = forms.changes(body, record)
    try:
        if changed or org().read_only:  # an unchanged record is left as it is, not re-stamped
            org().update(info.name, record["Id"], changed, user_id=_user_id())
    except SalesforceError as error:
        return _form(info, record, body, error)
    return redirect(url_for("ui.record", sobject=info.name, record_id=record["Id"], toast="saved"), 303)


@blueprint.route("/lightning/r/<sobject>/<record_id>/delete", methods=["GET", "POST"], endpoint="delete")
def delete(sobject: str, record_id: str) -> Response:
    info = object_info(sobject)
    record = org().retrieve(info.name, record_id)
    title = str(record.get(info.title) or record["Id"])
    error = None
    if request.method == "POST":
        try:
            org().delete(info.name, record["Id"], user_id=_user_id())
        except SalesforceError as problem:
            error = problem
        else:
            return redirect(url_for("ui.list_view", sobject=info.name, toast="deleted"), 303)
    body = render_template("ui/delete.html", info=info, record=record, title=title, error=error)
    return html(body)
