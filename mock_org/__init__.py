"""The emulated Salesforce org: the schema, query engine, storage, dump reading and REST server.

It stands on soql_parser alone; the org's data (fixtures) and the harness (eval_suite) stand on it
(tests/meta/test_layers.py).
"""
