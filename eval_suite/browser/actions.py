"""BrowserGym-style actions: a string of calls such as ``click("12")`` or ``fill("7", "Acme")``, read with
Python's parser and never evaluated. Each argument must be a literal (a string or a number); anything else —
an unknown function, a keyword the function does not take, a wrong number of arguments, two statements that
are not calls — is an ``ActionError`` whose message the agent reads back as ``last_action_error``."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..agents.literals import AST_LOCK

# name → the parameters it takes, in order (all required).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "click": ("bid",),
    "fill": ("bid", "value"),
    "select_option": ("bid", "options"),
    "press": ("bid", "key_comb"),
    "clear": ("bid",),
    "goto": ("url",),
    "go_back": (),
    "go_forward": (),
    "scroll": ("delta_x", "delta_y"),
    "noop": (),
    "send_msg_to_user": ("text",),
}
MAX_ACTION_CHARS = 20_000
MAX_CALLS = 10  # a string may chain a few calls, as BrowserGym allows


class ActionError(ValueError):
    """An action that cannot be carried out, said so that the agent can fix it."""


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Any, ...]

    def text(self) -> str:
        return f"{self.name}({', '.join(repr(arg) for arg in self.args)})"


def parse(text: str) -> list[Call]:
    """The calls an action string makes, in order, or ActionError."""
    source = (text or "").strip()
    if not source:
        raise ActionError('no action: write one call such as click("12") or send_msg_to_user("the answer")')
    if len(source) > MAX_ACTION_CHARS:
        raise ActionError(f"the action is {len(source):,} characters long; at most {MAX_ACTION_CHARS:,} are read")
    try:
        with AST_LOCK:
            tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        raise ActionError(f"the action is not a call this environment can read: {error}") from None
    if len(tree.body) > MAX_CALLS:
        raise ActionError(f"at most {MAX_CALLS} calls per action")
    return [_call(statement) for statement in tree.body]


def _call(statement: ast.stmt) -> Call:
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        raise ActionError(f"only function calls are actions, not {ast.unparse(statement)[:80]!r}")
    node = statement.value
    if not isinstance(node.func, ast.Name) or node.func.id not in SIGNATURES:
        name = ast.unparse(node.func)[:40]
        raise ActionError(f"unknown action {name!r}: use one of {', '.join(SIGNATURES)}")
    name, parameters = node.func.id, SIGNATURES[node.func.id]
    values: dict[str, Any] = {}
    for index, argument in enumerate(node.args):
        if isinstance(argument, ast.Starred) or index >= len(parameters):
            raise ActionError(f"{name} takes {len(parameters)} argument(s): {name}({', '.join(parameters)})")
        values[parameters[index]] = _literal(name, argument)
    for keyword in node.keywords:
        if keyword.arg not in parameters or keyword.arg in values:
            raise ActionError(f"{name} has no argument {keyword.arg!r}: {name}({', '.join(parameters)})")
        values[keyword.arg] = _literal(name, keyword.value)
    missing = [parameter for parameter in parameters if parameter not in values]
    if missing:
        raise ActionError(f"{name} needs {', '.join(missing)}: {name}({', '.join(parameters)})")
    return Call(name, tuple(values[parameter] for parameter in parameters))


def _literal(name: str, node: ast.expr) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        shown = ast.unparse(node)[:60]
        raise ActionError(f'{name}: arguments must be literals such as "12" or 300, not {shown}') from None
    if isinstance(value, bool) or not isinstance(value, str | int | float | list):
        raise ActionError(f"{name}: {ast.unparse(node)[:60]} is not a string or a number")
    return value
