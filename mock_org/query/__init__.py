"""SOQL: compilation to SQLAlchemy Core, execution, result shaping and paging."""
