"""The benchmark harness: agents, tools, scoring and reports (filled in by the harness issue)."""
