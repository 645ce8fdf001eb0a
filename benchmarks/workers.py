"""Throughput with one worker and with several: ``python -m benchmarks.workers [--rounds 5] [--seconds 5]``.

Starts ``crmarena serve --copy`` twice over the default org, once with ``--workers 1`` and once with
``--workers 2`` (both idle between their turns), and measures a 1-row query from 16 kept-alive
HTTPS connections with ``wrk`` (Debian's ``apt-get install wrk``): a load generator in C, so that
the client does not eat the cores it measures (its CPU time is reported beside each figure). The
rounds alternate between the sides, so a shared machine's load falls on both alike; the medians
and the ratio of each round's pair are printed.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import requests

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET

ROOT = Path(__file__).resolve().parents[1]
QUERY = "/services/data/v59.0/query?q=SELECT+Id,+Name+FROM+Account+LIMIT+1"
CLIENTS = 16
_PORT = re.compile(r"Mock Salesforce org on https://127\.0\.0\.1:(\d+)")


class Served:
    """One ``crmarena serve`` with its port, CA bundle and an administrator's access token."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        command = [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "serve",
            "--copy",
            "--port",
            "0",
            "--workers",
            str(workers),
        ]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        exports: dict[str, str] = {}
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if match := _PORT.search(line):
                self.port = int(match.group(1))
            if line.startswith("export "):
                name, _, value = line[7:].strip().partition("=")
                exports[name] = value.strip("'")
            if line.startswith("Ctrl-C"):
                break
        else:
            raise SystemExit(f"serve --workers {workers} did not start")
        answer = requests.post(
            f"https://127.0.0.1:{self.port}/services/oauth2/token",
            verify=exports["REQUESTS_CA_BUNDLE"],
            timeout=60,
            data={
                "grant_type": "password",
                "client_id": DEFAULT_CLIENT_ID,
                "client_secret": DEFAULT_CLIENT_SECRET,
                "username": exports["CRMARENA_USERNAME"],
                "password": exports["CRMARENA_PASSWORD"],
            },
        )
        answer.raise_for_status()
        self.token = answer.json()["access_token"]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)


def measure(served: Served, seconds: float) -> tuple[float, float]:
    """Requests per second over ``seconds``, and the CPU time wrk itself used per request (µs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{CLIENTS}",
            f"-d{seconds:g}s",
            "-H",
            f"Authorization: Bearer {served.token}",
            f"https://127.0.0.1:{served.port}{QUERY}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "Non-2xx" in result.stdout or "Socket errors" in result.stdout:
        raise SystemExit(f"wrk saw failures against {served.workers} worker(s):\n{result.stdout}")
    total = int(re.search(r"(\d+) requests in", result.stdout).group(1))  # type: ignore[union-attr]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return total / seconds, 1e6 * cpu / max(total, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("this benchmark needs wrk (apt-get install wrk)")
    sides = [Served(1), Served(2)]
    try:
        for served in sides:
            measure(served, 1.0)  # warm: plans compiled, connections' first handshakes done
        rates: dict[int, list[float]] = {1: [], 2: []}
        costs: dict[int, list[float]] = {1: [], 2: []}
        ratios = []
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {CLIENTS} clients, 1-row query")
        for round_number in range(args.rounds):
            order = sides if round_number % 2 == 0 else sides[::-1]
            for served in order:
                rate, cost = measure(served, args.seconds)
                rates[served.workers].append(rate)
                costs[served.workers].append(cost)
            ratios.append(rates[2][-1] / rates[1][-1])
            print(
                f"round {round_number + 1}: 1 worker {rates[1][-1]:7.0f} req/s, 2 workers {rates[2][-1]:7.0f} "
                f"req/s, ratio {ratios[-1]:.2f}",
                flush=True,
            )
            time.sleep(0.5)
        for workers in (1, 2):
            print(
                f"--workers {workers}: median {statistics.median(rates[workers]):7.0f} req/s "
                f"(wrk's own CPU {statistics.median(costs[workers]):.0f} µs per request)"
            )
        print(
            f"ratio of medians {statistics.median(rates[2]) / statistics.median(rates[1]):.2f}, "
            f"median of round ratios {statistics.median(ratios):.2f}; load average now {os.getloadavg()[0]:.1f}"
        )
    finally:
        for served in sides:
            served.stop()


if __name__ == "__main__":
    main()
