"""The agents' tools: the 25 CRMArena tools (our own implementation) and raw SOQL/SOSL, each a function
of ``(sf, **args)`` over an unmodified simple-salesforce client, with its schema (see `registry`)."""

from eval_suite.tools.registry import TOOLS, call, schemas
from eval_suite.tools.soql import ToolError

__all__ = ["TOOLS", "ToolError", "call", "schemas"]
