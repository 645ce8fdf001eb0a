"""Chat completions from any OpenAI-compatible endpoint (hosted APIs, vLLM, Ollama, llama.cpp,
LiteLLM) through the ``openai`` package, made robust for a benchmark.

Retries with exponential backoff (honouring ``Retry-After``) on rate limits, timeouts, connection
failures and 5xx; a limit on concurrent requests per endpoint; responses read leniently (no
``usage``, several tool calls, missing or repeated tool-call ids, arguments as an object,
``reasoning_content``); token usage and cost from a price table, with an unknown price recorded as
None, never $0; and an optional response cache keyed by the whole request (llm_cache.py).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import openai

from ..errors import AgentError, InfraError
from .cache import ResponseCache

RETRYABLE_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ]length|context window|maximum context|too many tokens|prompt is too long", re.IGNORECASE
)
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class EndpointConfig:
    """One model on one endpoint, and how to call it."""

    model: str
    base_url: str | None = None  # None: the openai package's default (OPENAI_BASE_URL or api.openai.com)
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    timeout: float = 120.0
    retries: int = 6
    retry_base: float = 1.0  # seconds before the first retry; doubled each time, capped at retry_cap
    retry_cap: float = 60.0
    max_concurrency: int = 8  # requests in flight to this endpoint, across all workers
    retry_timeouts: bool = True  # False: a call that times out fails at once (the start-of-run check)


@dataclass
class Completion:
    """One assistant message as the endpoint gave it, read leniently, plus what it cost."""

    content: str | None
    tool_calls: list[dict[str, str]]  # {"id", "name", "arguments"}: arguments as the model wrote them
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    served_model: str | None = None
    cost: float | None = None
    latency: float = 0.0
    cached: bool = False

    def message(self) -> dict[str, Any]:
        """The assistant turn for the next request (OpenAI's shape; reasoning kept out of it)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for call in self.tool_calls
            ]
        return message

    def call_info(self) -> dict[str, Any]:
        """What a record keeps about the call besides the message."""
        info = asdict(self)
        del info["content"], info["tool_calls"]
        return info


# ----------------------------------------------------------------------------- prices


@dataclass(frozen=True)
class Price:
    input: float  # US dollars per million prompt tokens
    output: float  # per million completion tokens
    cached_input: float | None = None  # per million prompt tokens read from the provider's prompt cache


@dataclass
class PriceTable:
    """Prices per model name. A model not in the table has no price (its cost is None, not 0)."""

    prices: dict[str, Price] = field(default_factory=dict)

    @classmethod
    def load(cls, override: Path | None = None) -> PriceTable:
        """The packaged table (eval_suite/model/prices.toml), with the entries of ``override`` on top."""
        table = tomllib.loads(resources.files(__package__).joinpath("prices.toml").read_text(encoding="utf-8"))
        if override is not None:
            table.update(tomllib.loads(Path(override).read_text(encoding="utf-8")))
        prices = {}
        for name, entry in table.items():
            prices[name] = Price(
                float(entry["input"]),
                float(entry["output"]),
                float(entry["cached_input"]) if "cached_input" in entry else None,
            )
        return cls(prices)

    def find(self, *names: str | None) -> Price | None:
        """The price of the first name known, trying each as written, without a provider prefix and
        without a date suffix (``openai/gpt-4o-2024-08-06`` → ``gpt-4o``)."""
        for name in filter(None, names):
            for candidate in (name, name.rsplit("/", 1)[-1]):
                for form in (candidate, _DATE_SUFFIX.sub("", candidate)):
                    if form in self.prices:
                        return self.prices[form]
        return None

    def cost(self, usage: Mapping[str, int] | None, *names: str | None) -> float | None:
        price = self.find(*names)
        if price is None or usage is None or usage.get("prompt_tokens") is None:
            return None
        prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0) or 0
        cached = usage.get("cached_tokens", 0) or 0
        cached_rate = price.cached_input if price.cached_input is not None else price.input
        return ((prompt - cached) * price.input + cached * cached_rate + completion * price.output) / 1e6


# ----------------------------------------------------------------------------- the client

_LIMITS: dict[str, threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


def endpoint_limit(key: str, size: int) -> threading.BoundedSemaphore:
    """One semaphore per endpoint, shared by every client of it (agent and judge alike)."""
    with _LIMITS_LOCK:
        if key not in _LIMITS:
            _LIMITS[key] = threading.BoundedSemaphore(max(1, size))
        return _LIMITS[key]


class LLM:
    """Calls one model. ``complete`` returns a Completion or raises InfraError / AgentError."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        cache: ResponseCache | None = None,
        prices: PriceTable | None = None,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.prices = prices or PriceTable.load()
        self._sleep = sleep
        self.on_retry = on_retry  # told "HTTP 500: …, 3/6" before each retry, so a storm is visible
        self._client = openai.OpenAI(
            api_key=config.api_key or "not-needed",  # local servers take any key; the package insists on one
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=0,  # retries are ours: classified, logged, with Retry-After honoured
        )
        self.endpoint = str(self._client.base_url)
        self._limit = endpoint_limit(self.endpoint, config.max_concurrency)

    def request_body(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
        }
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        if tools:
            body["tools"] = tools
        if tool_choice is not None:
            body["tool_choice"] = tool_choice
        if seed is not None:
            body["seed"] = seed
        return body

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        seed: int | None = None,
        scope: str = "",
    ) -> Completion:
        """One completion. ``scope`` keeps cache entries of different trials apart."""
        body = self.request_body(messages, tools=tools, tool_choice=tool_choice, seed=seed)
        if self.cache is not None:
            stored = self.cache.get(body, scope)
            if stored is not None:
                completion = self._read(stored, 0.0)
                completion.cached = True
                return completion
        data, latency = self._send(body)
        completion = self._read(data, latency)
        if self.cache is not None:
            self.cache.put(body, scope, data)
        return completion

    def _send(self, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
        last = ""
        for attempt in range(self.config.retries + 1):
            wait: float | None = None
            started = time.perf_counter()
            try:
                with self._limit:
                    # The request as JSON, untouched: the typed create() would re-validate every message
                    # of the conversation on each call (~10 ms for a CRMArena prompt).
                    data = self._client.post("/chat/completions", body=body, cast_to=object)
                if not isinstance(data, dict):
                    raise ValueError("the response is not a JSON object")
                return data, time.perf_counter() - started
            except openai.APIStatusError as error:
                wait = self._classify(error)
                last = f"HTTP {error.status_code}: {_message_of(error)}"
            except openai.APITimeoutError:
                last = f"no answer within {self.config.timeout:g} s (--timeout)"
                if not self.config.retry_timeouts:
                    raise InfraError(f"{self.endpoint} did not answer within {self.config.timeout:g} s") from None
            except openai.APIConnectionError as error:
                last = f"{type(error).__name__}: {_cause(error)}"
            except ValueError as error:
                last = f"unreadable response: {error}"
            if attempt < self.config.retries:
                if self.on_retry is not None:
                    self.on_retry(f"{last}, {attempt + 1}/{self.config.retries}")
                self._sleep(wait if wait is not None else self._backoff(attempt))
        raise InfraError(f"{self.endpoint} failed after {self.config.retries + 1} attempts: {last}")

    def _classify(self, error: openai.APIStatusError) -> float | None:
        """Raise for errors a retry cannot cure; return the wait the server asked for, if any."""
        status, message = error.status_code, _message_of(error)
        if status in RETRYABLE_STATUSES:
            return _retry_after(error.response.headers)
        if status in (400, 413, 422) and _CONTEXT_OVERFLOW.search(message):
            raise AgentError(f"the conversation no longer fits the model's context window: {message}")
        if status in (401, 403):
            raise InfraError(f"{self.endpoint} refused the credentials (HTTP {status}): {message}", fatal=True)
        if status == 404:
            raise InfraError(
                f"{self.endpoint} does not serve model {self.config.model!r} (HTTP 404): {message}", fatal=True
            )
        raise InfraError(f"{self.endpoint} refused the request (HTTP {status}): {message}")

    def _backoff(self, attempt: int) -> float:
        delay = min(self.config.retry_cap, self.config.retry_base * 2**attempt)
        return delay * random.uniform(0.5, 1.0)  # jitter, so that workers do not retry in lockstep

    def _read(self, data: dict[str, Any], latency: float) -> Completion:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise InfraError(f"{self.endpoint} answered without a choice: {json.dumps(data)[:300]}")
        choice = choices[0]
        found = choice.get("message")
        message = found if isinstance(found, dict) else {}
        usage = _usage(data.get("usage"))
        served = data.get("model") if isinstance(data.get("model"), str) else None
        return Completion(
            content=_text(message.get("content")),
            tool_calls=_tool_calls(message),
            reasoning=_text(message.get("reasoning_content") or message.get("reasoning")),
            finish_reason=choice.get("finish_reason"),
            usage=usage,
            served_model=served,
            cost=self.prices.cost(usage, self.config.model, served),
            latency=latency,
        )


def _cause(error: openai.APIConnectionError) -> str:
    """What went wrong under "Connection error." (refused, reset, unknown host), in a few words."""
    cause = error.__cause__
    while cause is not None and cause.__cause__ is not None and not isinstance(cause, ConnectionRefusedError):
        cause = cause.__cause__
    return f"{error} ({cause})" if cause is not None and str(cause) else str(error)


def _message_of(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(error.message)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (a number; HTTP dates fall back to backoff)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, min(float(value) * scale, 300.0))
            except ValueError:
                continue
    return None


def _text(value: Any) -> str | None:
    """Message content as text: a string, or the text parts of a content list."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part.get("text", "") for part in value if isinstance(part, dict))
    return str(value)


def _tool_calls(message: dict[str, Any]) -> list[dict[str, str]]:
    """Every tool call of the message, with an id each (made up when missing or repeated)."""
    raw = message.get("tool_calls")
    calls = list(raw) if isinstance(raw, list) else []
    if not calls and isinstance(message.get("function_call"), dict):
        calls = [{"function": message["function_call"]}]  # the legacy single-function form
    found, seen = [], set()
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = "" if arguments is None else json.dumps(arguments)
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{index}"
        while call_id in seen:
            call_id += f"_{index}"
        seen.add(call_id)
        found.append({"id": call_id, "name": str(function.get("name") or ""), "arguments": arguments})
    return found


def _usage(value: Any) -> dict[str, int] | None:
    """prompt/completion/total tokens, plus cached prompt and reasoning tokens when reported."""
    if not isinstance(value, dict):
        return None
    usage = {
        key: int(value[key])
        for key in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(value.get(key), int | float)
    }
    prompt_details = value.get("prompt_tokens_details")
    if isinstance(prompt_details, dict) and isinstance(prompt_details.get("cached_tokens"), int):
        usage["cached_tokens"] = prompt_details["cached_tokens"]
    completion_details = value.get("completion_tokens_details")
    if isinstance(completion_details, dict) and isinstance(completion_details.get("reasoning_tokens"), int):
        usage["reasoning_tokens"] = completion_details["reasoning_tokens"]
    return usage or None
