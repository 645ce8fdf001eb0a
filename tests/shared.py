"""Where the workplace's shared reference material is: the conformance corpus and the original data.

Tests read it at test time and never copy it. CI clones the project elsewhere, so besides the
sibling `../shared` of the checkout, the environment variable CRMARENA_SHARED_DIR and the
workplace's standard location are searched.
"""

from __future__ import annotations

import os
from pathlib import Path

_CANDIDATES = [
    os.environ.get("CRMARENA_SHARED_DIR", ""),
    str(Path(__file__).resolve().parents[2] / "shared"),
    "/work/shared",
]


def shared_dir() -> Path | None:
    for candidate in _CANDIDATES:
        if candidate and (Path(candidate) / "corpus").is_dir():
            return Path(candidate)
    return None
