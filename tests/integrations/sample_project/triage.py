"""The code under test: a user's own agent step, written against simple-salesforce as it would be for a real
org."""

from simple_salesforce import Salesforce


def escalate_oldest_open_case(sf: Salesforce) -> str:
    """Raise the oldest open case to High priority and return its Id."""
    query = "SELECT Id FROM Case WHERE Status != 'Closed' AND Priority != 'High' ORDER BY CreatedDate LIMIT 1"
    case_id = sf.query(query)["records"][0]["Id"]
    sf.Case.update(case_id, {"Priority": "High"})
    return case_id
