"""Permission sets and their assignments are written only by users who may (issue 25, problem 4), as
User and Profile are: a Support Agent made itself a permission set with "Set Audit Fields upon
Record Creation", assigned it to itself, then made records as the administrator, dated 2019; it could
also delete the administrator's assignment. And the profiles' own permission sets can be updated at
all (problem 10: REQUIRED_FIELD_MISSING CreatedById for everyone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org
from tests.mock_org.builder import ADMIN

from .conftest import ADMIN_PROFILE
from .test_hostile import AGENT, AGENT_ID, login, session_of

V = "/services/data/v59.0"


@pytest.fixture
def private(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(org_dump, today="2023-05-15", tls_files=tls_files) as served:
        yield served


def test_an_agent_cannot_grant_itself_what_an_administrator_has_not(private: RunningOrg) -> None:
    url = private.url + V
    admin = session_of(private, login(private, private.username))
    agent = session_of(private, login(private, AGENT))

    def refused(answer) -> None:  # type: ignore[no-untyped-def]
        assert answer.status_code == 403 and answer.json()[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY", (
            answer.text
        )

    refused(
        agent.post(
            f"{url}/sobjects/PermissionSet",
            json={"Name": "Audit", "Label": "Audit", "PermissionsCreateAuditFields": True},
        )
    )
    granted = admin.post(
        f"{url}/sobjects/PermissionSet", json={"Name": "Audit", "Label": "Audit", "PermissionsCreateAuditFields": True}
    ).json()["id"]
    refused(agent.patch(f"{url}/sobjects/PermissionSet/{granted}", json={"Label": "Mine"}))
    refused(
        agent.post(f"{url}/sobjects/PermissionSetAssignment", json={"AssigneeId": AGENT_ID, "PermissionSetId": granted})
    )
    composite = agent.post(
        f"{url}/composite/sobjects",
        json={
            "records": [
                {"attributes": {"type": "PermissionSetAssignment"}, "AssigneeId": AGENT_ID, "PermissionSetId": granted}
            ]
        },
    )
    assert composite.json()[0]["errors"][0]["statusCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
    admins = admin.get(
        f"{url}/query", params={"q": f"SELECT Id FROM PermissionSetAssignment WHERE AssigneeId = '{ADMIN}'"}
    )
    refused(agent.delete(f"{url}/sobjects/PermissionSetAssignment/{admins.json()['records'][0]['Id']}"))
    refused(agent.delete(f"{url}/sobjects/PermissionSet/{granted}"))
    forged = agent.post(
        f"{url}/sobjects/Case",
        json={"Subject": "x", "CreatedById": ADMIN, "CreatedDate": "2019-01-01T00:00:00.000+0000"},
    )
    assert forged.status_code == 400 and forged.json()[0]["errorCode"] == "INVALID_FIELD_FOR_INSERT_UPDATE"
    # The administrator still grants and assigns, as the real-org recipe does (docs/real-org-lane.md).
    assigned = admin.post(
        f"{url}/sobjects/PermissionSetAssignment", json={"AssigneeId": ADMIN, "PermissionSetId": granted}
    )
    assert assigned.status_code == 201, assigned.text


def test_the_profiles_permission_sets_can_be_updated(private: RunningOrg) -> None:
    admin = session_of(private, login(private, private.username))
    url = private.url + V
    owned = admin.get(
        f"{url}/query", params={"q": f"SELECT Id, CreatedById FROM PermissionSet WHERE ProfileId = '{ADMIN_PROFILE}'"}
    )
    record = owned.json()["records"][0]
    assert record["CreatedById"] is not None
    answer = admin.patch(f"{url}/sobjects/PermissionSet/{record['Id']}", json={"Description": "Everything"})
    assert answer.status_code == 204, answer.text
    assert admin.get(f"{url}/sobjects/PermissionSet/{record['Id']}").json()["Description"] == "Everything"
