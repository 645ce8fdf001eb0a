"""Packages from PyPI, installed by the test run itself into the project's cache (once), so the end-to-end
tests drive the real, unmodified Python clients in a process of their own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .npm import OFFLINE, cache_root

PIP_OFFLINE = (*OFFLINE, "NewConnectionError", "Temporary failure in name resolution", "Max retries exceeded")


def installed(*requirements: str, timeout: int = 600, build_constraints: tuple[str, ...] = ()) -> Path:
    """A directory holding ``requirements`` (pip specs such as ``salesforce-bulk==2.2.0``) and their
    dependencies, for ``PYTHONPATH``; skips the test only when PyPI cannot be reached.
    ``build_constraints`` (such as ``cython<3``) hold back what building a source-only dependency uses."""
    target = cache_root() / "pypi" / "+".join(requirement.replace("=", "-") for requirement in requirements)
    done = target / "installed.txt"
    if not done.exists():
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        env = dict(os.environ)
        if build_constraints:
            partial.mkdir(parents=True)
            constraints = partial / "build-constraints.txt"
            constraints.write_text("\n".join(build_constraints) + "\n")
            env["PIP_CONSTRAINT"] = str(constraints)  # pip's isolated build environments read it too
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--target",
                str(partial),
                "--no-input",
                "--disable-pip-version-check",
                "--quiet",
                *requirements,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        if result.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            if any(marker in result.stderr for marker in PIP_OFFLINE):
                pytest.skip(f"PyPI is unreachable: {result.stderr.strip()[-300:]}")
            raise RuntimeError(f"pip install {' '.join(requirements)} failed:\n{result.stderr}")
        (partial / "installed.txt").write_text("\n".join(requirements) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(partial, target)
    return target
