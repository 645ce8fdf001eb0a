"""Where the LALR tables live between processes: a file in CRMArena's cache directory.

Building the SOQL tables takes ~0.5 s; loading them from Lark's cache ~0.15 s. Lark's own default
cache is a file in the temporary directory, which every new container starts without, written in
place. Here the file sits in ``$CRMARENA_CACHE_DIR/grammars`` (else ~/.cache/crmarena/grammars),
where the Docker image's build step leaves it, under a name that changes with the grammar, the
package's code, Lark and Python (so a stale file is never read), and is written beside and renamed (so two
processes building at once each leave a whole file, and a reader never sees half of one). Where the
directory cannot be written, the tables are built in memory and nothing is left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import lark
from lark import Lark

_HERE = Path(__file__).parent
_OBJECTS = frozenset({"transformer", "postlex"})  # options that are objects: known by their class (code above)


def cache_directory() -> Path:
    root = os.environ.get("CRMARENA_CACHE_DIR") or Path.home() / ".cache" / "crmarena"
    return Path(root) / "grammars"


def cache_path(grammar: str, options: dict[str, Any]) -> Path:
    """The cache file of ``grammar`` (a .lark file of this package) built with ``options``. The file
    holds the transformer and post-lexer too (pickled), so the package's code is part of the name."""
    digest = hashlib.sha256(f"{lark.__version__} {sys.version_info[:2]} {grammar}".encode())
    for source in sorted([*_HERE.glob("*.lark"), *_HERE.glob("*.py")]):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    settings = {name: type(value).__qualname__ if name in _OBJECTS else repr(value) for name, value in options.items()}
    digest.update(repr(sorted(settings.items())).encode())
    return cache_directory() / f"{Path(grammar).stem}-{digest.hexdigest()[:16]}.lark"


def open_grammar(grammar: str, **options: Any) -> Lark:
    """``Lark.open`` of a grammar of this package, read from its cache file when there is a whole one,
    else built and left there for the next process."""
    path = cache_path(grammar, options)
    try:
        with path.open("rb") as file:
            return Lark.load(file)
    except Exception:  # missing, or damaged (whatever pickle makes of it): built anew
        pass
    parser = Lark.open(grammar, rel_to=str(_HERE / grammar), **options)
    _save(parser, path)
    return parser


def _save(parser: Lark, path: Path) -> None:
    """Write beside, then rename; where that cannot be done, leave nothing (the next process builds)."""
    beside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with beside.open("xb") as file:
            parser.save(file)
        os.replace(beside, path)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            beside.unlink()
