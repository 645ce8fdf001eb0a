"""The project where its users already work: a pytest plugin (pytest_plugin.py) that hands a test a served mock
org and a logged-in client, as moto does for AWS, so a Salesforce agent or integration is tested with no org,
no credentials and no glue (the org served in this process or by the project's image, docker_backend.py); and
an MCP server of the org's tools (mcp_server.py, the ``mcp`` extra) for agents that speak the Model Context
Protocol."""
