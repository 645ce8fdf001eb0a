"""A small org every engine test can read: a few agents, customers, products, orders and cases."""

from __future__ import annotations

import pytest

from mock_org.org import Org

from .builder import ADMIN, build_org, rid, user

AGENT_A, AGENT_B, AGENT_C = rid("005", 1), rid("005", 2), rid("005", 3)
ACCOUNTS = [rid("001", i) for i in range(1, 5)]
CONTACTS = [rid("003", i) for i in range(1, 5)]
ISSUE_SIZE, ISSUE_REFUND = rid("a1M", 1), rid("a1M", 2)
PRODUCTS = [rid("01t", i) for i in range(1, 4)]
ORDERS = [rid("801", i) for i in range(1, 4)]
ITEMS = [rid("802", i) for i in range(1, 5)]
CASES = [rid("500", i) for i in range(1, 9)]


def tiny_records() -> dict[str, list[dict]]:
    def case(i, subject, status, priority, account, owner, created, closed=None, issue=ISSUE_SIZE, item=0, **extra):  # type: ignore[no-untyped-def]
        return {
            "Id": CASES[i - 1],
            "CaseNumber": f"{1000 + i:08d}",
            "Subject": subject,
            "Status": status,
            "IsClosed": 1 if status == "Closed" else 0,
            "Priority": priority,
            "AccountId": ACCOUNTS[account - 1] if account else None,
            "ContactId": CONTACTS[account - 1] if account else None,
            "OwnerId": owner,
            "CreatedDate": created,
            "ClosedDate": closed,
            "IssueId__c": issue,
            "OrderItemId__c": ITEMS[item] if item is not None else None,
            "Description": f"Long description {i}",
            **extra,
        }

    return {
        "Profile": [{"Id": rid("00e", 1), "Name": "Support Agent"}],
        "User": [
            user(999, "Ada", "Admin", Id=ADMIN),
            user(1, "Sofia", "Kouris"),
            user(2, "Mohammad", "Aziz"),
            user(3, "Émile", "Zola", IsActive=0),
        ],
        "Account": [
            {
                "Id": ACCOUNTS[0],
                "Name": "Patricia Walker",
                "FirstName": "Patricia",
                "LastName": "Walker",
                "ShippingState": "CA",
                "ShippingCity": "Fresno",
            },
            {
                "Id": ACCOUNTS[1],
                "Name": "Jürgen Groß",
                "FirstName": "Jürgen",
                "LastName": "Groß",
                "ShippingState": "NY",
            },
            {"Id": ACCOUNTS[2], "Name": "kim lee", "FirstName": "kim", "LastName": "lee", "ShippingState": None},
            {
                "Id": ACCOUNTS[3],
                "Name": "Ola Nordmann",
                "FirstName": "Ola",
                "LastName": "Nordmann",
                "ShippingState": "ca",
            },
        ],
        "Contact": [
            {
                "Id": CONTACTS[i],
                "FirstName": a,
                "LastName": b,
                "Name": f"{a} {b}",
                "AccountId": ACCOUNTS[i],
                "Email": f"{a.lower()}@example.com",
            }
            for i, (a, b) in enumerate(
                [("Patricia", "Walker"), ("Jürgen", "Groß"), ("kim", "lee"), ("Ola", "Nordmann")]
            )
        ],
        "Issue__c": [{"Id": ISSUE_SIZE, "Name": "Size Mismatch"}, {"Id": ISSUE_REFUND, "Name": "Return Policy Issue"}],
        "Product2": [
            {
                "Id": PRODUCTS[0],
                "Name": "Pro Speed Rope",
                "IsActive": 1,
                "External_ID__c": "Fitness_1",
                "Description": "A light speed rope for double unders.",
            },
            {
                "Id": PRODUCTS[1],
                "Name": "Trail Running Shoe",
                "IsActive": 1,
                "External_ID__c": "Running Shoes_2",
                "Description": "Grippy trail shoe with a rock plate.",
            },
            {
                "Id": PRODUCTS[2],
                "Name": "Yoga Mat 50% Off",
                "IsActive": 0,
                "External_ID__c": "Yoga_3",
                "Description": "Thick yoga mat.",
            },
        ],
        "Pricebook2": [{"Id": rid("01s", 1), "Name": "Standard Price Book", "IsActive": 1, "IsStandard": 1}],
        "PricebookEntry": [
            {
                "Id": rid("01u", i + 1),
                "Name": name,
                "Pricebook2Id": rid("01s", 1),
                "Product2Id": PRODUCTS[i],
                "UnitPrice": price,
                "IsActive": 1,
            }
            for i, (name, price) in enumerate(
                [("Pro Speed Rope", 14.0), ("Trail Running Shoe", 129.99), ("Yoga Mat 50% Off", 2.5e7)]
            )
        ],
        "Order": [
            {
                "Id": ORDERS[0],
                "OrderNumber": "00000101",
                "AccountId": ACCOUNTS[0],
                "Status": "Activated",
                "EffectiveDate": "2023-01-10",
                "Pricebook2Id": rid("01s", 1),
            },
            {
                "Id": ORDERS[1],
                "OrderNumber": "00000102",
                "AccountId": ACCOUNTS[1],
                "Status": "Activated",
                "EffectiveDate": "2023-03-05",
                "Pricebook2Id": rid("01s", 1),
            },
            {
                "Id": ORDERS[2],
                "OrderNumber": "00000103",
                "AccountId": ACCOUNTS[0],
                "Status": "Draft",
                "EffectiveDate": "2023-05-01",
                "Pricebook2Id": rid("01s", 1),
            },
        ],
        "OrderItem": [
            {
                "Id": ITEMS[0],
                "OrderItemNumber": "1",
                "OrderId": ORDERS[0],
                "Product2Id": PRODUCTS[0],
                "PricebookEntryId": rid("01u", 1),
                "Quantity": 1.0,
                "UnitPrice": 14.0,
                "TotalPrice": 14.0,
            },
            {
                "Id": ITEMS[1],
                "OrderItemNumber": "2",
                "OrderId": ORDERS[0],
                "Product2Id": PRODUCTS[1],
                "PricebookEntryId": rid("01u", 2),
                "Quantity": 2.0,
                "UnitPrice": 129.99,
                "TotalPrice": 259.98,
            },
            {
                "Id": ITEMS[2],
                "OrderItemNumber": "3",
                "OrderId": ORDERS[1],
                "Product2Id": PRODUCTS[1],
                "PricebookEntryId": rid("01u", 2),
                "Quantity": 1.0,
                "UnitPrice": 129.99,
                "TotalPrice": 129.99,
            },
            {
                "Id": ITEMS[3],
                "OrderItemNumber": "4",
                "OrderId": ORDERS[2],
                "Product2Id": PRODUCTS[2],
                "PricebookEntryId": rid("01u", 3),
                "Quantity": 3.0,
                "UnitPrice": 25.0,
                "TotalPrice": 75.0,
            },
        ],
        "Case": [
            case(
                1,
                "Wrong size",
                "Closed",
                "High",
                1,
                AGENT_A,
                "2023-01-12T09:00:00.000+0000",
                "2023-01-12T10:30:00.000+0000",
                item=0,
            ),
            case(
                2,
                "WRONG SIZE again",
                "Closed",
                "Medium",
                1,
                AGENT_A,
                "2023-03-01T23:30:00.000+0000",
                "2023-03-02T01:00:00.000+0000",
                item=1,
            ),
            case(
                3,
                "Refund please",
                "Closed",
                "Low",
                2,
                AGENT_B,
                "2023-03-06T12:00:00.000+0000",
                "2023-03-09T12:00:00.000+0000",
                ISSUE_REFUND,
                item=2,
            ),
            case(
                4, "Größe falsch", "New", "High", 2, AGENT_B, "2023-05-14T18:00:00.000+0000", issue=ISSUE_SIZE, item=2
            ),
            case(5, None, "Working", "Medium", None, AGENT_C, "2023-05-15T06:00:00.000+0000", issue=None, item=None),
            case(
                6,
                "50% discount missing",
                "Escalated",
                "High",
                3,
                AGENT_A,
                "2022-12-31T22:00:00.000+0000",
                issue=ISSUE_REFUND,
                item=None,
            ),
            case(
                7,
                "under_score subject",
                "Closed",
                None,
                4,
                AGENT_C,
                "2022-06-01T00:00:00.000+0000",
                "2022-06-02T00:00:00.000+0000",
                item=3,
            ),
            case(
                8, "Deleted case", "Closed", "Low", 1, AGENT_A, "2023-02-01T00:00:00.000+0000", IsDeleted=1, item=None
            ),
        ],
        "CaseHistory__c": [
            {"Id": rid("a1N", 1), "Name": "CH-1", "CaseId__c": CASES[0], "Field__c": "Case Creation"},
            {
                "Id": rid("a1N", 2),
                "Name": "CH-2",
                "CaseId__c": CASES[0],
                "Field__c": "Owner Assignment",
                "NewValue__c": AGENT_B,
            },
            {
                "Id": rid("a1N", 3),
                "Name": "CH-3",
                "CaseId__c": CASES[0],
                "Field__c": "Owner Assignment",
                "OldValue__c": AGENT_B,
                "NewValue__c": AGENT_A,
            },
            {
                "Id": rid("a1N", 4),
                "Name": "CH-4",
                "CaseId__c": CASES[1],
                "Field__c": "Owner Assignment",
                "NewValue__c": AGENT_A,
            },
        ],
        "EmailMessage": [
            {
                "Id": rid("02s", 1),
                "ParentId": CASES[0],
                "Subject": "Wrong size",
                "TextBody": "Hello, the shoes are too small.",
                "FromAddress": "patricia@example.com",
                "ToIds": f'["{AGENT_A}"]',
                "MessageDate": "2023-01-12T09:00:00.000+0000",
                "Incoming": 1,
            },
            {
                "Id": rid("02s", 2),
                "ParentId": CASES[0],
                "Subject": "Re: Wrong size",
                "TextBody": "We will send a replacement.",
                "FromAddress": "sofia.kouris@example.com",
                "ToIds": f'["{CONTACTS[0]}"]',
                "MessageDate": "2023-01-12T10:00:00.000+0000",
            },
        ],
        "Knowledge__kav": [
            {
                "Id": rid("ka0", 1),
                "Title": "Return Policy",
                "UrlName": "return-policy",
                "Summary": "How returns work.",
                "FAQ_Answer__c": "Full Refund within 30 days of purchase; store credit within 90 days.",
                "ArticleNumber": "000001",
                "PublishStatus": "Online",
                "Language": "en_US",
            },
            {
                "Id": rid("ka0", 2),
                "Title": "Caring for running shoes",
                "UrlName": "running-shoe-care",
                "Summary": "Clean and dry them.",
                "FAQ_Answer__c": "Let trail shoes dry away from heat.",
                "ArticleNumber": "000002",
                "PublishStatus": "Online",
                "Language": "en_US",
            },
        ],
    }


@pytest.fixture(scope="session")
def org(tmp_path_factory: pytest.TempPathFactory) -> Org:
    """The tiny org, read-only and shared by the whole session (today is 2023-05-15, Los Angeles)."""
    path = tmp_path_factory.mktemp("tiny") / "org.db"
    built = build_org(path, tiny_records(), read_only=True)
    yield built
    built.close()


@pytest.fixture
def writable_org(tmp_path) -> Org:  # type: ignore[no-untyped-def]
    built = build_org(tmp_path / "org.db", tiny_records())
    yield built
    built.close()


def ids(result: dict) -> list[str]:
    return [record["Id"] for record in result["records"]]
