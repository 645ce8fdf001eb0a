"""How answers become numbers: the rule-based scorer of one final answer (`answers`), the optional model
extractor beside it (`judge`), and the aggregates over scored attempts — confidence intervals and pass^k
(`metrics`). Kept apart from the runner so that rescoring and the reports use the very same rules."""
