"""A scripted OpenAI-compatible endpoint for the tests: a real HTTP server on a free loopback port
that answers ``POST /v1/chat/completions`` with what a Python policy decides from the request (a
reply, an HTTP error, or a dropped connection), so the harness runs through the real ``openai``
client exactly as against vLLM or a hosted API. Every request is kept for assertions."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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
Policy = Callable[[dict[str, Any]], "Reply | Failure | str"]


class ScriptedLLM:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[dict[str, Any]] = []
        self.model_seconds = 0.0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # /v1/models
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:
                started = time.perf_counter()  # everything from here on is the "model's" time
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with server._lock:
                    server.requests.append(body)
                answer = server.policy(body)
                if answer == DROP:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if isinstance(answer, Failure):
                    self._send(
                        answer.status, {"error": {"message": answer.message, "type": "scripted"}}, answer.headers
                    )
                    return
                time.sleep(answer.delay)
                message: dict[str, Any] = {"role": "assistant", "content": answer.content}
                if answer.tool_calls:
                    message["tool_calls"] = [
                        {"id": f"call_{len(server.requests)}_{i}", "type": "function",
                         "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                        for i, (name, args) in enumerate(answer.tool_calls)
                    ]  # fmt: skip
                payload: dict[str, Any] = {
                    "id": "chatcmpl-scripted", "object": "chat.completion", "model": body.get("model"),
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": "tool_calls" if answer.tool_calls else "stop"}],
                }  # fmt: skip
                if answer.usage:
                    payload["usage"] = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
                with server._lock:
                    server.model_seconds += time.perf_counter() - started
                self._send(200, payload)

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def last_user_text(body: dict[str, Any]) -> str:
    """The latest user or tool message of a request (what the org or a tool answered)."""
    for message in reversed(body["messages"]):
        if message["role"] in ("user", "tool"):
            return message.get("content") or ""
    return ""


def turns(body: dict[str, Any]) -> int:
    return sum(message["role"] == "assistant" for message in body["messages"])
