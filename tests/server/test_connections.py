"""Which connections the front sheds when there is no room (mock_org/server/http/connections.py), without
sockets: caps in total and per address, the reserve for sessions, and the order of shedding."""

from __future__ import annotations

import time

from mock_org.server.http.connections import Entry, Phase, Registry
from mock_org.server.limits import ServerLimits


class Fleet:
    """A registry and the connections it shed."""

    def __init__(self, **limits: float) -> None:
        self.registry = Registry(ServerLimits(**{"shed_after_seconds": 0.0, **limits}))  # type: ignore[arg-type]
        self.shed: list[str] = []

    def connect(
        self, name: str, address: str = "10.0.0.1", phase: Phase = Phase.NEW, authenticated: bool = False
    ) -> Entry | None:
        entry = self.registry.admit(address, lambda: self.shed.append(name))
        if entry is not None and (phase != Phase.NEW or authenticated):
            self.registry.enter(entry, phase, authenticated=authenticated)
        time.sleep(0.001)  # distinct times: the longest waiting goes first
        return entry


def test_the_longest_waiting_connection_without_a_session_makes_room() -> None:
    fleet = Fleet(max_connections=3, authenticated_reserve=0)
    fleet.connect("idle-with-session", phase=Phase.IDLE_AUTHENTICATED, authenticated=True)
    fleet.connect("silent")
    fleet.connect("trickling", phase=Phase.READING)
    assert fleet.connect("newcomer") is not None and fleet.shed == ["silent"]
    assert fleet.connect("second") is not None and fleet.shed == ["silent", "trickling"]
    assert fleet.connect("third") is not None and fleet.shed == ["silent", "trickling", "newcomer"]


def test_connections_at_work_are_never_shed() -> None:
    fleet = Fleet(max_connections=2, authenticated_reserve=0)
    fleet.connect("running", phase=Phase.BUSY, authenticated=True)
    fleet.connect("uploading", phase=Phase.BUSY, authenticated=True)
    assert fleet.connect("newcomer") is None and fleet.shed == []


def test_idle_connections_with_a_session_go_only_when_nothing_else_can() -> None:
    fleet = Fleet(max_connections=2, authenticated_reserve=0)
    fleet.connect("kept-alive", phase=Phase.IDLE_AUTHENTICATED, authenticated=True)
    fleet.connect("running", phase=Phase.BUSY, authenticated=True)
    assert fleet.connect("newcomer") is not None and fleet.shed == ["kept-alive"]


def test_an_address_over_its_cap_sheds_its_own_and_the_heaviest_address_pays_first() -> None:
    fleet = Fleet(max_connections=5, max_connections_per_client=3, authenticated_reserve=0)
    for index in range(3):
        fleet.connect(f"attacker-{index}", address="10.0.0.66")
    fleet.connect("client", address="10.0.0.1")
    assert fleet.connect("attacker-3", address="10.0.0.66") is not None and fleet.shed == ["attacker-0"]
    fleet.connect("second-client", address="10.0.0.2")
    assert fleet.connect("third-client", address="10.0.0.3") is not None
    assert fleet.shed == ["attacker-0", "attacker-1"]  # not "client", which waited longer: its address holds one


def test_connections_without_a_session_leave_the_reserve_free() -> None:
    fleet = Fleet(max_connections=4, authenticated_reserve=2)
    fleet.connect("a")
    fleet.connect("b")
    assert fleet.connect("c") is not None and fleet.shed == ["a"]  # two without a session at most
    with_session = fleet.connect("d")  # counted without a session until its request shows one
    assert with_session is not None and fleet.shed == ["a", "b"]
    fleet.registry.enter(with_session, Phase.BUSY, authenticated=True)
    assert fleet.connect("e") is not None and fleet.shed == ["a", "b"]  # room: one without a session
    assert fleet.connect("f") is not None and fleet.shed == ["a", "b", "c"]
    assert fleet.registry.open_count() == 3  # "d", "e", "f": the reserve keeps a place for sessions


def test_a_connection_that_has_just_arrived_is_not_shed_for_the_next() -> None:
    """Within ``shed_after_seconds`` of its last step a connection stays (a newcomer in its handshake);
    with nobody else to shed, the next newcomer is closed at the door."""
    fleet = Fleet(max_connections=1, authenticated_reserve=0, shed_after_seconds=60)
    assert fleet.connect("first") is not None
    assert fleet.connect("second") is None and fleet.shed == []


def test_a_quieter_address_gets_in_even_past_fresh_connections_of_a_greedy_one() -> None:
    fleet = Fleet(max_connections=3, authenticated_reserve=0, shed_after_seconds=60)
    for index in range(3):
        fleet.connect(f"greedy-{index}", address="10.0.0.66")
    assert fleet.connect("greedy-3", address="10.0.0.66") is None  # its own are all fresh
    assert fleet.connect("client", address="10.0.0.1") is not None and fleet.shed == ["greedy-0"]
