"""Packages from the npm registry, installed by the test run itself into the project's cache (once),
so the end-to-end tests drive the real, unmodified JavaScript clients."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ENETUNREACH", "network")


def cache_root() -> Path:
    return Path(os.environ.get("CRMARENA_CACHE_DIR") or Path.home() / ".cache" / "crmarena")


def installed(*packages: str, timeout: int = 300) -> Path:
    """The ``node_modules`` holding ``packages`` (npm specs such as ``jsforce@3``); skips the test only
    when node/npm are missing or the registry cannot be reached, fails on any other npm error."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    target = cache_root() / "npm" / "+".join(package.replace("@", "-").replace("/", "-") for package in packages)
    done = target / "installed.txt"
    if not done.exists():
        target.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(
            ["npm", "install", "--prefix", str(target), "--no-audit", "--no-fund", "--loglevel=error", *packages],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            if any(marker in result.stderr for marker in OFFLINE):
                pytest.skip(f"the npm registry is unreachable: {result.stderr.strip()[-300:]}")
            raise RuntimeError(f"npm install {' '.join(packages)} failed:\n{result.stderr}")
        done.write_text("\n".join(packages) + "\n")
    return target / "node_modules"
