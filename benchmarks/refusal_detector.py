"""The refusal detector's precision and recall on its labelled sets: ``python -m benchmarks.refusal_detector``.

benchmarks/refusal_labels/development.txt holds the replies the rules were written against (sixteen batches: the
later fifteen were each written as a held-out set, measured once, then used; ``--batches`` prints each); held_out.txt
is the current blind set, measured once (it may hold no replies yet). tests/eval_suite/test_refusal_detector.py
holds the figures to ``FLOORS``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from eval_suite.scoring.refusal import detect

DATA = Path(__file__).with_name("refusal_labels")
DEVELOPMENT, HELD_OUT = DATA / "development.txt", DATA / "held_out.txt"
# The (precision, recall) each set must keep: the one place the test reads them from.
FLOORS = {DEVELOPMENT.stem: (0.98, 0.98), HELD_OUT.stem: (0.92, 0.93)}  # held out measured 92.9 % / 93.3 %


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="print every reply the detector gets wrong")
    parser.add_argument("--batches", action="store_true", help="also print each development batch")
    args = parser.parse_args(argv)
    print(
        f"{'set':<12} {'replies':>7} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4} {'precision':>9} {'recall':>7} {'µs/reply':>8}"
    )
    rows = [(path.stem, labelled(path)) for path in (DEVELOPMENT, HELD_OUT)]
    if args.batches:
        rows[1:1] = [(f"  batch {n}", pairs) for n, (_, pairs) in enumerate(batches(DEVELOPMENT), start=1)]
    for name, pairs in rows:
        if not pairs:
            print(f"{name:<12} {0:>7}  (no replies yet)")
            continue
        started = time.perf_counter()
        found = confusion(pairs)
        each = (time.perf_counter() - started) / len(pairs) * 1e6
        print(
            f"{name:<12} {len(pairs):>7} {found.true_positive:>4} {found.false_positive:>4} "
            f"{found.false_negative:>4} {found.true_negative:>4} {found.precision:>9.1%} {found.recall:>7.1%} {each:>8.0f}"
        )
        if args.misses and not name.startswith(" "):
            for reply, declines, reason in found.misses:
                print(f"  {'missed refusal' if declines else 'false refusal'}: {reply!r} ({reason})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
