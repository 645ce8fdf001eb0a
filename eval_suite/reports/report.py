"""``crmarena report RUN_DIR... --out DIR``: the leaderboard (Markdown, CSV, terminal), the plots and
the static HTML page, from any number of run directories and original ``results_*.json`` files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .browser import ORG_URL, write_browser
from .plots import write_plots
from .runs import load_runs
from .table import Row, build_rows, to_csv, to_markdown, to_terminal, warnings


@dataclass(frozen=True)
class Report:
    rows: list[Row]
    index: Path
    files: list[Path]
    terminal: str
    warnings: list[str]  # what the reader must know: shards missing or unfinished, attempts read twice

    @property
    def shards_missing(self) -> bool:
        """A sharded run among the rows lacks a shard, or has one that is not complete."""
        return any(row.run.shards_missing for row in self.rows)


def make_report(inputs: Sequence[Path | str], out: Path | str, org_url: str = ORG_URL) -> Report:
    out = Path(out)
    rows = build_rows(load_runs(inputs))
    out.mkdir(parents=True, exist_ok=True)
    markdown, table = out / "leaderboard.md", out / "leaderboard.csv"
    markdown.write_text(to_markdown(rows), encoding="utf-8")
    table.write_text(to_csv(rows), encoding="utf-8")
    plots = write_plots(rows, out / "plots")
    index = write_browser(rows, out, plots, org_url)
    return Report(rows, index, [markdown, table, *plots, index], to_terminal(rows), warnings(rows))
