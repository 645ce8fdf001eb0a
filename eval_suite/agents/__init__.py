"""The agents: the three CRMArena frameworks (Act, ReAct, function calling, with or without raw
SOQL/SOSL), the oracle that replays each instance's reference solution, and two trivial baselines."""
