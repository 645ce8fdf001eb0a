"""The Salesforce APIs over the org, in wings, and what builds and runs them.

- ``http/``: the transport (HTTPS and HTTP/1.1 on threads, the WSGI hand-over, the mock CA); no Flask.
- ``bulk/``: both Bulk APIs' jobs (2.0 and 1.0), their request and result documents, their files on disk.
- ``rest/``: the REST app: the URL table, the handlers, errors as HTTP, JSON in and out, shared state.
- ``ui/``: the pages a person or a browser agent uses, on the same app and the same ``Org``.

Here: ``create_app(org, settings)`` in app.py, the only way to build the application (the wings meet
there); serve.py runs it behind the front (``serve_org``), workers.py in N processes on one port;
settings.py and limits.py hold what a server is configured with; ports.py asks, before a start,
whether a server already answers and whether the ports are free. The ``crmarena serve`` and
``crmarena tls export`` commands that use them are eval_suite/commands/serve.py and tls.py.
"""
