"""The real-org lane: load a generated org into any Salesforce org, point the tasks at its Ids, and
compare the mock with it (metadata, push, remap, conformance)."""
