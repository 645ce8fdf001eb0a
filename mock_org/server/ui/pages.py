"""The read pages: home, list views, record pages, related lists, global search and the query console.
Each parses its request, asks the org through ``Org`` (query, search, retrieve, describe) and renders."""

from __future__ import annotations

from flask import abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from ...errors import NotFound, SalesforceError
from ...ids import to18
from ..rest.state import org, state
from . import console, listing, records, report, sessions
from .blueprint import blueprint, session_clock, zone
from .catalog import ObjectInfo
from .columns import Column
from .records import quoted_id
from .search import Group, search
from .state import ui_state

RECENT_CASES = 10


def html(body: str, status: int = 200) -> Response:
    """A page. One that shows the org's answer to what the user asked — a refused query or filter, a
    write the org turned down — is still a page and answers 200, as Lightning does; a refusal of the
    request itself (no session, no CSRF token, no such record) keeps its own status."""
    return Response(body, status=status, content_type="text/html; charset=utf-8")


def object_info(sobject: str) -> ObjectInfo:
    """An object of the org a person works with (the supporting setup objects have no pages)."""
    catalog = ui_state().catalog
    info = catalog.get(sobject)
    if info.name not in catalog.main:
        raise NotFound(f"{sobject} has no pages in this org.")
    return info


@blueprint.route("/lightning/page/home", endpoint="home")
def home() -> Response:
    catalog = ui_state().catalog
    counts = [(catalog.get(name), org().query(f"SELECT COUNT() FROM {name}")["totalSize"]) for name in catalog.main]
    recent = None
    if "Case" in catalog.main:
        info = catalog.get("Case")
        recent_request = listing.ListRequest(size=RECENT_CASES)
        built = listing.build(catalog, info, recent_request, zone())
        recent = (info, built.columns, listing.rows(listing.page_records(org(), built), built.columns))
    return html(render_template("ui/home.html", counts=counts, recent=recent))


@blueprint.route("/lightning/o/<sobject>/home", endpoint="object_home")
def object_home(sobject: str) -> Response:
    return redirect(url_for("ui.list_view", sobject=object_info(sobject).name), 302)


def _list(info: ObjectInfo, template: str, base: tuple[str, ...] = (), **context: object) -> Response:
    wanted = listing.ListRequest.read(request.args)
    reachable = listing.MAX_OFFSET // wanted.size + 1
    catalog = ui_state().catalog
    error, built, page_rows, total = None, None, [], 0
    try:
        built = listing.build(catalog, info, wanted, zone(), base)
        total = org().query(built.count_soql, clock=session_clock())["totalSize"]
        last = min(reachable, max(1, -(-total // wanted.size)))
        if wanted.page > last:  # past the end: the last page
            wanted.page = last
            built = listing.build(catalog, info, wanted, zone(), base)
        page_rows = listing.rows(listing.page_records(org(), built, session_clock()), built.columns)
        records.name_ids(org(), catalog, page_rows)
    except listing.FilterError as problem:
        error = str(problem)
    except SalesforceError as problem:
        error = f"{problem.error_code}: {problem.message}"
    if built is None:
        built = listing.build(catalog, info, listing.ListRequest(), zone(), base)

    def page_url(**changes: object) -> str:
        return url_for(request.endpoint or "", **(request.view_args or {}), **wanted.args(**changes))

    def sort_link(column: Column, active: bool) -> str:
        descending = not wanted.descending if active else False
        return page_url(sort=column.name, dir="desc" if descending else "asc", page=None)

    last_page = max(1, -(-total // wanted.size))
    body = render_template(
        template,
        info=info,
        view=wanted,
        built=built,
        rows=page_rows,
        total=total,
        error=error,
        last_page=min(last_page, reachable),
        capped=last_page > reachable,
        operators=listing.OPERATORS,
        page_sizes=listing.PAGE_SIZES,
        page_url=page_url,
        sort_link=sort_link,
        filterable=[entry for entry in info.field_list() if entry["filterable"]],
        **context,
    )
    return html(body)


@blueprint.route("/lightning/o/<sobject>/list", endpoint="list_view")
def list_view(sobject: str) -> Response:
    return _list(object_info(sobject), "ui/list.html")


@blueprint.route("/lightning/r/<sobject>/<record_id>/view", endpoint="record")
def record(sobject: str, record_id: str) -> Response:
    info = object_info(sobject)
    page = records.record_page(org(), ui_state().catalog, info, record_id)
    return html(render_template("ui/record.html", info=info, page=page))


@blueprint.route("/lightning/r/<record_id>/view", endpoint="record_by_id")
def record_by_id(record_id: str) -> Response:
    """``/lightning/r/{Id}/view``: the object is read from the Id's key prefix."""
    name = ui_state().catalog.object_of(record_id)
    if name is None:
        raise NotFound("The requested resource does not exist")
    return redirect(url_for("ui.record", sobject=name, record_id=record_id), 302)


@blueprint.route("/lightning/r/<sobject>/<record_id>/related/<relationship>/view", endpoint="related")
def related(sobject: str, record_id: str, relationship: str) -> Response:
    info = object_info(sobject)
    child = next((entry for entry in info.children if entry["relationshipName"].lower() == relationship.lower()), None)
    if child is None or child["childSObject"] not in ui_state().catalog.main:
        raise NotFound(f"{info.label} has no related list called {relationship}.")
    parent = org().retrieve(info.name, record_id)
    child_info = object_info(child["childSObject"])
    title = str(parent.get(info.title) or parent["Id"])
    base = (f"{child['field']} = {quoted_id(parent['Id'])}",)
    return _list(
        child_info, "ui/related.html", base, parent_info=info, parent=parent, parent_title=title, relationship=child
    )


@blueprint.route("/lightning/o/<sobject>/report", endpoint="report")
def summary_report(sobject: str) -> Response:
    """A summary report of the object's records (report.py): filters, one grouping, counts and averages."""
    info = object_info(sobject)
    catalog = ui_state().catalog
    wanted = report.ReportRequest.read(request.args)
    result, error = None, None
    try:
        result = report.run(org(), catalog, info, wanted, zone(), session_clock())
        names = records.names_of(org(), catalog, [group.key for group in result.groups if catalog.object_of(group.key)])
        for group in result.groups:
            if catalog.object_of(group.key):
                group.label = names.get(to18(group.key), group.label)
                group.link = url_for("ui.record_by_id", record_id=group.key)
    except listing.FilterError as problem:
        error = str(problem)
    except SalesforceError as problem:
        error = f"{problem.error_code}: {problem.message}"
    body = render_template(
        "ui/report.html",
        info=info,
        view=wanted,
        report=result,
        error=error,
        operators=listing.OPERATORS,
        fields=[entry for entry in info.field_list() if entry["filterable"]],
    )
    return html(body)


@blueprint.route("/lightning/search", endpoint="search")
def global_search() -> Response:
    text = (request.args.get("q") or "").strip()
    catalog = ui_state().catalog
    scope = object_info(request.args["scope"]) if request.args.get("scope") else None
    sosl, groups, error = "", list[Group](), None
    if text:
        try:
            sosl, groups = search(org(), catalog, text, scope)
        except SalesforceError as problem:
            error = f"{problem.error_code}: {problem.message}"
    body = render_template("ui/search.html", query=text, scope=scope, groups=groups, sosl=sosl, error=error)
    return html(body)


@blueprint.route("/lightning/setup/query", methods=["GET", "POST"], endpoint="console")
def query_console() -> Response:
    if not state().settings.ui_console:  # served with --ui-console off: the page does not exist
        abort(404)
    text = request.form.get("q", "") if request.method == "POST" else request.args.get("q", "")
    include_deleted = request.form.get("all_rows") == "true"
    answer, error = None, None
    if request.method == "POST" and (text.strip() or request.form.get("locator")):
        try:
            answer = console.run(
                org(),
                text,
                include_deleted=include_deleted,
                locator=request.form.get("locator", ""),
                user_id=sessions.user_id(),
                clock=session_clock(),
            )
        except SalesforceError as problem:
            error = problem
    body = render_template(
        "ui/console.html",
        text=text,
        include_deleted=include_deleted,
        answer=answer,
        error=error,
        cell_text=console.cell_text,
        is_grid=lambda value: isinstance(value, console.Grid),
    )
    return html(body)


@blueprint.route("/lightning/<path:rest>", endpoint="unknown", methods=["GET", "POST"])
def unknown(rest: str) -> Response:
    abort(404)
