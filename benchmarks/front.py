"""The HTTP front under load and under hostile clients: ``python -m benchmarks.front``.

Serves a private copy of the default org and measures, over HTTPS on kept-alive connections:
one client's cheap-query latency (median and p99 of 300), the throughput of 8 concurrent clients
over 5 seconds, and the cheap-query latency while 24 clients trickle request headers on the HTTP
port and 4 open TLS connections and stay silent. Rounds alternate so that a shared machine's load
falls on every figure alike; the best round is reported.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from fixtures import default_org
from mock_org.server.serve import RunningOrg, serve_org

CHEAP = "SELECT Id, Name FROM Account LIMIT 5"
V = "/services/data/v59.0"


def _session(running: RunningOrg, token: str) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.verify = str(running.ca_bundle)
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def _latencies(running: RunningOrg, token: str, count: int) -> list[float]:
    session = _session(running, token)
    found = []
    for _ in range(count):
        started = time.perf_counter()
        answer = session.get(f"{running.url}{V}/query", params={"q": CHEAP}, timeout=30)
        found.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
    return found


def _throughput(running: RunningOrg, token: str, clients: int, seconds: float) -> float:
    stop = time.monotonic() + seconds

    def work() -> int:
        session, done = _session(running, token), 0
        while time.monotonic() < stop:
            assert session.get(f"{running.url}{V}/query", params={"q": CHEAP}, timeout=30).status_code == 200
            done += 1
        return done

    with ThreadPoolExecutor(clients) as pool:
        return sum(pool.map(lambda _: work(), range(clients))) / seconds


def _under_attack(running: RunningOrg, token: str) -> float:
    """The worst of 10 cheap queries while 24 slow and 4 silent clients hold connections (inf: no answer)."""
    slow = [socket.create_connection(("127.0.0.1", running.server.http_port)) for _ in range(24)]
    silent = [socket.create_connection(("127.0.0.1", running.server.port)) for _ in range(4)]
    worst = 0.0
    try:
        for sock in slow:
            sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\n")
        session = _session(running, token)
        for _ in range(10):
            for sock in slow:
                sock.sendall(b"X-Slow: 1\r\n")
            started = time.perf_counter()
            try:
                session.get(f"{running.url}{V}/query", params={"q": CHEAP}, timeout=10)
                worst = max(worst, time.perf_counter() - started)
            except requests.RequestException:
                return float("inf")
            time.sleep(0.2)
    finally:
        for sock in slow + silent:
            sock.close()
    return worst


def main(rounds: int = 3) -> None:
    with serve_org(default_org(), http_port=0) as running:
        token = running.connect().session_id
        _latencies(running, token, 20)  # warm up
        medians, p99s, rates, attacked = [], [], [], []
        for _ in range(rounds):
            found = sorted(_latencies(running, token, 300))
            medians.append(statistics.median(found))
            p99s.append(found[int(len(found) * 0.99) - 1])
            rates.append(_throughput(running, token, 8, 5.0))
            attacked.append(_under_attack(running, token))
        print(f"front: {type(running.server).__module__}  threads alive: {threading.active_count()}")
        print(f"cheap query, 1 client: median {min(medians) * 1000:.2f} ms, p99 {min(p99s) * 1000:.2f} ms")
        print(f"8 clients: {max(rates):.0f} queries/s")
        print(f"under 24 slow + 4 silent clients: worst cheap query {min(attacked) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
