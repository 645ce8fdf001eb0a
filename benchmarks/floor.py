"""Our server against the client's own floor: ``python -m benchmarks.floor``.

The same queries go through unmodified simple-salesforce (``Salesforce.query_all``, HTTPS, one
kept-alive connection per side) to two servers, each in a process of its own:

* ours: ``crmarena serve`` on a private copy of the default org;
* the floor: a minimal TLS server (the same TLS settings as our front) that answers each URL with
  the exact bytes ours sent for it (status, headers, body), looked up in a dict — the least any
  server can cost this client.

Query shapes are the CRMArena tools' (eval_suite/tools/): a small lookup (a contact's account), an
IN list of 60 Account Ids (get_shipping_state), and ~1,000 cases of a period (get_cases). Each runs
warm (one text repeated) and cold (a new text every call: the same shape with fresh Ids or literals,
as tool calls make them). A cold text is sent to ours first — that call's answer is what the floor
then replays — so the two sides alternate call by call. Medians, and the ratio ours/floor against
the goals (≤ 1.5× warm, ≤ 2× cold, issue 14). ``--baseline TREE`` adds a server run from another
checkout (``git archive main | tar -x -C /tmp/main``), timed in the same rounds: before and after
in one run; its answers must be byte-identical to ours.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import socket
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from multiprocessing.connection import Connection
from pathlib import Path

import requests
from simple_salesforce import Salesforce

from benchmarks.roundtrip import start_server
from fixtures import default_org
from mock_org.copies import prepared_copy
from mock_org.server.http.front import tls_context

GOALS = {"warm": 1.5, "cold": 2.0}
CASE_FIELDS = "Id, OwnerId, CreatedDate, ClosedDate, Status, AccountId, IssueId__c, OrderItemId__c"
PERIOD_END = "2024-05-01T00:00:00Z"  # ~994 of the default org's 1,000 cases were created before


@dataclass
class Shape:
    """One tool-call shape: its warm text and a source of fresh texts of the same shape."""

    label: str
    warm: str
    fresh: Callable[[int], str]  # call number → a text not sent before


def shapes(path: Path, seed: int = 14) -> list[Shape]:
    raw = sqlite3.connect(path)
    contacts = [row[0] for row in raw.execute("SELECT Id FROM Contact ORDER BY Id")]
    accounts = [row[0] for row in raw.execute("SELECT Id FROM Account ORDER BY Id")]
    raw.close()
    pick = random.Random(seed)

    def contact_of(number: int) -> str:
        return f"SELECT AccountId FROM Contact WHERE Id = '{contacts[(number + 1) % len(contacts)]}'"

    def shipping_states(number: int) -> str:
        chosen = pick.sample(accounts, 60) if number >= 0 else accounts[:60]
        return f"SELECT Id, ShippingState FROM Account WHERE Id IN ({', '.join(repr(i) for i in chosen)})"

    def period(number: int) -> str:
        # Every start before the first case selects the same rows; each call gets its own second.
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1577836800 + 37 * (number + 1)))
        return f"SELECT {CASE_FIELDS} FROM Case WHERE CreatedDate >= {start} AND CreatedDate < {PERIOD_END}"

    return [
        Shape("contact's account (1 row)", contact_of(-1), contact_of),
        Shape("IN list of 60 Account Ids", shipping_states(-1), shipping_states),
        Shape("cases of a period (~1,000 rows)", period(-1), period),
    ]


def floor_server(certfile: str, keyfile: str, control: Connection) -> None:
    """The floor, run in a process of its own: TLS as our front sets it up, then per request one
    dict lookup and one sendall. ``control`` brings (target, response bytes) pairs and takes the port."""
    context = tls_context(certfile, keyfile)
    answers: dict[bytes, bytes] = {}
    listener = socket.create_server(("127.0.0.1", 0))
    control.send(listener.getsockname()[1])

    def learn() -> None:
        while True:
            try:
                target, answer = control.recv()
            except EOFError:
                os._exit(0)
            answers[target] = answer
            control.send(True)

    def serve(connection: socket.socket) -> None:
        with context.wrap_socket(connection, server_side=True) as tls:
            pending = b""
            while True:
                while b"\r\n\r\n" not in pending:
                    chunk = tls.recv(65536)
                    if not chunk:
                        return
                    pending += chunk
                head, _, pending = pending.partition(b"\r\n\r\n")
                target = head.split(b" ", 2)[1]
                tls.sendall(answers.get(target, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))

    threading.Thread(target=learn, daemon=True).start()
    while True:
        connection, _ = listener.accept()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


def wire_bytes(response: requests.Response) -> bytes:
    """The response as our server put it on the wire (it neither chunks nor compresses)."""
    status = HTTPStatus(response.status_code)
    lines = [f"HTTP/1.1 {status.value} {status.phrase}"] + [f"{k}: {v}" for k, v in response.headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + response.content


class Floor:
    """The floor server's process, taught an answer before each call that needs it."""

    def __init__(self, certfile: Path, keyfile: Path) -> None:
        self._control, child = multiprocessing.get_context("spawn").Pipe()
        self.process = multiprocessing.get_context("spawn").Process(
            target=floor_server, args=(str(certfile), str(keyfile), child), daemon=True
        )
        self.process.start()
        self.port: int = self._control.recv()

    def learn(self, response: requests.Response) -> None:
        self._control.send((response.request.path_url.encode("latin-1"), wire_bytes(response)))
        self._control.recv()

    def stop(self) -> None:
        self._control.close()
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()


def cpu_seconds(pid: int) -> float:
    """The user and system CPU a process has used (Linux /proc; 0 elsewhere): on a shared machine the
    servers' CPU per call is steadier than their wall time."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def login(port: int, exports: dict[str, str]) -> Salesforce:
    return Salesforce(
        username=exports["CRMARENA_USERNAME"],
        password=exports["CRMARENA_PASSWORD"],
        security_token=exports["CRMARENA_SECURITY_TOKEN"],
        domain=f"127.0.0.1:{port}/login",
    )


def measure(
    servers: list[Salesforce], pids: list[int], floor_sf: Salesforce, floor: Floor, shape: Shape, rounds: int
) -> dict:
    """{warm|cold: (rows, median per server, floor median, CPU per call of each server process and of
    the floor's)}, all sides alternating call by call; the floor replays what the first server
    answered, and every server must answer the same body."""
    answers: list[list[requests.Response]] = [[] for _ in servers]
    for sf, found in zip(servers, answers, strict=True):
        sf.session.hooks["response"].append(lambda response, found=found, **_: found.append(response))
    try:
        rows = servers[0].query_all(shape.warm)["totalSize"]
        floor.learn(answers[0][-1])
        if floor_sf.query_all(shape.warm) != servers[0].query_all(shape.warm):
            raise RuntimeError(f"the floor does not replay {shape.label!r}")
        results: dict[str, tuple] = {}
        for mode in ("warm", "cold"):
            times: list[list[float]] = [[] for _ in servers]
            least = []
            cpu = [cpu_seconds(pid) for pid in pids]
            for number in range(rounds):
                text = shape.warm if mode == "warm" else shape.fresh(number)
                for sf, found in zip(servers, times, strict=True):
                    found.append(timed(lambda sf=sf, text=text: sf.query_all(text)))
                if len({found[-1].content for found in answers}) != 1:
                    raise RuntimeError(f"the servers answer {text!r} differently")
                if mode == "cold":
                    floor.learn(answers[0][-1])
                least.append(timed(lambda text=text: floor_sf.query_all(text)))
            cpu = [(cpu_seconds(pid) - before) / rounds for pid, before in zip(pids, cpu, strict=True)]
            results[mode] = (rows, [statistics.median(found) for found in times], statistics.median(least), cpu)
        return results
    finally:
        for sf in servers:
            sf.session.hooks["response"].clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="timed calls per side, query and mode (default 200)")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="TREE",
        help="also serve from this checkout of the project (say, an export of main), measured "
        "in the same rounds, and check it answers the same bytes",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        path = prepared_copy(default_org(), Path(scratch) / "org.db")
        tls_dir = Path(scratch) / "tls"
        processes = [start_server(path, tls_dir)]
        if args.baseline:
            processes.append(start_server(path, tls_dir, tree=args.baseline))
        floor = Floor(tls_dir / "server.pem", tls_dir / "server-key.pem")
        try:
            os.environ["REQUESTS_CA_BUNDLE"] = processes[0][2]["REQUESTS_CA_BUNDLE"]
            servers = [login(port, exports) for _, port, exports in processes]
            floor_sf = Salesforce(instance_url=f"https://127.0.0.1:{floor.port}", session_id=servers[0].session_id)
            pids = [process.pid for process, _, _ in processes] + [floor.process.pid or 0]
            results = [(shape, measure(servers, pids, floor_sf, floor, shape, args.rounds)) for shape in shapes(path)]
        finally:
            floor.stop()
            for process, _, _ in processes:
                process.send_signal(signal.SIGINT)
                process.wait(timeout=30)

    print(
        f"{args.rounds} calls per side, query and mode, sides alternating; medians in ms; "
        "simple-salesforce query_all over HTTPS on loopback"
    )
    base = f" {'base':>7} {'base/floor':>10}" if args.baseline else ""
    print(f"{'query':32} {'mode':4} {'rows':>5} {'ours':>7} {'floor':>7} {'ours/floor':>10} {'goal':>5}{base}")
    for shape, found in results:
        for mode, (rows, medians, least, _) in found.items():
            ratio = medians[0] / least
            verdict = "met" if ratio <= GOALS[mode] else "MISSED"
            extra = f" {medians[1] * 1e3:7.2f} {medians[1] / least:9.2f}×" if args.baseline else ""
            print(
                f"{shape.label:32} {mode:4} {rows:5d} {medians[0] * 1e3:7.2f} {least * 1e3:7.2f} {ratio:9.2f}× "
                f"≤{GOALS[mode]}× {verdict:6}{extra}"
            )
    print("server process CPU per call, ms (mean over the calls; the floor's includes learning cold answers)")
    print(f"{'query':32} {'mode':4} {'ours':>7} {'floor':>7}" + (f" {'base':>7}" if args.baseline else ""))
    for shape, found in results:
        for mode, (_, _, _, cpu) in found.items():
            extra = f" {cpu[1] * 1e3:7.2f}" if args.baseline else ""
            print(f"{shape.label:32} {mode:4} {cpu[0] * 1e3:7.2f} {cpu[-1] * 1e3:7.2f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
