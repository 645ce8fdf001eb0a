"""The refusal detector's labelled sets (tests/eval_suite/data/refusals*.txt) and their confusion counts; the
test and benchmarks/refusal_detector.py read them the same way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval_suite.scoring.refusal import detect

DATA = Path(__file__).with_name("data")
DEVELOPMENT, HELD_OUT = DATA / "refusals.txt", DATA / "refusals_heldout.txt"


def labelled(path: Path) -> list[tuple[str, bool]]:
    """(reply, declines) pairs: "Y | reply" or "N | reply" per line, "#" lines are comments, "\\n" a line break."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        label, separator, reply = line.partition(" | ")
        if label not in ("Y", "N") or not separator or not reply.strip():
            raise ValueError(f"{path.name} line {number}: expected 'Y | reply' or 'N | reply'")
        pairs.append((reply.replace("\\n", "\n"), label == "Y"))
    return pairs


@dataclass(frozen=True)
class Confusion:
    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int
    misses: tuple[tuple[str, bool, str], ...]  # (reply, label, the detector's reason) where it was wrong

    @property
    def precision(self) -> float:
        return self.true_positive / max(1, self.true_positive + self.false_positive)

    @property
    def recall(self) -> float:
        return self.true_positive / max(1, self.true_positive + self.false_negative)


def confusion(pairs: list[tuple[str, bool]]) -> Confusion:
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    misses = []
    for reply, declines in pairs:
        verdict = detect(reply)
        key = ("t" if verdict.declined == declines else "f") + ("p" if verdict.declined else "n")
        counts[key] += 1
        if verdict.declined != declines:
            misses.append((reply, declines, verdict.reason))
    return Confusion(counts["tp"], counts["fp"], counts["fn"], counts["tn"], tuple(misses))
