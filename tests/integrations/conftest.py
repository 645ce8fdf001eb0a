"""The sample project is a user's test suite, run by the tests here in a pytest of its own, never collected
as part of this one."""

collect_ignore = ["sample_project"]
