"""The harness's tests run against the shipped fake endpoint (``crmarena fake-llm``): a real HTTP
server on a free loopback port whose Python policy decides each answer (a reply, an HTTP error, a
dropped connection, a stall), so the harness runs through the real ``openai`` client exactly as
against vLLM or a hosted API. Every request is kept for assertions."""

from __future__ import annotations

from eval_suite.model.fake_llm import DROP, STALL, Failure, Reply, last_user_text, turns
from eval_suite.model.fake_llm import FakeLLM as ScriptedLLM

__all__ = ["DROP", "STALL", "Failure", "Reply", "ScriptedLLM", "last_user_text", "turns"]
