"""Running one of js/'s jsforce scripts against a served org (tests/server/test_jsforce.py,
tests/server/test_b2b_org.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg

JS = Path(__file__).with_name("js")


def run_script(name: str, node_modules: Path, running: RunningOrg, tls_files: tls.TlsFiles) -> dict:
    """Run one of js/'s scripts against the session's server; it prints what it saw as one JSON object."""
    env = {
        **os.environ,
        "NODE_PATH": str(node_modules),
        "NODE_EXTRA_CA_CERTS": str(tls_files.ca_cert),
        "LOGIN_URL": running.url,
        "HTTP_LOGIN_URL": str(running.http_url),
        "SF_USERNAME": running.username,
        "SF_PASSWORD": running.password + running.security_token,
    }
    result = subprocess.run(["node", str(JS / name)], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
