"""The real-org lane's commands: ``crmarena org metadata``, ``crmarena org push``, ``crmarena tasks remap``."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from mock_org.schema import ORG_TYPES
from mock_org.user_errors import BadFile, UsageError

from .arguments import positive_int

DEFAULT_IDMAP = Path("idmap.json")


def add(subparsers: argparse._SubParsersAction) -> None:
    org_commands = _subcommands(subparsers.choices["org"])
    metadata = org_commands.add_parser(
        "metadata",
        help="write the Salesforce DX project that readies a real org for the CRMArena data",
        description="Write an SFDX project (org settings, custom objects, custom fields, a permission set) generated "
        "from the dump layout of an org type or a dump; deploy it with `sf project deploy start --source-dir "
        "DIR/org-settings`, then `DIR/force-app`.",
    )
    metadata.add_argument("--out", type=Path, required=True, help="the project folder to write (made if missing)")
    layout = metadata.add_mutually_exclusive_group()
    layout.add_argument(
        "--org", choices=ORG_TYPES, help="the org type whose layout to deploy (default: service, the default org)"
    )
    layout.add_argument("--db", type=Path, help="the dump whose layout to deploy (its crmarena_schema.json)")
    metadata.set_defaults(handler=_metadata)
    push = org_commands.add_parser(
        "push",
        help="make every record of a dump in the target org and write the Id map (resumable)",
        description="Push an org dump into the org that CRMARENA_TARGET names (salesforce, with SALESFORCE_*, or "
        "a running mock at CRMARENA_MOCK_URL), in dependency order; the same command again resumes.",
    )
    push.add_argument("--db", type=Path, help="the dump's crmarena.db or folder (default: the default CRMArena org)")
    push.add_argument("--idmap", type=Path, default=DEFAULT_IDMAP, help="the Id map to write (default idmap.json)")
    push.add_argument(
        "--user-map",
        type=Path,
        metavar="FILE",
        help="a JSON object: the dump's username → the org's, for users named otherwise",
    )
    push.add_argument(
        "--without-audit-fields",
        action="store_true",
        help="do not send CreatedDate and the other audit fields (the org sets today's)",
    )
    push.add_argument("--batch-size", type=positive_int, default=200, help="records per request (default 200)")
    push.add_argument("--no-progress", dest="progress", action="store_false", default=None, help="no progress bar")
    push.set_defaults(handler=_push)
    tasks = subparsers.add_parser("tasks", help="task files for another org: remap")
    task_commands = tasks.add_subparsers(title="tasks commands", metavar="COMMAND", required=True)
    remap = task_commands.add_parser(
        "remap",
        help="rewrite a task file's record Ids to the org's, through a push's Id map",
        description="Rewrite every record Id (18 or 15 characters) in the tasks' queries, answers, params, "
        "context and reference solutions to the pushed org's; an Id the map lacks is refused.",
    )
    remap.add_argument("tasks", type=Path, help="the JSON Lines task file (e.g. fixtures/data/default/tasks.jsonl)")
    remap.add_argument("--idmap", type=Path, required=True, help="the Id map crmarena org push wrote")
    remap.add_argument("--out", type=Path, required=True, help="the task file to write (atomically)")
    remap.set_defaults(handler=_remap)


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))


def _metadata(args: argparse.Namespace) -> int:
    from mock_org.schema import schema_document

    from ..lane.metadata import write_project
    from ..lane.source import Dump

    if args.db is not None:
        schema_path = Dump(args.db).schema_path
        try:
            schema = json.loads(schema_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise BadFile(f"{schema_path}: not a dump layout: {error}") from None
        if not isinstance(schema, dict) or not isinstance(schema.get("objects"), list):
            raise BadFile(f"{schema_path}: not a dump layout (no list of objects)")
    else:
        schema = schema_document(args.org or "service")
    written = write_project(schema, args.out)
    print(
        f"wrote {len(written)} files to {args.out}; deploy: sf project deploy start --source-dir "
        f"{args.out / 'force-app'} --target-org ORG"
    )
    return 0


def _push(args: argparse.Namespace) -> int:
    from fixtures import default_org
    from mock_org.user_errors import Unavailable

    from ..lane.push import Pusher
    from ..lane.source import Dump
    from ..run.target import AmbiguousTarget, TargetSettings, TargetUnavailable, open_target

    try:
        settings = TargetSettings.from_env()
    except AmbiguousTarget as error:
        raise UsageError(f"crmarena org push: {error}") from None
    except TargetUnavailable as error:
        raise Unavailable(f"crmarena org push: {error}") from None
    if settings.kind == "mock" and not settings.mock_url:
        raise UsageError(
            "crmarena org push needs a target org: CRMARENA_TARGET=salesforce with SALESFORCE_*, or a running "
            "mock at CRMARENA_MOCK_URL (docs/real-org-lane.md)"
        )
    user_map = _json_object(args.user_map) if args.user_map else None
    dump = Dump(args.db if args.db is not None else default_org())
    started = time.monotonic()
    try:
        with open_target(settings) as target:
            sf = target.connect()
            try:
                pusher = Pusher(
                    sf,
                    dump,
                    args.idmap,
                    target={"kind": target.kind, "url": target.url},
                    audit=not args.without_audit_fields,
                    user_map=user_map,
                    batch_size=args.batch_size,
                    progress=args.progress,
                )
                made = pusher.run()
            finally:
                sf.session.close()
    except TargetUnavailable as error:
        raise Unavailable(str(error)) from None
    took = time.monotonic() - started
    total = sum(made.values())
    print(
        f"pushed {total} records into {target.url} in {took:.1f}s "
        f"({len(pusher.idmap)} Ids mapped); Id map: {args.idmap}"
    )
    for note in pusher.notes:
        print(f"note: {note}")
    return 0


def _json_object(path: Path) -> dict[str, str]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BadFile(f"{path}: {error}") from None
    if not isinstance(document, dict) or not all(isinstance(v, str) for v in document.values()):
        raise BadFile(f"{path}: give a JSON object of the dump's username → the org's username")
    return document


def _remap(args: argparse.Namespace) -> int:
    from fixtures import default_org

    from ..lane.idmap import IdMapError, load_idmap
    from ..lane.remap import Remapper, remap_file
    from ..lane.source import Dump

    try:
        idmap = load_idmap(args.idmap)
    except IdMapError as error:
        raise BadFile(f"{args.idmap}: {error}") from None
    dump_path = idmap.source.get("dump")
    dump = Dump(Path(dump_path) if dump_path and os.path.exists(dump_path) else default_org())
    prefixes = [sobject.key_prefix for sobject in dump.objects.values()]
    count = remap_file(args.tasks, args.out, Remapper(idmap, prefixes))
    print(f"wrote {args.out}: {count} tasks, Ids through {args.idmap} ({len(idmap)} mapped)")
    return 0
