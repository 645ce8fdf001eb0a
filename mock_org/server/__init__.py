"""The Salesforce REST API over the org: Flask routes, handlers, the error mapping, TLS and the WSGI server.

``create_app(org, settings)`` in app.py is the only way to build the application; serve.py runs it.
"""
