"""SOQL and SOSL: a Lark LALR grammar, a typed syntax tree and a canonical renderer.

Pure: no database, no HTTP; the only I/O is the LALR tables' cache file (grammar_cache.py).
``QuerySyntaxError`` is the only exception any input raises.
"""

from .errors import QuerySyntaxError
from .nodes import SoqlQuery, SoslQuery
from .parser import parse, parse_soql, parse_sosl, warm
from .render import to_text

__all__ = ["QuerySyntaxError", "SoqlQuery", "SoslQuery", "parse", "parse_soql", "parse_sosl", "to_text", "warm"]
