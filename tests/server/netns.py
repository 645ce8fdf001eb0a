"""Running a driver script in a private network namespace: ``unshare --net --mount`` gives it a loopback of
its own (port 443 free, nothing outside reachable) and, when ``hosts`` is given, a hosts file of the test's
own bind-mounted over the namespace's view of /etc/hosts. The machine's hosts file is never edited. Needs
root (or the user namespaces unshare asks for) and iproute2; the test is skipped where they are missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def require() -> None:
    """Skip the test, saying why, where no private network namespace can be made (call it before installing)."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare and ip (util-linux, iproute2) are needed for a private network namespace")
    probe = subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no private network namespace here: {probe.stderr.strip()}")


def run_inside(
    script: Path, env: dict[str, str], scratch: Path, *, hosts: tuple[str, ...] = (), timeout: int = 900
) -> dict:
    """What ``script`` printed (one JSON object), run by this Python in a fresh namespace where ``hosts``
    name 127.0.0.1."""
    require()
    steps = ["ip link set lo up"]
    if hosts:
        hosts_file = scratch / "hosts"
        hosts_file.write_text(f"127.0.0.1 localhost {' '.join(hosts)}\n")
        steps.append(f'mount --bind "{hosts_file}" /etc/hosts')
    steps.append(f'exec "{sys.executable}" "{script}"')
    result = subprocess.run(
        ["unshare", "--net", "--mount", "sh", "-c", " && ".join(steps)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)
