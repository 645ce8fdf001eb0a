"""The queries ``crmarena conformance`` runs on both orgs.

Two parts. The *reference* part is every SOQL and SOSL statement the oracle's reference solutions
issue: the references are replayed on side A (the org the tasks were written for) through a client
that records each call, because a tool's later queries depend on what its earlier ones returned.
The *sample* part is written here: per benchmark object a select of every field, then filters,
parent paths, child sub-queries, semi-joins, aggregates, ordering, date functions, relative date
literals, toLabel and FORMAT, SOSL across objects, and statements a real org refuses, each about
this org's data (a sports retailer's Service Cloud).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

REFERENCE = "reference"
SAMPLE = "sample"
PARTS = (REFERENCE, SAMPLE)
# Knowledge article versions can only be queried with a PublishStatus (or Id) filter on a real org
# (SOQL and SOSL Reference, "Knowledge Article Version" restrictions).
_EVERY_FIELD_FILTER = {"Knowledge__kav": " WHERE PublishStatus = 'Online' AND Language = 'en_US'"}


@dataclass(frozen=True)
class SuiteQuery:
    name: str
    text: str
    part: str  # REFERENCE or SAMPLE

    @property
    def language(self) -> str:
        return "sosl" if self.text.lstrip()[:4].upper() == "FIND" else "soql"


def benchmark_objects() -> list[dict[str, Any]]:
    """The 16 benchmark objects of mock_org/crmarena_schema.json (supporting objects left out)."""
    schema = json.loads(resources.files("mock_org").joinpath("crmarena_schema.json").read_text(encoding="utf-8"))
    return [sobject for sobject in schema["objects"] if not sobject.get("supporting")]


def every_field_queries() -> list[SuiteQuery]:
    """One select of every field per benchmark object, no filter: the whole content of both orgs."""
    queries = []
    for sobject in benchmark_objects():
        name = sobject["name"]
        fields = ", ".join(field["name"] for field in sobject["fields"])
        text = f"SELECT {fields} FROM {name}{_EVERY_FIELD_FILTER.get(name, '')}"
        queries.append(SuiteQuery(f"sample/{name}/every-field", text, SAMPLE))
    return queries


# The hand-written sample, one statement per entry: "group/slug: statement", continued on indented
# lines (joined with one space). Absolute date literals wherever the question is about a fixed
# period; the relative literals (TODAY, LAST_N_DAYS:n …) are there to compare the clock rules and
# run only where both sides' "today" can be pinned. The "error" group must fail on every org.
_SAMPLE_TEXT = r"""
Account/state-any-case: SELECT Id, Name, ShippingCity FROM Account WHERE ShippingState = 'ca'
Account/name-starts: SELECT Id, Name FROM Account WHERE Name LIKE 'mar%'
Account/name-ends: SELECT Id, Name FROM Account WHERE Name LIKE '%SON'
Account/name-second-letter: SELECT Id, Name FROM Account WHERE Name LIKE '_a%' AND ShippingState != null
Account/states-with-ten: SELECT ShippingState, COUNT(Id) customers FROM Account GROUP BY ShippingState HAVING
    COUNT(Id) >= 10 ORDER BY COUNT(Id) DESC, ShippingState
Account/contacts-in-northwest: SELECT Id, Name, (SELECT Id, FirstName, LastName, Email FROM Contacts) FROM Account
    WHERE ShippingState IN ('WA', 'OR', 'ID')
Account/orders-in-texas: SELECT Id, Name, (SELECT Id, EffectiveDate, TotalAmount FROM Orders ORDER BY EffectiveDate)
    FROM Account WHERE ShippingState = 'TX'
Account/with-open-high-cases: SELECT Id, Name FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Priority =
    'High' AND Status != 'Closed')
Account/never-ordered: SELECT Id, Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Order)
Account/city-nulls-first: SELECT Id, Name, ShippingCity FROM Account ORDER BY ShippingCity ASC NULLS FIRST, Name, Id
    LIMIT 20
Account/outside-big-states-page: SELECT Id, Name FROM Account WHERE ShippingState NOT IN ('CA', 'NY', 'TX') ORDER BY
    Name DESC, Id LIMIT 15 OFFSET 5
Account/person-accounts: SELECT COUNT() FROM Account WHERE IsPersonAccount = true
Account/by-record-type: SELECT RecordType.DeveloperName, COUNT(Id) n FROM Account GROUP BY RecordType.DeveloperName
Account/owner-title: SELECT Id, Name, Owner.Name FROM Account WHERE Owner.Title = 'Senior Support Agent'
Account/postal-range: SELECT Id, ShippingPostalCode FROM Account WHERE ShippingPostalCode >= '90000' AND
    ShippingPostalCode < '96200'
Contact/account-state: SELECT Id, Name, Email, Account.Name, Account.ShippingState FROM Contact WHERE
    Account.ShippingState = 'FL'
Contact/shared-last-names: SELECT LastName, COUNT(Id) n FROM Contact GROUP BY LastName HAVING COUNT(Id) > 1 ORDER BY
    LastName
Contact/without-account: SELECT Id, Name FROM Contact WHERE AccountId = null
Contact/with-phone-page: SELECT Id, FirstName, LastName FROM Contact WHERE Phone != null ORDER BY LastName,
    FirstName, Id LIMIT 25
Contact/closed-cases-of-s: SELECT Id, LastName, (SELECT Id, Subject FROM Cases WHERE Status = 'Closed') FROM Contact
    WHERE LastName LIKE 's%'
Contact/email-domain: SELECT Id, Email FROM Contact WHERE Email LIKE '%.com' AND (NOT Email LIKE '%gmail%')
Case/status-any-case: SELECT Id, Subject, Status, Priority FROM Case WHERE Status = 'working'
Case/open-labels: SELECT Id, toLabel(Status), toLabel(Priority) priority_label FROM Case WHERE IsClosed = false
Case/status-priority: SELECT Status, Priority, COUNT(Id) n FROM Case GROUP BY Status, Priority ORDER BY Status,
    Priority
Case/busy-owners: SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 12
Case/per-year: SELECT CALENDAR_YEAR(CreatedDate) yr, COUNT(Id) n FROM Case GROUP BY CALENDAR_YEAR(CreatedDate) ORDER
    BY CALENDAR_YEAR(CreatedDate)
Case/per-month-2023: SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case WHERE CreatedDate >=
    2023-01-01T00:00:00Z AND CreatedDate < 2024-01-01T00:00:00Z GROUP BY CALENDAR_MONTH(CreatedDate)
Case/per-weekday: SELECT DAY_IN_WEEK(CreatedDate) dow, COUNT(Id) n FROM Case GROUP BY DAY_IN_WEEK(CreatedDate)
Case/per-hour: SELECT HOUR_IN_DAY(CreatedDate) h, COUNT(Id) n FROM Case GROUP BY HOUR_IN_DAY(CreatedDate) ORDER BY
    HOUR_IN_DAY(CreatedDate)
Case/per-day-may-2024: SELECT DAY_ONLY(CreatedDate) day, COUNT(Id) n FROM Case WHERE CreatedDate >=
    2024-05-01T00:00:00Z GROUP BY DAY_ONLY(CreatedDate) ORDER BY DAY_ONLY(CreatedDate)
Case/closed-since-march: SELECT Id, CreatedDate, ClosedDate FROM Case WHERE ClosedDate > 2024-03-01T00:00:00Z ORDER
    BY ClosedDate DESC, Id
Case/subject-words: SELECT Id, Subject FROM Case WHERE Subject LIKE '%item%'
Case/subject-in-any-case: SELECT Id, Subject FROM Case WHERE Subject IN ('not what i ordered', 'FAULTY ITEM
    RECEIVED')
Case/high-chats-paths: SELECT Id, Account.Name, Contact.Email, Owner.Name FROM Case WHERE Origin = 'Chat' AND
    Priority = 'High' ORDER BY CreatedDate, Id LIMIT 30
Case/defects-with-product: SELECT Id, OrderItemId__r.Product2.Name, IssueId__r.Name FROM Case WHERE IssueId__r.Name
    = 'Product Defect'
Case/per-issue: SELECT IssueId__r.Name, COUNT(Id) n FROM Case GROUP BY IssueId__r.Name ORDER BY COUNT(Id) DESC,
    IssueId__r.Name
Case/mails-of-low-email: SELECT Id, (SELECT Id, Subject, MessageDate FROM EmailMessages ORDER BY MessageDate) FROM
    Case WHERE Priority = 'Low' AND Origin = 'Email' AND CreatedDate >= 2024-01-01T00:00:00Z
Case/history-of-escalated: SELECT Id, (SELECT Id, Field__c, OldValue__c, NewValue__c FROM CaseHistories__r) FROM
    Case WHERE Status = 'Escalated'
Case/with-completed-chat: SELECT Id FROM Case WHERE Id IN (SELECT CaseId FROM LiveChatTranscript WHERE Status =
    'Completed') AND CreatedDate >= 2024-01-01T00:00:00Z
Case/of-bulk-lines: SELECT Id FROM Case WHERE OrderItemId__c IN (SELECT Id FROM OrderItem WHERE Quantity > 2)
Case/closed-nulls-first: SELECT Id, ClosedDate FROM Case ORDER BY ClosedDate ASC NULLS FIRST, Id LIMIT 10
Case/closed-nulls-last: SELECT Id, ClosedDate FROM Case ORDER BY ClosedDate DESC NULLS LAST, Id LIMIT 10
Case/format-escalated: SELECT Id, FORMAT(CreatedDate) created, FORMAT(ClosedDate) FROM Case WHERE Status =
    'Escalated'
Case/or-in-may: SELECT Id, CreatedDate FROM Case WHERE CreatedDate > 2024-05-01T00:00:00Z AND (Priority = 'High' OR
    Status = 'New')
Case/not-closed: SELECT Id, Status FROM Case WHERE NOT Status = 'Closed'
Case/span: SELECT MIN(CreatedDate) earliest, MAX(ClosedDate) latest, COUNT(Id) FROM Case
Case/phone-customers: SELECT COUNT_DISTINCT(AccountId) customers FROM Case WHERE Origin = 'Phone'
Case/last-30-days: SELECT Id, CreatedDate FROM Case WHERE CreatedDate = LAST_N_DAYS:30
Case/this-year: SELECT COUNT() FROM Case WHERE CreatedDate = THIS_YEAR
Case/closed-last-month: SELECT Id FROM Case WHERE ClosedDate = LAST_MONTH
Case/older-than-two-years: SELECT COUNT() FROM Case WHERE CreatedDate < LAST_N_MONTHS:24
Case/this-quarter-by-origin: SELECT Origin, COUNT(Id) n FROM Case WHERE CreatedDate = THIS_QUARTER GROUP BY Origin
CaseHistory__c/per-field: SELECT Field__c, COUNT(Id) n FROM CaseHistory__c GROUP BY Field__c ORDER BY Field__c
CaseHistory__c/transfers-2024: SELECT Id, CaseId__r.Subject, OldValue__c, NewValue__c FROM CaseHistory__c WHERE
    Field__c = 'owner assignment' AND OldValue__c != null AND CreatedDate >= 2024-01-01T00:00:00Z
CaseHistory__c/cases-moved-twice: SELECT CaseId__c, COUNT(Id) transfers FROM CaseHistory__c WHERE Field__c = 'Owner
    Assignment' AND OldValue__c != null GROUP BY CaseId__c HAVING COUNT(Id) > 1
CaseHistory__c/this-month: SELECT Id, Field__c FROM CaseHistory__c WHERE CreatedDate = THIS_MONTH
Issue__c/by-name: SELECT Id, Name, Description__c FROM Issue__c ORDER BY Name
Issue__c/closed-cases: SELECT Id, Name, (SELECT Id FROM Cases__r WHERE Status = 'Closed') FROM Issue__c
Issue__c/named-issue: SELECT Id, Name FROM Issue__c WHERE Name LIKE '%issue%'
Issue__c/quiet-in-2024: SELECT Id, Name FROM Issue__c WHERE Id NOT IN (SELECT IssueId__c FROM Case WHERE CreatedDate
    >= 2024-04-01T00:00:00Z AND IssueId__c != null)
Knowledge__kav/online-by-title: SELECT Id, Title, UrlName FROM Knowledge__kav WHERE PublishStatus = 'Online' AND
    Language = 'en_US' ORDER BY Title
Knowledge__kav/policies: SELECT Id, Title FROM Knowledge__kav WHERE PublishStatus = 'Online' AND Language = 'en_US'
    AND Title LIKE '%policy%'
Knowledge__kav/count-online: SELECT COUNT() FROM Knowledge__kav WHERE PublishStatus = 'Online'
Knowledge__kav/without-status-filter: SELECT Id, Title FROM Knowledge__kav
Product2/per-family: SELECT Family, COUNT(Id) n FROM Product2 GROUP BY Family ORDER BY Family
Product2/active-trail-footwear: SELECT Id, Name, ProductCode FROM Product2 WHERE Family = 'footwear' AND IsActive =
    true AND Name LIKE '%Trail%'
Product2/womens-escaped-quote: SELECT Id, Name FROM Product2 WHERE Name LIKE 'Women\'s%'
Product2/bag-prices: SELECT Id, Name, (SELECT UnitPrice, Pricebook2.Name FROM PricebookEntries WHERE IsActive = true
    ORDER BY UnitPrice) FROM Product2 WHERE Family = 'Accessories' AND Name LIKE '%Bag%'
Product2/in-running-shoes: SELECT Id, Name FROM Product2 WHERE Id IN (SELECT ProductId FROM ProductCategoryProduct
    WHERE ProductCategory.Name = 'Running Shoes')
Product2/external-page: SELECT Id, Name, External_ID__c FROM Product2 WHERE External_ID__c != null ORDER BY Name, Id
    LIMIT 10 OFFSET 10
Product2/never-sold: SELECT Id, Name FROM Product2 WHERE Id NOT IN (SELECT Product2Id FROM OrderItem)
ProductCategory/with-catalog: SELECT Id, Name, Catalog.Name FROM ProductCategory ORDER BY Name
ProductCategory/shoe-products: SELECT Id, Name, (SELECT ProductId FROM ProductCategoryProducts) FROM ProductCategory
    WHERE Name LIKE '%Shoes%'
ProductCategoryProduct/per-category: SELECT ProductCategory.Name, COUNT(Id) n FROM ProductCategoryProduct GROUP BY
    ProductCategory.Name ORDER BY ProductCategory.Name
ProductCategoryProduct/equipment: SELECT Id, Product.Name, ProductCategory.Name FROM ProductCategoryProduct WHERE
    Product.Family = 'Equipment'
Pricebook2/valid-mid-2023: SELECT Id, Name, IsStandard, ValidFrom, ValidTo FROM Pricebook2 WHERE ValidFrom <=
    2023-07-01T00:00:00Z AND ValidTo > 2023-07-01T00:00:00Z
Pricebook2/latest-seasonal: SELECT Id, Name, ValidFrom FROM Pricebook2 WHERE IsStandard = false ORDER BY ValidFrom
    DESC NULLS LAST, Id LIMIT 5
Pricebook2/of-2021: SELECT Id, Name FROM Pricebook2 WHERE Name LIKE '2021%'
Pricebook2/per-year: SELECT CALENDAR_YEAR(ValidFrom) yr, COUNT(Id) n FROM Pricebook2 WHERE ValidFrom != null GROUP
    BY CALENDAR_YEAR(ValidFrom) ORDER BY CALENDAR_YEAR(ValidFrom)
PricebookEntry/per-book: SELECT Pricebook2.Name, COUNT(Id) n, MIN(UnitPrice) low, MAX(UnitPrice) high FROM
    PricebookEntry GROUP BY Pricebook2.Name HAVING COUNT(Id) > 100
PricebookEntry/standard-dear: SELECT Id, UnitPrice, Product2.Name FROM PricebookEntry WHERE Pricebook2.IsStandard =
    true AND UnitPrice > 150 ORDER BY UnitPrice DESC, Id
PricebookEntry/footwear-standard-average: SELECT AVG(UnitPrice) average FROM PricebookEntry WHERE Product2.Family =
    'Footwear' AND Pricebook2.IsStandard = true
Order/first-quarter-2024: SELECT Id, EffectiveDate, Status FROM Order WHERE EffectiveDate >= 2024-01-01 AND
    EffectiveDate <= 2024-03-31
Order/quarters-2023: SELECT CALENDAR_QUARTER(EffectiveDate) q, COUNT(Id) n FROM Order WHERE
    CALENDAR_YEAR(EffectiveDate) = 2023 GROUP BY CALENDAR_QUARTER(EffectiveDate) ORDER BY
    CALENDAR_QUARTER(EffectiveDate)
Order/lines-of-a-day: SELECT Id, Account.Name, (SELECT Id, Quantity, UnitPrice FROM OrderItems) FROM Order WHERE
    EffectiveDate = 2024-05-30
Order/frequent-buyers: SELECT AccountId, COUNT(Id) n FROM Order GROUP BY AccountId HAVING COUNT(Id) >= 15 ORDER BY
    COUNT(Id) DESC
Order/per-status: SELECT Status, COUNT(Id) n FROM Order GROUP BY Status
Order/largest: SELECT Id, TotalAmount FROM Order WHERE TotalAmount > 500 ORDER BY TotalAmount DESC, Id LIMIT 20
Order/per-fiscal-year: SELECT FISCAL_YEAR(EffectiveDate) fy, COUNT(Id) n FROM Order GROUP BY
    FISCAL_YEAR(EffectiveDate)
Order/weeks-of-2024: SELECT WEEK_IN_YEAR(EffectiveDate) wk, COUNT(Id) n FROM Order WHERE EffectiveDate >= 2024-01-01
    GROUP BY WEEK_IN_YEAR(EffectiveDate)
Order/last-7-days: SELECT Id, EffectiveDate FROM Order WHERE EffectiveDate = LAST_N_DAYS:7
Order/today-or-later: SELECT COUNT() FROM Order WHERE EffectiveDate >= TODAY
OrderItem/may-2024-lines: SELECT Id, Quantity, UnitPrice, TotalPrice, Order.EffectiveDate, Product2.Name FROM
    OrderItem WHERE Order.EffectiveDate >= 2024-05-01
OrderItem/best-sellers: SELECT Product2Id, SUM(Quantity) units FROM OrderItem GROUP BY Product2Id HAVING
    SUM(Quantity) > 40
OrderItem/to-nevada: SELECT Id, Order.Account.ShippingCity FROM OrderItem WHERE Order.Account.ShippingState = 'NV'
OrderItem/family-2023: SELECT Product2.Family, COUNT(Id) lines, SUM(Quantity) units FROM OrderItem WHERE
    Order.EffectiveDate >= 2023-01-01 AND Order.EffectiveDate < 2024-01-01 GROUP BY Product2.Family ORDER BY
    Product2.Family
OrderItem/size-complaints: SELECT Id, Product2.Name FROM OrderItem WHERE Id IN (SELECT OrderItemId__c FROM Case
    WHERE IssueId__r.Name = 'Size Mismatch')
OrderItem/three-or-four-cheap: SELECT Id, Quantity, UnitPrice FROM OrderItem WHERE Quantity IN (3, 4) AND UnitPrice
    < 50
EmailMessage/of-escalated-cases: SELECT Id, Subject, FromAddress, ToIds, MessageDate, Incoming FROM EmailMessage
    WHERE ParentId IN (SELECT Id FROM Case WHERE Status = 'Escalated') ORDER BY MessageDate, Id
EmailMessage/per-direction: SELECT Incoming, COUNT(Id) n FROM EmailMessage GROUP BY Incoming
EmailMessage/per-status: SELECT toLabel(Status), COUNT(Id) n FROM EmailMessage GROUP BY Status
EmailMessage/late-replies: SELECT Id, Subject FROM EmailMessage WHERE MessageDate > 2024-05-20T00:00:00Z AND Subject
    LIKE 're:%'
EmailMessage/chatty-cases: SELECT ParentId, COUNT(Id) n FROM EmailMessage GROUP BY ParentId HAVING COUNT(Id) > 6
EmailMessage/yesterday: SELECT Id FROM EmailMessage WHERE MessageDate = YESTERDAY
LiveChatTranscript/since-april: SELECT Id, StartTime, EndTime, Status, Case.Subject, Account.Name FROM
    LiveChatTranscript WHERE StartTime >= 2024-04-01T00:00:00Z ORDER BY StartTime, Id
LiveChatTranscript/top-chat-owners: SELECT OwnerId, COUNT(Id) chats FROM LiveChatTranscript GROUP BY OwnerId ORDER
    BY COUNT(Id) DESC, OwnerId LIMIT 5
LiveChatTranscript/visitor-names: SELECT Id, LiveChatVisitor.Name, Contact.Name FROM LiveChatTranscript WHERE
    EndTime >= 2024-05-15T00:00:00Z
LiveChatTranscript/longest-month: SELECT CALENDAR_MONTH(StartTime) m, COUNT(Id) n FROM LiveChatTranscript WHERE
    StartTime >= 2023-01-01T00:00:00Z AND StartTime < 2024-01-01T00:00:00Z GROUP BY CALENDAR_MONTH(StartTime) ORDER
    BY COUNT(Id) DESC, CALENDAR_MONTH(StartTime)
LiveChatTranscript/ended-last-week: SELECT Id FROM LiveChatTranscript WHERE EndTime = LAST_WEEK
User/senior-agents: SELECT Id, Name, Title, Alias FROM User WHERE IsActive = true AND Title = 'senior support agent'
    ORDER BY Name, Id
User/per-title: SELECT Title, COUNT(Id) n FROM User GROUP BY Title ORDER BY Title NULLS LAST
User/admins: SELECT Id, Name, Profile.Name FROM User WHERE Profile.Name LIKE '%admin%'
User/owning-high-cases: SELECT Id, Name FROM User WHERE Id IN (SELECT OwnerId FROM Case WHERE Priority = 'High')
User/per-zone: SELECT TimeZoneSidKey, COUNT(Id) n FROM User GROUP BY TimeZoneSidKey
User/zone-label: SELECT Id, toLabel(TimeZoneSidKey) FROM User WHERE TimeZoneSidKey = 'America/New_York'
search/return-policy: FIND {return policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title WHERE PublishStatus =
    'Online' AND Language = 'en_US')
search/running-names: FIND {running} IN NAME FIELDS RETURNING Knowledge__kav(Id, Title WHERE PublishStatus =
    'Online' AND Language = 'en_US'), Product2(Id, Name)
search/warranty-prefix: FIND {warrant*} RETURNING Knowledge__kav(Id, Title WHERE PublishStatus = 'Online' AND
    Language = 'en_US')
search/a-customer-by-name: FIND {Gregory} IN NAME FIELDS RETURNING Account(Id, Name), Contact(Id, Name), User(Id,
    Name)
search/cases-and-mail: FIND {cancellation} IN ALL FIELDS RETURNING Case(Id, Subject WHERE Status = 'Closed'),
    EmailMessage(Id, Subject)
search/basketball-products: FIND {basketball} IN NAME FIELDS RETURNING Product2(Id, Name, Family WHERE IsActive =
    true)
search/phrase: FIND {"trail running"} RETURNING Product2(Id, Name), Knowledge__kav(Id, Title WHERE PublishStatus =
    'Online' AND Language = 'en_US')
search/issues: FIND {size OR shipping} RETURNING Issue__c(Id, Name)
search/limited-jackets: FIND {jacket*} RETURNING Product2(Id, Name ORDER BY Name LIMIT 10)
error/unknown-field: SELECT Id, Colour__c FROM Case
error/unknown-object: SELECT Id FROM Cases
error/dangling-where: SELECT Id FROM Case WHERE
error/limit-without-number: SELECT Id FROM Account WHERE Name = 'x' LIMIT
error/ungrouped-field: SELECT Status, COUNT(Id) FROM Case GROUP BY Priority
error/sort-long-text: SELECT Id FROM Case ORDER BY Description
error/filter-long-text: SELECT Id FROM LiveChatTranscript WHERE Body LIKE '%refund%'
error/number-for-text: SELECT Id FROM Account WHERE ShippingState = 5
error/unknown-relationship: SELECT Id, Widget__r.Name FROM Case
error/search-unknown-object: FIND {shoes} RETURNING Widget__c(Id)
error/search-without-braces: FIND shoes RETURNING Product2
error/search-unknown-field: FIND {shoes} RETURNING Product2(Id, Colour__c)
"""


def sample_queries() -> list[SuiteQuery]:
    """The sample part: the every-field selects, then the hand-written statements."""
    return every_field_queries() + [SuiteQuery(f"sample/{name}", text, SAMPLE) for name, text in _entries(_SAMPLE_TEXT)]


def _entries(block: str) -> Iterator[tuple[str, str]]:
    name, parts = None, []
    for line in block.strip().splitlines():
        if line.startswith(" "):
            parts.append(line.strip())
            continue
        if name:
            yield name, " ".join(parts)
        name, _, first = line.partition(": ")
        parts = [first]
    if name:
        yield name, " ".join(parts)


class RecordingClient:
    """A simple-salesforce client that notes every SOQL and SOSL statement sent through it."""

    def __init__(self, sf: Any, record: Callable[[str], None]) -> None:
        self._sf, self._record = sf, record

    def query_all(self, query: str, **options: Any) -> Any:
        self._record(query)
        return self._sf.query_all(query, **options)

    def search(self, search: str) -> Any:
        self._record(search)
        return self._sf.search(search)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sf, name)


def reference_queries(statements: Iterable[tuple[str, str]]) -> list[SuiteQuery]:
    """(task, statement) pairs as recorded, each statement once, named by the first task that issued it."""
    seen: dict[str, str] = {}
    for task, text in statements:
        seen.setdefault(text, task)
    counters: dict[str, int] = {}
    queries = []
    for text, task in seen.items():
        counters[task] = counters.get(task, 0) + 1
        queries.append(SuiteQuery(f"reference/{task}/{counters[task]}", text, REFERENCE))
    return queries


def chosen(queries: Iterable[SuiteQuery], patterns: list[str]) -> Iterator[SuiteQuery]:
    """The queries whose name contains one of ``patterns`` (all of them when there are none)."""
    for query in queries:
        if not patterns or any(pattern in query.name for pattern in patterns):
            yield query
