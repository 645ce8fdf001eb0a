"""The HTTP transport: connections, HTTP/1.1 and TLS, kept apart from what the requests mean.

The front (front.py) serves any WSGI app over HTTPS and plain HTTP, a thread per connection, with
the caps that shed connections (connections.py) and the request bodies it holds in memory or in a
temporary file (bodies.py); http1.py reads and writes the messages with no I/O, wsgi.py hands a
request to the app, and tls.py is the mock's certificate authority. Nothing here imports Flask or
the org: the only Salesforce it knows is the body of the last-resort error answer.
"""
