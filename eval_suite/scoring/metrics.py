"""Aggregates over scored attempts: task scores with bootstrap confidence intervals, and pass^k.

pass^k (τ-bench's estimator): for an instance with n scored trials of which c passed, the chance
that k trials drawn without replacement all pass is C(c, k) / C(n, k); a task's pass^k is its mean
over instances, the overall figure the mean over tasks (each task weighs the same, as in the paper's
table). Pure functions of plain values.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

BOOTSTRAP_SAMPLES = 1000


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate that k trials of n (c of them passed) all pass."""
    if not 0 < k <= n:
        raise ValueError(f"pass^k needs 0 < k <= n, got k={k}, n={n}")
    return comb(c, k) / comb(n, k)


def pass_k_curve(trials: Mapping[Any, Sequence[bool]], max_k: int) -> dict[int, float | None]:
    """pass^k for k = 1..max_k over instances (each instance's list of trial outcomes).

    An instance enters pass^k only for k up to its own number of trials; a k no instance reaches is None.
    """
    curve: dict[int, float | None] = {}
    for k in range(1, max_k + 1):
        values = [pass_hat_k(len(outcomes), sum(outcomes), k) for outcomes in trials.values() if len(outcomes) >= k]
        curve[k] = sum(values) / len(values) if values else None
    return curve


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int


def mean_with_ci(values: Sequence[float], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES) -> Estimate:
    """The mean and its 95% percentile-bootstrap interval (resampling the values with replacement)."""
    if not values:
        raise ValueError("no values to average")
    mean = sum(values) / len(values)
    rng = random.Random(seed)
    size = len(values)
    means = sorted(sum(rng.choices(values, k=size)) / size for _ in range(samples))
    return Estimate(mean, means[int(0.025 * samples)], means[int(0.975 * samples) - 1], size)


def macro_mean_with_ci(
    by_group: Mapping[str, Sequence[float]], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES
) -> Estimate:
    """The mean of the groups' means, with a stratified bootstrap (each group resampled on its own)."""
    groups = [list(values) for values in by_group.values() if values]
    if not groups:
        raise ValueError("no values to average")
    value = sum(sum(group) / len(group) for group in groups) / len(groups)
    rng = random.Random(seed)
    means = sorted(
        sum(sum(rng.choices(group, k=len(group))) / len(group) for group in groups) / len(groups)
        for _ in range(samples)
    )
    return Estimate(value, means[int(0.025 * samples)], means[int(0.975 * samples) - 1], sum(map(len, groups)))
