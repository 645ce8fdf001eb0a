"""The first query of a fresh server: ``python -m benchmarks.cold_start``.

A new container is a fresh process with, at worst, no cache at all. For each round this starts
``crmarena serve`` in a process of its own on a prepared copy of the default org — alternately
with an empty cache and temporary directory (``CRMARENA_CACHE_DIR``, ``TMPDIR``: a container whose
image holds no parser cache) and with the directories a previous start left (an image built with
the cache, or the second start on one machine) — logs in with simple-salesforce, and times the
first ``query_all`` (a tool-shaped text), then ten more new texts of the same shape. It prints,
per case, the median over rounds of the first query, of the later ones (their median), and of the
time from starting the process to its listening. ``--baseline TREE`` alternates every start with
one of another checkout (``git archive main | tar -x -C /tmp/main``): before and after in one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

from simple_salesforce import Salesforce

from benchmarks.floor import shapes
from benchmarks.roundtrip import start_server
from fixtures import default_org
from mock_org.copies import prepared_copy

LATER = 10


def one_start(path: Path, scratch: Path, home: Path, tree: Path | None = None) -> tuple[float, float, float]:
    """(seconds to listening, first query, median of the later ones) of one fresh server whose
    cache and temporary directories are under ``home`` (run from the checkout ``tree`` if given)."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CRMARENA_CACHE_DIR": str(home / "cache"), "TMPDIR": str(home / "tmp")}
    started = time.perf_counter()
    process, port, exports = start_server(path, scratch / "tls", env, tree)
    listening = time.perf_counter() - started
    try:
        os.environ["REQUESTS_CA_BUNDLE"] = exports["REQUESTS_CA_BUNDLE"]
        sf = Salesforce(
            username=exports["CRMARENA_USERNAME"],
            password=exports["CRMARENA_PASSWORD"],
            security_token=exports["CRMARENA_SECURITY_TOKEN"],
            domain=f"127.0.0.1:{port}/login",
        )
        shape = shapes(path)[0]
        times = []
        for number in range(1 + LATER):
            text = shape.fresh(number)
            began = time.perf_counter()
            sf.query_all(text)
            times.append(time.perf_counter() - began)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    return listening, times[0], statistics.median(times[1:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="server starts per case (default 3)")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="TREE",
        help="also start servers from this checkout of the project (say, an export of main), alternating with ours",
    )
    args = parser.parse_args(argv)

    trees: dict[str, Path | None] = {"ours": None, **({"base": args.baseline} if args.baseline else {})}
    found: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        path = prepared_copy(default_org(), scratch / "org.db")
        kept = scratch / "kept"
        for tree in trees.values():
            one_start(path, scratch, kept, tree)  # leaves the caches a later "cache" start finds
        for number in range(args.rounds):
            for name, tree in trees.items():
                empty = scratch / f"empty-{name}-{number}"
                found.setdefault((name, "no cache"), []).append(one_start(path, scratch, empty, tree))
                shutil.rmtree(empty)
                found.setdefault((name, "cache"), []).append(one_start(path, scratch, kept, tree))

    print(f"{args.rounds} server starts per case, alternating; medians; times in ms but listening")
    print(
        f"{'server':6} {'case':9} {'listening (s)':>13} {'first query':>11} {'later queries':>13} {'first − later':>13}"
    )
    for (name, case), starts in sorted(found.items(), key=lambda item: (item[0][1], item[0][0] != "ours")):
        listening, first, later = (statistics.median(column) for column in zip(*starts, strict=True))
        print(
            f"{name:6} {case:9} {listening:13.2f} {first * 1e3:11.1f} {later * 1e3:13.1f} {(first - later) * 1e3:13.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
