"""The entry point inspect loads (``[project.entry-points.inspect_ai] crmarena``): importing the modules registers
the tasks, solvers, scorer and reducer as ``crmarena/<name>``."""

from .scorer import answer, pass_hat
from .solvers import function_calling, oracle, org_session
from .tasks import VARIANTS, crmarena

__all__ = ["VARIANTS", "answer", "crmarena", "function_calling", "oracle", "org_session", "pass_hat"]
