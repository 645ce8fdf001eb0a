"""Raw HTTP, in-process and over HTTPS: the platform's objects (EntityDefinition, FieldDefinition, PermissionSet,
PermissionSetAssignment) on the REST and Tooling query APIs, and person accounts with their person contacts."""

from __future__ import annotations

from tests.mock_org.conftest import ACCOUNTS, CONTACTS

from .conftest import ADMIN_PROFILE, Client, assert_error

V = "/services/data/v59.0"


def _query(client: Client, soql: str, resource: str = "query") -> dict:
    answer = client.get(f"{V}/{resource}", params={"q": soql})
    assert answer.status == 200, answer.text
    return answer.json()


def test_entity_and_field_definitions_on_both_query_apis(client: Client) -> None:
    soql = "SELECT QualifiedApiName, Label, KeyPrefix FROM EntityDefinition WHERE QualifiedApiName IN ('Case', 'Issue__c') ORDER BY QualifiedApiName"
    for resource in ("query", "tooling/query"):
        rows = _query(client, soql, resource)["records"]
        assert [(row["QualifiedApiName"], row["KeyPrefix"]) for row in rows] == [("Case", "500"), ("Issue__c", "a1M")]
        assert rows[0]["attributes"]["url"] == f"{V}/sobjects/EntityDefinition/Case"
    fields = _query(
        client,
        "SELECT QualifiedApiName, DataType, IsNillable FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = 'Contact' AND QualifiedApiName IN ('AccountId', 'IsPersonAccount') ORDER BY QualifiedApiName",
        "tooling/query",
    )["records"]
    assert [(row["QualifiedApiName"], row["DataType"]) for row in fields] == [
        ("AccountId", "Lookup(Account)"),
        ("IsPersonAccount", "Checkbox"),
    ]
    nested = _query(
        client,
        "SELECT QualifiedApiName, (SELECT QualifiedApiName FROM Fields WHERE QualifiedApiName = 'Name') FROM EntityDefinition WHERE QualifiedApiName = 'Account'",
    )
    assert nested["records"][0]["Fields"]["records"][0]["QualifiedApiName"] == "Name"


def test_the_tooling_api_serves_only_its_objects(client: Client) -> None:
    error = assert_error(client.get(f"{V}/tooling/query", params={"q": "SELECT Id FROM Account"}), 400, "INVALID_TYPE")
    assert error["message"].startswith("sObject type 'Account' is not supported.")
    names = {entry["name"] for entry in client.get(f"{V}/tooling/sobjects").json()["sobjects"]}
    assert {"EntityDefinition", "FieldDefinition", "PermissionSet", "User"} <= names and "Account" not in names
    described = client.get(f"{V}/tooling/sobjects/FieldDefinition/describe").json()
    assert "EntityDefinitionId" in {field["name"] for field in described["fields"]}
    assert_error(client.get(f"{V}/tooling/sobjects/Account/describe"), 404, "NOT_FOUND")


def test_tooling_query_pages_under_its_own_resource(client: Client) -> None:
    first = client.get(
        f"{V}/tooling/query",
        params={"q": "SELECT DurableId FROM FieldDefinition"},
        headers={"Sforce-Query-Options": "batchSize=200"},
    ).json()
    assert first["done"] is False and first["nextRecordsUrl"].startswith(f"{V}/tooling/query/")
    second = client.get(first["nextRecordsUrl"]).json()
    assert len(second["records"]) > 0


def test_every_profile_owns_a_permission_set_assigned_to_its_users(client: Client) -> None:
    owned = _query(
        client,
        f"SELECT Name, Label, Type, IsOwnedByProfile, (SELECT Assignee.Username FROM Assignments) FROM PermissionSet WHERE ProfileId = '{ADMIN_PROFILE}'",
    )["records"]
    assert len(owned) == 1 and owned[0]["IsOwnedByProfile"] is True and owned[0]["Type"] == "Profile"
    assert owned[0]["Name"] == f"X{ADMIN_PROFILE[:15]}" and owned[0]["Label"] == "System Administrator"
    assert owned[0]["Assignments"]["records"][0]["Assignee"]["Username"] == client.running.username


def test_assigning_a_permission_set(client: Client) -> None:
    name = f"Mock_Access_{client.kind}"
    created = client.post(f"{V}/sobjects/PermissionSet", json_body={"Name": name, "Label": "Mock access"})
    assert created.status == 201, created.text
    me = _query(client, f"SELECT Id FROM User WHERE Username = '{client.running.username}'")["records"][0]["Id"]
    assignment = {"AssigneeId": me, "PermissionSetId": created.json()["id"]}
    assert client.post(f"{V}/sobjects/PermissionSetAssignment", json_body=assignment).status == 201
    again = assert_error(
        client.post(f"{V}/sobjects/PermissionSetAssignment", json_body=assignment), 400, "DUPLICATE_VALUE"
    )
    assert again["message"].startswith("Duplicate PermissionSetAssignment. Assignee: ")
    profile_set = _query(client, f"SELECT Id FROM PermissionSet WHERE ProfileId = '{ADMIN_PROFILE}'")["records"][0][
        "Id"
    ]
    assert_error(
        client.post(
            f"{V}/sobjects/PermissionSetAssignment", json_body={"AssigneeId": me, "PermissionSetId": profile_set}
        ),
        400,
        "INVALID_CROSS_REFERENCE_KEY",
    )
    held = _query(client, f"SELECT PermissionSet.Name FROM PermissionSetAssignment WHERE AssigneeId = '{me}'")[
        "records"
    ]
    assert name in {row["PermissionSet"]["Name"] for row in held}


def test_person_accounts_have_their_person_contacts(client: Client) -> None:
    accounts = _query(
        client, f"SELECT IsPersonAccount, PersonContactId, PersonContact.Email FROM Account WHERE Id = '{ACCOUNTS[0]}'"
    )["records"]
    assert accounts[0]["IsPersonAccount"] is True and accounts[0]["PersonContactId"] == CONTACTS[0]
    assert accounts[0]["PersonContact"]["Email"] == "patricia@example.com"
    persons = _query(client, "SELECT Id FROM Contact WHERE IsPersonAccount = true ORDER BY Id")["records"]
    assert [row["Id"] for row in persons][:4] == CONTACTS


def test_a_new_person_account_brings_its_contact_and_takes_it_along(client: Client) -> None:
    record_type = _query(client, "SELECT Id FROM RecordType WHERE IsPersonType = true")["records"][0]["Id"]
    body = {
        "RecordTypeId": record_type,
        "FirstName": "Ada",
        "LastName": f"Person{client.kind}",
        "PersonEmail": "ada@example.com",
    }
    account_id = client.post(f"{V}/sobjects/Account", json_body=body).json()["id"]
    account = client.get(f"{V}/sobjects/Account/{account_id}").json()
    assert account["IsPersonAccount"] is True and account["Name"] == f"Ada Person{client.kind}"
    contact = client.get(f"{V}/sobjects/Contact/{account['PersonContactId']}").json()
    assert (contact["IsPersonAccount"], contact["AccountId"], contact["Email"]) == (True, account_id, "ada@example.com")
    assert (
        client.patch(f"{V}/sobjects/Account/{account_id}", json_body={"PersonEmail": "ada@example.org"}).status == 204
    )
    assert client.get(f"{V}/sobjects/Contact/{contact['Id']}").json()["Email"] == "ada@example.org"
    assert client.delete(f"{V}/sobjects/Account/{account_id}").status == 204
    assert_error(client.get(f"{V}/sobjects/Contact/{contact['Id']}"), 404, "NOT_FOUND")
    missing = assert_error(
        client.post(f"{V}/sobjects/Account", json_body={"RecordTypeId": record_type, "FirstName": "No"}),
        400,
        "REQUIRED_FIELD_MISSING",
    )
    assert missing["fields"] == ["LastName"]
