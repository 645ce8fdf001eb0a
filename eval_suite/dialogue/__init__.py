"""Multi-turn episodes (``crmarena eval --interactive``): a simulated user holds the goal and gives it piece
by piece; the agent holds the org, its tools and the policies. Kept apart as in tau2-bench: the goal
(goal.py), the users (scripted.py, simulated.py), the rules that catch a user's failures (checks.py), the
agents' side of the conversation (speakers.py) and the loop between them (episode.py)."""
