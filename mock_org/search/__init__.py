"""SOSL: the search index and search execution."""
