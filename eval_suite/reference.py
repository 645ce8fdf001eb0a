"""Moved to `eval_suite.tools.reference` (the reference executor runs the tool registry's tools); this
module re-exports it for one release (0.1.x) and will then be removed."""

import warnings

from eval_suite.tools.reference import ReferenceError, resolve, run_reference, run_step

__all__ = ["ReferenceError", "resolve", "run_reference", "run_step"]

warnings.warn(
    "eval_suite.reference moved to eval_suite.tools.reference; the old name goes after 0.1.x",
    DeprecationWarning,
    stacklevel=2,
)
