"""Headless Debian chromium driven by Playwright, for the browser tests. Playwright never downloads a
browser here: it drives /usr/bin/chromium, which is installed with apt when it is missing (as root),
and the Python driver is installed with pip when it is missing. Only when neither works are the
tests skipped, saying why."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

from eval_suite.browser.session import ARGS, CHROMIUM

__all__ = ["ARGS", "CHROMIUM", "ensure_browser"]


def _run(command: list[str]) -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(command, capture_output=True, env=env, timeout=900, check=False).returncode == 0


def ensure_browser() -> str | None:
    """None when chromium and the Playwright driver are ready, else why the browser tests cannot run."""
    if not CHROMIUM.exists():
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            return "no /usr/bin/chromium, and apt-get cannot install it here (not root or no apt)"
        if not (
            _run(["apt-get", "install", "-y", "-qq", "chromium"])
            or (_run(["apt-get", "update", "-qq"]) and _run(["apt-get", "install", "-y", "-qq", "chromium"]))
        ):
            return "apt-get could not install chromium"
    if importlib.util.find_spec("playwright") is None:
        if not _run([sys.executable, "-m", "pip", "install", "--quiet", "playwright>=1.40"]):
            return "pip could not install playwright (the browser driver)"
        importlib.invalidate_caches()
    return None
