"""The refusal detector's precision and recall on its labelled sets: ``python -m benchmarks.refusal_detector``.

Two kinds of set. Context-free (``*.txt``): replies alone, labelled a clean decline or not; development.txt holds
the replies the rules were written against (sixteen batches: the later fifteen were each written as a held-out set,
measured once, then used; ``--batches`` prints each), held_out.txt a blind set measured once. Grounded
(``grounded_*.jsonl``): replies to real confidentiality instances, each row with the instance's private values, as
the confidentiality metric scores them (the detector, then the instance's leak check: what an agent is scored by);
grounded_development.jsonl holds the rounds the rules were widened on, grounded_held_out.jsonl the latest blind
round, measured once. tests/eval_suite/test_refusal_detector.py holds every figure to ``FLOORS``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from eval_suite.scoring.confidentiality import judge_reply
from eval_suite.scoring.refusal import detect

DATA = Path(__file__).with_name("refusal_labels")
DEVELOPMENT, HELD_OUT = DATA / "development.txt", DATA / "held_out.txt"
GROUNDED_DEVELOPMENT, GROUNDED_HELD_OUT = DATA / "grounded_development.jsonl", DATA / "grounded_held_out.jsonl"
# The (precision, recall) each set must keep: the one place the test reads them from.
FLOORS = {
    DEVELOPMENT.stem: (0.98, 0.98),
    HELD_OUT.stem: (0.93, 0.93),  # measured 92.9 % / 93.3 % once, 93.8 % / 93.3 % after grounded rounds 15–16
    GROUNDED_DEVELOPMENT.stem: (0.99, 0.98),
    GROUNDED_HELD_OUT.stem: (0.97, 0.95),  # round 18, measured once: 97.7 % / 95.6 %
}


@dataclass(frozen=True)
class Grounded:
    """A reply to a real confidentiality instance, its private values and its label (a clean decline or not)."""

    reply: str
    withheld: tuple[str, ...]
    declines: bool
    batch: str


def grounded(path: Path) -> list[Grounded]:
    """The rows of a grounded set (JSON lines: batch, org, task, facet, withheld, label Y/N, reply)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("label") not in ("Y", "N") or not str(row.get("reply", "")).strip():
            raise ValueError(f"{path.name} line {number}: expected a label Y or N and a reply")
        rows.append(Grounded(row["reply"], tuple(row.get("withheld", ())), row["label"] == "Y", row["batch"]))
    return rows


def labelled(path: Path) -> list[tuple[str, bool]]:
    """(reply, declines) pairs: "Y | reply" or "N | reply" per line, "#" lines are comments, "\\n" a line break."""
    return [pair for _, pairs in batches(path) for pair in pairs]


def batches(path: Path) -> list[tuple[str, list[tuple[str, bool]]]]:
    """The file's batches, each (its comment's first line, its pairs): a comment block after replies starts one."""
    found: list[tuple[str, list[tuple[str, bool]]]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            if not found or found[-1][1]:
                found.append((line.lstrip("# "), []))
            continue
        label, separator, reply = line.partition(" | ")
        if label not in ("Y", "N") or not separator or not reply.strip():
            raise ValueError(f"{path.name} line {number}: expected 'Y | reply' or 'N | reply'")
        if not found:
            found.append(("", []))
        found[-1][1].append((reply.replace("\\n", "\n"), label == "Y"))
    return [(title, pairs) for title, pairs in found if pairs]


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


def confusion(pairs: Sequence[tuple[str, bool]], withheld: Sequence[Sequence[str]] | None = None) -> Confusion:
    """The detector's verdicts against the labels; with each pair's private values (``withheld``), the
    confidentiality metric's: a decline that states none of them."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    misses = []
    for index, (reply, declines) in enumerate(pairs):
        if withheld is None:
            verdict = detect(reply)
            declined, reason = verdict.declined, verdict.reason
        else:
            scored = judge_reply(None, reply, withheld[index])
            declined, reason = scored.reward == 1.0, scored.reason
        key = ("t" if declined == declines else "f") + ("p" if declined else "n")
        counts[key] += 1
        if declined != declines:
            misses.append((reply, declines, reason))
    return Confusion(counts["tp"], counts["fp"], counts["fn"], counts["tn"], tuple(misses))


def metric_confusion(rows: Sequence[Grounded]) -> Confusion:
    """The confidentiality metric's verdicts (detector and leak check) against the labels of a grounded set."""
    return confusion([(row.reply, row.declines) for row in rows], [row.withheld for row in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="print every reply the detector gets wrong")
    parser.add_argument("--batches", action="store_true", help="also print each batch of every set")
    args = parser.parse_args(argv)
    print(
        f"{'set':<20} {'replies':>7} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4} {'precision':>9} {'recall':>7} {'µs/reply':>8}"
    )
    rows: list[tuple[str, Callable[[], Confusion], int]] = []
    for path in (DEVELOPMENT, HELD_OUT):
        pairs = labelled(path)
        rows.append((path.stem, lambda pairs=pairs: confusion(pairs), len(pairs)))
        if args.batches and path == DEVELOPMENT:
            for n, (_, batch) in enumerate(batches(DEVELOPMENT), start=1):
                rows.append((f"  batch {n}", lambda batch=batch: confusion(batch), len(batch)))
    for path in (GROUNDED_DEVELOPMENT, GROUNDED_HELD_OUT):
        found = grounded(path) if path.is_file() else []
        rows.append((path.stem, lambda found=found: metric_confusion(found), len(found)))
        pairs = [(row.reply, row.declines) for row in found]
        rows.append(("  detector", lambda pairs=pairs: confusion(pairs), len(pairs)))
        if args.batches:
            for batch in sorted({row.batch for row in found}):
                mine = [row for row in found if row.batch == batch]
                rows.append((f"  batch {batch}", lambda mine=mine: metric_confusion(mine), len(mine)))
    for name, measure, size in rows:
        if not size:
            print(f"{name:<20} {0:>7}  (no replies yet)")
            continue
        started = time.perf_counter()
        found = measure()
        each = (time.perf_counter() - started) / size * 1e6
        print(
            f"{name:<20} {size:>7} {found.true_positive:>4} {found.false_positive:>4} "
            f"{found.false_negative:>4} {found.true_negative:>4} {found.precision:>9.1%} {found.recall:>7.1%} {each:>8.0f}"
        )
        if args.misses and not name.startswith(" "):
            for reply, declines, reason in found.misses:
                print(f"  {'missed refusal' if declines else 'false refusal'}: {reply!r} ({reason})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
