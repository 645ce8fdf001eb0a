"""Both Bulk APIs, as jobs rather than requests: state kept across calls, and data kept on disk.

Bulk API 2.0 (v2_jobs.py) and Bulk API 1.0 (v1_jobs.py, with its request bodies in v1_requests.py
and its XML, JSON and CSV documents in v1_documents.py) share a query's rows, one DML operation per
record and the job registry (common.py), and each job's files (files.py). No HTTP here: the handlers
in rest/handlers/ (bulk1.py, bulk2.py) speak these jobs to clients.
"""
