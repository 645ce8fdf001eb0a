"""The emulated Salesforce org: query engine, storage and REST server (filled in by later issues)."""
