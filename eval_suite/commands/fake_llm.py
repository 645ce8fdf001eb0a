"""``crmarena fake-llm``: serve the scripted endpoint (eval_suite.model.fake_llm) until Ctrl-C, with the
answers, script, failures and stalls the flags ask for."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from eval_suite.model.fake_llm import FakeLLM, read_script, scripted_policy
from mock_org.user_errors import BadFile, Unavailable, UsageError

from .arguments import port_number, positive_int


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fake-llm",
        help="serve a scripted OpenAI-compatible endpoint (fixed answers, tool calls, failures and stalls on demand)",
        description="A fake model endpoint for smoke tests of your plumbing, no model and no key needed: point "
        "OPENAI_BASE_URL (or --base-url) at the URL it prints. It answers every conversation with --answer in "
        "the form the request asks for, or follows --script; it fails or stalls on demand.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=0, help="the port (default: a free one, printed)")
    parser.add_argument("--model", help="the model name it reports (default: the one each request names)")
    parser.add_argument("--answer", default="None", help="the final answer of every conversation (default None)")
    parser.add_argument("--script", type=Path, help="a JSON Lines file: one step per conversation turn")
    parser.add_argument("--no-tools", action="store_true", help="answer as a server without native tool calls")
    parser.add_argument("--fail-first", type=positive_int, default=0, help="the first N requests fail")
    parser.add_argument("--fail-every", type=positive_int, default=0, help="every Nth request fails")
    parser.add_argument("--fail-status", type=int, default=500, help="the HTTP status of a failure (default 500)")
    parser.add_argument(
        "--stall-after",
        type=int,
        metavar="N",
        help="answer N requests, then accept each request and never answer (0: at once)",
    )
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.set_defaults(handler=_command)


def _command(args: argparse.Namespace) -> int:
    if args.stall_after is not None and args.stall_after < 0:
        raise UsageError("crmarena fake-llm: --stall-after must be 0 or more")
    if not 400 <= args.fail_status <= 599:
        raise UsageError("crmarena fake-llm: --fail-status must be an HTTP error status (400 to 599)")
    try:
        script = read_script(args.script) if args.script else None
    except (OSError, ValueError) as error:
        raise BadFile(f"crmarena fake-llm: {error}") from None
    policy = scripted_policy(
        answer=args.answer,
        script=script,
        native_tools=not args.no_tools,
        fail_first=args.fail_first,
        fail_every=args.fail_every,
        fail_status=args.fail_status,
        stall_after=args.stall_after,
        delay=args.delay,
    )
    try:
        server = FakeLLM(policy, host=args.host, port=args.port, model=args.model, answer_checks=False)
    except OSError as error:
        raise Unavailable(f"crmarena fake-llm: cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with server:
        print(f"fake-llm: an OpenAI-compatible endpoint at {server.url} (Ctrl-C stops it)", flush=True)
        print(f"export OPENAI_BASE_URL={server.url}", flush=True)
        stop.wait()
    print(f"fake-llm: answered {len(server.requests)} requests", file=sys.stderr)
    return 0
