"""Knowledge search: the published articles whose text matches the search words."""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from .base import KNOWLEDGE, define, string
from .soql import search, search_words


def search_knowledge_articles(sf: Salesforce, search_term: str) -> list[dict[str, Any]]:
    sosl = (
        f"FIND {{{search_words(search_term)}}} IN ALL FIELDS RETURNING "
        "Knowledge__kav(Id, Title, Summary, FAQ_Answer__c WHERE PublishStatus = 'Online' AND Language = 'en_US')"
    )
    return [
        {
            "Id": record["Id"],
            "Title": record.get("Title"),
            "Summary": record.get("Summary"),
            "Content": record.get("FAQ_Answer__c"),
        }
        for record in search(sf, sosl)
    ]


SEARCH_KNOWLEDGE_ARTICLES = define(
    search_knowledge_articles,
    KNOWLEDGE,
    "Published knowledge articles (English) matching search_term, best matches first: Id, Title, Summary and "
    "Content (the article body; HTML entities such as &amp; are left as stored). Articles match any of the words.",
    {"search_term": string("Words to look for, e.g. 'store credit return window'.")},
    ("search_term",),
)

TOOLS = (SEARCH_KNOWLEDGE_ARTICLES,)
