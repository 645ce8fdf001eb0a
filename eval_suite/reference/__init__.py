"""Reference solutions: the executor that replays an instance's reference through any simple-salesforce
client (`executor`) and the pure derive operations a reference needs that no tool offers (`derive`). Apart
from `tools/` because agents are never given them; the oracle and the real-org lane use them, and
``from eval_suite.reference import run_reference`` is a public import (docs/benchmark.md)."""

from eval_suite.reference.executor import ReferenceError, resolve, run_reference, run_step

__all__ = ["ReferenceError", "resolve", "run_reference", "run_step"]
