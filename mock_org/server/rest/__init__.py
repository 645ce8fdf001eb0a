"""The REST app: what a request to ``/services/…`` means and what the org answers.

The URL table (routes.py) names one handler module per resource family (handlers/); body.py reads
JSON as the REST API does and wire.py writes it as a real org does; errors.py is the one place where
errors become HTTP statuses and bodies; state.py is what the handlers share (the org, sessions, the
Bulk API jobs) and usage.py the API request allowance. app.py (one level up) binds them into the
Flask application, with the pages of ui/ beside them.
"""
