"""The names the inspect components are registered under: ``crmarena/<name>``, the entry point's name.

inspect prefixes a registered name with the top-level package of the module that defines it when that package is
installed in site-packages (which would give ``eval_suite/…``), and with nothing when it is installed in editable
mode, so neither matches ``crmarena/…``. A function whose module is no imported module gets no prefix either way;
the decorators are then given the full name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

NAMESPACE = "crmarena"
F = TypeVar("F", bound=Callable[..., Any])


def registered(name: str) -> str:
    """The name a component is registered and looked up under."""
    return f"{NAMESPACE}/{name}"


def unprefixed(function: F) -> F:
    """``function`` as inspect sees a function defined outside any installed package, so that the name its
    decorator is given is the whole registered name, however the project is installed."""
    function.__module__ = NAMESPACE
    return function
