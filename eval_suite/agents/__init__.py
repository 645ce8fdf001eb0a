"""The agents: the three CRMArena frameworks (Act, ReAct, function calling, with or without raw
SOQL/SOSL), the oracle that follows each instance's reference solution through the agents' tool
calls, and two trivial baselines."""
