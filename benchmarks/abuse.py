"""Other clients' latency and the server's memory under each abuse of issue 25, at full size:
``python -m benchmarks.abuse --before DIR`` (DIR: a checkout to compare with, e.g. ``git worktree add
--detach /tmp/before 89bdcea``; without it only this tree is measured).

For each tree and each abuse, a fresh ``crmarena serve --copy`` of the default org runs in a process of
its own (the limits at their defaults); a client with a session runs cheap queries one after another
on a kept-alive HTTPS connection (the probe: each answer's time, a failure or a 10 s timeout counted as
10 s), and every half second a new client connects over TLS and asks ``GET /services/data`` (its time,
10 s if it gets no answer). Each abuse runs for ``--seconds`` after the probe's own baseline; the table
gives the probe's median, 95th percentile and worst, failures, the worst newcomer, and the server's
resident memory (VmRSS) at the end and its peak (VmHWM). Loopback only; attackers come from 127.0.0.2
and up, the probe from 127.0.0.1.

The abuses: 1,000 unauthenticated sockets that promise a body and send a byte of it every 20 s (they
reconnect when dropped); 1,000 sockets that connect, say nothing and reconnect when closed; 48 Bulk API
2.0 query jobs by a non-admin in 40 s; six clients sending heads of 209,000 repeated header lines (1 MB)
one after another; four Bulk API 2.0 uploads of 140 MB at once; sixteen clients that each pipeline
1,000 requests and never read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.abusers import (
    Probe,
    ServedProcess,
    V,
    big_heads,
    idle_reconnect,
    pipeline_without_reading,
    serve_process,
    tls_socket,
    trickle_bodies,
    upload,
)

HERE = Path(__file__).resolve().parents[1]
Attack = Callable[[ServedProcess, threading.Event], Any]
BULK_QUERY = "SELECT Id, Subject, TextBody, FromAddress, ToAddress, MessageDate, ParentId FROM EmailMessage"


def _spread(count: int, attack: Callable[[int, str], Any], first: int = 2) -> list[threading.Thread]:
    """``count`` attacker sockets spread over loopback addresses, 250 from each."""
    threads, address = [], first
    while count > 0:
        take = min(250, count)
        threads.append(threading.Thread(target=attack, args=(take, f"127.0.0.{address}"), daemon=True))
        count, address = count - take, address + 1
    return threads


def trickling(served: ServedProcess, stop: threading.Event) -> Any:
    threads = _spread(1000, lambda count, source: trickle_bodies(served.http_port, count, stop, source=source))
    return _run(threads)


def idle(served: ServedProcess, stop: threading.Event) -> Any:
    threads = _spread(1000, lambda count, source: idle_reconnect(served.port, count, stop, source=source))
    return _run(threads)


def heads(served: ServedProcess, stop: threading.Event) -> Any:
    return _run(
        [
            threading.Thread(
                target=big_heads, args=(served.http_port, stop), kwargs={"source": f"127.0.0.{2 + i}"}, daemon=True
            )
            for i in range(6)
        ]
    )


def pipelines(served: ServedProcess, stop: threading.Event) -> Any:
    return _run(
        [
            threading.Thread(
                target=pipeline_without_reading,
                args=(served.http_port, stop),
                kwargs={"source": f"127.0.0.{2 + i}"},
                daemon=True,
            )
            for i in range(16)
        ]
    )


def bulk_queries(served: ServedProcess, stop: threading.Event) -> Any:
    admin = served.session()
    found = admin.get(
        f"{served.url}{V}/query",
        params={
            "q": "SELECT Username FROM User WHERE IsActive = true AND Profile.Name != 'System Administrator' LIMIT 1"
        },
    )
    from mock_org.auth import default_password, default_security_token

    username = found.json()["records"][0]["Username"]
    agent = served.session(username, default_password(username) + default_security_token(username))
    made = 0
    started = time.monotonic()
    while made < 48 and not stop.is_set():
        answer = agent.post(f"{served.url}{V}/jobs/query", json={"query": BULK_QUERY}, timeout=120)
        made += answer.status_code == 200
        stop.wait(max(0.0, started + 40 * made / 48 - time.monotonic()))
    return {"jobs": made}


def uploads(served: ServedProcess, stop: threading.Event) -> Any:
    times: list[float] = []
    threads = [
        threading.Thread(target=lambda: times.append(upload(served, served.session(), 140)), daemon=True)
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(900)
    return {"uploads": len(times), "seconds": [round(seconds, 1) for seconds in times]}


def _run(threads: list[threading.Thread]) -> Any:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"attackers": len(threads)}


ABUSES: dict[str, Attack] = {
    "1,000 trickling bodies": trickling,
    "1,000 idle reconnecting": idle,
    "48 bulk query jobs": bulk_queries,
    "6 x 1 MB heads": heads,
    "4 x 140 MB uploads": uploads,
    "16 x 1,000 pipelined, unread": pipelines,
}


def _newcomers(served: ServedProcess, stop: threading.Event, found: list[float]) -> None:
    while not stop.wait(0.5):
        started = time.monotonic()
        try:
            with tls_socket(served.port, served.ca_bundle) as sock:
                sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                ok = sock.recv(12).startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        found.append(time.monotonic() - started if ok else 10.0)


def measure(tree: Path, db: Path, tls_dir: Path, abuse: Attack, seconds: float) -> dict[str, Any]:
    with serve_process(tree, db, tls_dir) as served:
        baseline = Probe(served.session(), served.url)
        stop = threading.Event()
        threading.Timer(3.0, stop.set).start()
        baseline.run(stop)
        rss_before, _ = served.memory_mb()
        stop = threading.Event()
        probe = Probe(served.session(), served.url)
        newcomers: list[float] = []
        report: dict[str, Any] = {}
        attacker = threading.Thread(target=lambda: report.update(attack=abuse(served, stop)), daemon=True)
        attacker.start()
        time.sleep(2.0)
        helpers = [
            threading.Thread(target=probe.run, args=(stop,), daemon=True),
            threading.Thread(target=_newcomers, args=(served, stop, newcomers), daemon=True),
        ]
        for helper in helpers:
            helper.start()
        time.sleep(seconds)
        stop.set()  # the endless attacks stop; a finite one (jobs, uploads) runs to its end
        for thread in [attacker, *helpers]:
            thread.join(900)
        rss, peak = served.memory_mb()
    return {
        "baseline_p50_ms": round(baseline.summary()["p50_ms"], 1),
        **{key: round(value, 1) for key, value in probe.summary().items()},
        "newcomer_max_s": round(max(newcomers, default=0.0), 2),
        "newcomer_median_s": round(statistics.median(newcomers), 3) if newcomers else None,
        "rss_before_mb": round(rss_before),
        "rss_mb": round(rss),
        "rss_peak_mb": round(peak),
        **report,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--before", type=Path, help="a checkout of an earlier commit to measure too")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each abuse runs (default 30)")
    parser.add_argument("--only", action="append", default=[], help="abuses whose name contains this (repeatable)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    from fixtures.default import default_org
    from mock_org.server.http import tls

    trees = {"before": args.before, "after": HERE} if args.before else {"after": HERE}
    chosen = {
        name: attack for name, attack in ABUSES.items() if not args.only or any(word in name for word in args.only)
    }
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="crmarena-abuse-") as scratch:
        tls_dir = tls.ensure(Path(scratch) / "tls").directory
        for name, attack in chosen.items():
            for label, tree in trees.items():
                figures = measure(tree, default_org(), tls_dir, attack, args.seconds)
                results.setdefault(name, {})[label] = figures
                print(
                    f"{name:32} {label:6} probe p50 {figures['p50_ms']:8.1f} ms  p95 {figures['p95_ms']:8.1f} ms  "
                    f"max {figures['max_ms']:8.1f} ms  failures {figures['failures']:3}  newcomer max "
                    f"{figures['newcomer_max_s']:5.2f} s  RSS {figures['rss_before_mb']} -> {figures['rss_mb']} MB "
                    f"(peak {figures['rss_peak_mb']} MB)",
                    flush=True,
                )
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
