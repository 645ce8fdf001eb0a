"""The oracle: replays each instance's reference solution (eval_suite.reference) through the same
tools, org client and target as every agent, and answers what its final respond step gives. Scoring
100% proves that the tasks, the tools, the org and the scorer agree end to end."""

from __future__ import annotations

import json
from typing import Any

from ..toolbox import org_failure
from .base import Episode, EpisodeContext


class Oracle:
    name = "oracle"

    def run(self, context: EpisodeContext) -> Episode:
        from ..reference import steps

        messages: list[dict[str, Any]] = [{"role": "user", "content": context.instance.query}]
        answer: Any = None
        try:
            for step, output in steps(context.toolbox.sf, list(context.instance.reference)):
                messages.append({"role": "assistant", "content": json.dumps(step, ensure_ascii=False, default=str)})
                messages.append({"role": "tool", "content": str(output)})
                answer = output
        except Exception as error:  # an org failure is infrastructure; anything else is a bug of ours
            failure = org_failure(error)
            if failure is not None:
                raise failure from error
            raise
        text = "None" if answer is None else str(answer)
        return Episode(messages=messages, answer=text, turns=len(context.instance.reference),
                       end_reason={"source": "oracle", "message": "reference replayed", "content": text})  # fmt: skip
