"""CRMArena as an inspect_ai task (the optional extra ``inspect``): ``inspect eval crmarena/crmarena`` and one task
per CRMArena task (``crmarena/case_routing`` …), registered by the entry point ``inspect_ai`` (registry.py). The
samples are our instances with the opening our function-calling agent is given (dataset.py), the tools are the
agents' Toolbox over the org `crmarena eval` would use (tools.py, org.py), the scorer is ours (scorer.py), and the
oracle solver follows each reference solution through inspect's own tool execution (solvers.py).

Nothing else in the package imports this one, so the core works without inspect-ai installed."""
