"""A scripted OpenAI-compatible endpoint: ``crmarena fake-llm`` (eval_suite/commands/fake_llm.py) for
users' own smoke tests of their plumbing, and the endpoint the harness's tests run against.

A real HTTP server on a loopback port answers ``POST /v1/chat/completions`` (and ``GET /v1/models``)
with what a policy decides from the request: a reply (text, tool calls), an HTTP error, a dropped
connection, or nothing at all (the connection stays open and silent: a stalled endpoint). Clients
talk to it exactly as to vLLM or a hosted API; every request is kept for assertions.

The command's policy (``scripted_policy``) answers by the conversation's turn: a script file's
line for that turn, else the final answer in the form the request asks for (a ``respond`` tool call
when native tools are offered, ``<respond>`` or a ``<tool_call>`` when the prompt uses tags), with
failures and stalls on demand.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..prompts import ENDPOINT_CHECK

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}  # per answer, so costs can be checked


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)  # (name, arguments: text or object)
    usage: bool = True
    delay: float = 0.0


@dataclass
class Failure:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


DROP = "drop"  # close the connection without answering
STALL = "stall"  # keep the connection open and never answer
Answer = Reply | Failure | str
Policy = Callable[[dict[str, Any]], Answer]


class FakeLLM:
    """The server; a context manager (started on enter, stopped on exit) or ``serve_forever()``.

    With ``answer_checks`` (the default) the harness's start-of-run endpoint check (probe.ENDPOINT_CHECK)
    is answered "OK" without asking the policy, and kept in ``checks`` rather than ``requests``."""

    def __init__(
        self,
        policy: Policy,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str | None = None,
        answer_checks: bool = True,
    ) -> None:
        self.policy = policy
        self.model = model
        self.answer_checks = answer_checks
        self.checks: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.model_seconds = 0.0
        self._lock = threading.Lock()
        self._closing = threading.Event()  # lets stalled handlers go when the server stops
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{port}/v1"

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def close(self) -> None:
        self._closing.set()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _answer(self, body: dict[str, Any]) -> tuple[Answer, float]:
        started = time.perf_counter()
        if self.answer_checks and is_endpoint_check(body):
            with self._lock:
                self.checks.append(body)
            return Reply("OK"), started
        with self._lock:
            self.requests.append(body)
        try:
            return self.policy(body), started
        except Exception as error:  # a policy's own bug: the client sees a 500 that says so, the server goes on
            return Failure(500, message=f"fake-llm: the policy failed: {type(error).__name__}: {error}"), started

    def _payload(self, body: dict[str, Any], reply: Reply, serial: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{serial}_{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
                }
                for index, (name, args) in enumerate(reply.tool_calls)
            ]
        payload: dict[str, Any] = {
            "id": f"chatcmpl-fake-{serial}",
            "object": "chat.completion",
            "model": self.model or body.get("model"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}
            ],
        }
        if reply.usage:
            payload["usage"] = dict(USAGE)
        return payload


def _handler(server: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in separate writes

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # /v1/models
            self._send(200, {"object": "list", "data": [{"id": server.model or "fake-model", "object": "model"}]})

        def do_POST(self) -> None:
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            except (ValueError, json.JSONDecodeError):
                self._send(400, {"error": {"message": "the request body is not JSON", "type": "invalid_request"}})
                return
            answer, started = server._answer(body)
            if answer == STALL:
                server._closing.wait()  # hold the connection, say nothing, until the server stops
                self.close_connection = True
                return
            if answer == DROP:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if isinstance(answer, Failure):
                self._send(answer.status, {"error": {"message": answer.message, "type": "scripted"}}, answer.headers)
                return
            assert isinstance(answer, Reply)
            time.sleep(answer.delay)
            with server._lock:
                serial = len(server.requests)
                server.model_seconds += time.perf_counter() - started
            self._send(200, server._payload(body, answer, serial))

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


# ----------------------------------------------------------------------------- reading a request


def is_endpoint_check(body: dict[str, Any]) -> bool:
    """The harness's one-message check that an endpoint answers (probe.check_endpoint, agents without tools)."""
    messages = body.get("messages") or []
    return len(messages) == 1 and messages[0].get("content") == ENDPOINT_CHECK and not body.get("tools")


def turns(body: dict[str, Any]) -> int:
    """How many assistant turns the conversation already has (0 for its first request)."""
    return sum(message.get("role") == "assistant" for message in body.get("messages", []))


def last_user_text(body: dict[str, Any]) -> str:
    """The latest user or tool message of a request (what the org or a tool answered)."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") in ("user", "tool"):
            return _text(message.get("content"))
    return ""


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def final_answer(body: dict[str, Any], answer: str, *, native_tools: bool = True) -> Reply:
    """``answer`` in the form the request asks for: a ``respond`` tool call when native tools include
    it, a call of the first tool offered when they do not (the capability probe's question), else the
    tags the system prompt names (``<tool_call>`` for the text tool protocol, ``<respond>`` for ReAct
    and Act), else the bare text."""
    tools = [tool.get("function", {}) for tool in body.get("tools") or [] if isinstance(tool, dict)]
    names = [tool.get("name") for tool in tools]
    if native_tools and "respond" in names:
        return Reply(tool_calls=[("respond", {"content": answer})])
    if native_tools and tools:
        required = tools[0].get("parameters", {}).get("required", [])
        return Reply(tool_calls=[(names[0], {name: "Paris" for name in required})])
    system = "".join(_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")
    if "<tool_call>" in system:
        return Reply("<tool_call>" + json.dumps({"name": "respond", "arguments": {"content": answer}}) + "</tool_call>")
    if "<respond>" in system:
        return Reply(f"<respond>{answer}</respond>")
    return Reply(answer)


def scripted_policy(
    *,
    answer: str = "None",
    script: list[dict[str, Any]] | None = None,
    native_tools: bool = True,
    fail_first: int = 0,
    fail_every: int = 0,
    fail_status: int = 500,
    stall_after: int | None = None,
    delay: float = 0.0,
) -> Policy:
    """The command's policy: failures and stalls by the request's number, then the script's line for
    the conversation's turn (the last line beyond its end), else the final answer."""
    counter = {"requests": 0}
    lock = threading.Lock()

    def policy(body: dict[str, Any]) -> Answer:
        with lock:
            counter["requests"] += 1
            number = counter["requests"]
        if stall_after is not None and number > stall_after:
            return STALL
        if number <= fail_first or (fail_every and number % fail_every == 0):
            return Failure(fail_status, message=f"fake-llm: failure on demand (request {number})")
        step = script[min(turns(body), len(script) - 1)] if script else None
        reply = (
            _scripted(step, body, answer, native_tools)
            if step is not None
            else final_answer(body, answer, native_tools=native_tools)
        )
        if isinstance(reply, Reply):
            reply.delay = max(reply.delay, delay)
        return reply

    return policy


def _scripted(step: dict[str, Any], body: dict[str, Any], answer: str, native_tools: bool) -> Answer:
    if step.get("stall"):
        return STALL
    if step.get("drop"):
        return DROP
    if "status" in step:
        return Failure(int(step["status"]), message=str(step.get("message", "fake-llm: scripted failure")))
    if step.get("respond"):
        return final_answer(body, str(step.get("answer", answer)), native_tools=native_tools)
    calls = [(call["name"], call.get("arguments", {})) for call in step.get("tool_calls", [])]
    return Reply(step.get("content"), calls, delay=float(step.get("delay", 0.0)))


def read_script(path: Path) -> list[dict[str, Any]]:
    """A script file: JSON Lines, one step per conversation turn (docs/benchmark.md, fake endpoint)."""
    steps = []
    known = {"content", "tool_calls", "status", "message", "stall", "drop", "respond", "answer", "delay"}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(step, dict) or not set(step) <= known or not set(step) & known:
            raise ValueError(f"{path} line {number}: a step is an object with some of {', '.join(sorted(known))}")
        calls = step.get("tool_calls", [])
        if not isinstance(calls, list) or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str) for c in calls
        ):
            raise ValueError(f'{path} line {number}: tool_calls is a list of {{"name": …, "arguments": {{…}}}}')
        steps.append(step)
    if not steps:
        raise ValueError(f"{path}: no steps")
    return steps
