"""Product and order lookups: a product's order items, a contact's account, what an account bought on a
day, and product search."""

from __future__ import annotations

from simple_salesforce import Salesforce

from .base import PRODUCTS, define, string, string_list
from .soql import ToolError, chunks, date_literal, ids, in_list, query, quote, search, search_words


def get_order_item_ids_by_product(sf: Salesforce, product_id: str) -> list[str]:
    soql = f"SELECT Id FROM OrderItem WHERE Product2Id = {quote(product_id)} ORDER BY Id"
    return [record["Id"] for record in query(sf, soql)]


GET_ORDER_ITEM_IDS_BY_PRODUCT = define(
    get_order_item_ids_by_product,
    PRODUCTS,
    "Ids of every order item (OrderItem) of a product; cases point at these through OrderItemId__c.",
    {"product_id": string("The Product2 Id.")},
    ("product_id",),
)


def get_account_id_by_contact_id(sf: Salesforce, contact_id: str) -> str | None:
    records = query(sf, f"SELECT AccountId FROM Contact WHERE Id = {quote(contact_id)}")
    if not records:
        raise ToolError(f"no contact has the Id {contact_id!r}")
    return records[0].get("AccountId")


GET_ACCOUNT_ID_BY_CONTACT_ID = define(
    get_account_id_by_contact_id,
    PRODUCTS,
    "The Id of the account a contact belongs to (the customer whose orders hold the contact's purchases).",
    {"contact_id": string("The Contact Id.")},
    ("contact_id",),
)


def get_purchase_history(
    sf: Salesforce, account_id: str, purchase_date: str, related_product_ids: list[str]
) -> list[str]:
    products = ids(related_product_ids, "related_product_ids") or []
    day = date_literal(purchase_date, "purchase_date")
    found: set[str] = set()
    for part in chunks(products):
        soql = (
            f"SELECT Product2Id FROM OrderItem WHERE Order.AccountId = {quote(account_id)} "
            f"AND Order.EffectiveDate = {day} AND Order.Status = 'Activated' AND Product2Id IN {in_list(part)}"
        )
        found.update(record["Product2Id"] for record in query(sf, soql))
    return sorted(found)


GET_PURCHASE_HISTORY = define(
    get_purchase_history,
    PRODUCTS,
    "Which of the given products the account bought on purchase_date: Product2 Ids of the items of its "
    "Activated orders whose EffectiveDate is that day.",
    {
        "account_id": string("The Account Id."),
        "purchase_date": string("The day of the order: 'YYYY-MM-DD' (a datetime gives its UTC date)."),
        "related_product_ids": string_list("Candidate Product2 Ids, e.g. from search_products."),
    },
    ("account_id", "purchase_date", "related_product_ids"),
)


def search_products(sf: Salesforce, search_term: str) -> list[str]:
    sosl = f"FIND {{{search_words(search_term)}}} IN ALL FIELDS RETURNING Product2(Id)"
    return [record["Id"] for record in search(sf, sosl)]


SEARCH_PRODUCTS = define(
    search_products,
    PRODUCTS,
    "Ids of the products whose name or description holds every word of search_term (a SOSL search; * is a "
    "wildcard, double quotes make a phrase).",
    {"search_term": string("Words to look for, e.g. 'trail shoe waterproof'.")},
    ("search_term",),
)

TOOLS = (GET_ORDER_ITEM_IDS_BY_PRODUCT, GET_ACCOUNT_ID_BY_CONTACT_ID, GET_PURCHASE_HISTORY, SEARCH_PRODUCTS)
