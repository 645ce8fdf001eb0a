"""Python's parser, one thread at a time.

CPython 3.11's AST builder can lose count of its recursion depth when threads parse at once, and a parse
then fails with ``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905,
pytest-dev/pytest#10763; one of 18 oracle attempts in a CI run ended so). Episodes run in worker threads
and read model text with the parser (observations as literals, browser actions as calls), so every
such parse takes this lock.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

AST_LOCK = threading.Lock()


def literal(text: str) -> Any:
    """``ast.literal_eval`` under the lock (its errors unchanged)."""
    with AST_LOCK:
        return ast.literal_eval(text)
