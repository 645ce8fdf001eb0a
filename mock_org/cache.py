"""The project's cache folder: ``$CRMARENA_CACHE_DIR``, else ~/.cache/crmarena.

It holds what is made once and kept: the unpacked default org, the served working copy, reading
copies of other databases and the TLS files. The engine's functions take the folder as an argument;
commands resolve it here.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root(cache_dir: Path | str | None = None) -> Path:
    """``cache_dir`` when given, else ``$CRMARENA_CACHE_DIR``, else ~/.cache/crmarena."""
    if cache_dir is not None:
        return Path(cache_dir)
    return Path(os.environ.get("CRMARENA_CACHE_DIR") or Path.home() / ".cache" / "crmarena")
