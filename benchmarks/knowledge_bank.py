"""How hard the v2 knowledge_qa bank is to shortcut: ``python -m benchmarks.knowledge_bank [--seed N] [--count N]``.

Renders every article the bank asks about as the generator does (fixtures.generate.knowledge.article_drafts:
the policy articles of vocab.POLICIES, the care and look-alike articles), draws a
knowledge_qa sample the way the task's drafts do (every fact once per round, in a shuffled order, one of its
wordings at random; the policy solutions' facts built from SOLUTION_QUESTIONS), and prints what the audit's
knowledge_qa strategies score on it (token F1, as CRMArena's fuzzy metric) next to the word overlap of each
question with the sentence that holds its answer.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
from dataclasses import dataclass, field

from fixtures.audit.data import AuditData, tokens
from fixtures.audit.run import reward
from fixtures.audit.service import BM25, STRATEGIES, sentences
from fixtures.generate.knowledge import article_drafts
from fixtures.generate.vocab import POLICIES, Policy
from fixtures.tasks.knowledge_facts import FACTS, POLICY_TOPICS, SOLUTION_QUESTIONS, Fact
from fixtures.tasks.model import Instance
from fixtures.tasks.records import OrgRecords

SAMPLE_SEED = 23
SAMPLE_SIZE = 130
# Words a question needs whatever it asks (modal verbs); they do not count as shared content.
_FUNCTION = frozenset("may might must".split())


def articles() -> dict[str, tuple[str, str, str]]:
    """Id → (Title, Summary, body) of every article, as the generator writes them, policy articles first."""
    return {
        f"ka0{index:012d}": (title, summary, body) for index, (title, summary, body, _) in enumerate(article_drafts())
    }


def solution_facts(policy: Policy) -> list[tuple[str, Fact]]:
    """The facts of the solutions a policy article lists (window, what it gives, price condition), by kind."""
    found = []
    for solution in policy.solutions:
        answers = {"days": f"{solution.days} days", "what": solution.what[0].upper() + solution.what[1:]}
        if solution.min_item_price is not None or solution.min_order_total is not None:
            answers["price"] = f"${solution.min_item_price or solution.min_order_total:g}"
        for kind, answer in answers.items():
            questions = tuple(
                template.format(name=solution.name, topic=topic)
                for template in SOLUTION_QUESTIONS[kind]
                for topic in POLICY_TOPICS[policy.key]
            )
            found.append((kind, Fact(answer, questions)))
    return found


@dataclass(frozen=True, slots=True)
class PooledFact:
    article_id: str
    fact: Fact
    kind: str  # "bank" (from FACTS), or the SOLUTION_QUESTIONS kind it was built with


def pool(org: OrgRecords, with_solutions: bool = True) -> list[PooledFact]:
    ids = {title: key for key, (title, _, _) in org.articles.items()}
    found = [PooledFact(ids[title], fact, "bank") for title, facts in FACTS.items() for fact in facts]
    if with_solutions:
        found += [
            PooledFact(ids[policy.title], fact, kind) for policy in POLICIES for kind, fact in solution_facts(policy)
        ]
    return sorted(found, key=lambda item: (item.article_id, item.fact.answer))


def org_of(documents: dict[str, tuple[str, str, str]]) -> OrgRecords:
    return OrgRecords(
        cases={},
        assignments=[],
        order_items={},
        orders={},
        account_states={},
        contact_accounts={},
        products={},
        issues={},
        articles=documents,
    )


def sample(
    org: OrgRecords, seed: int = SAMPLE_SEED, count: int = SAMPLE_SIZE, with_solutions: bool = True
) -> list[Instance]:
    """Instances as the task's drafts pick them: each round every fact once, shuffled, one wording at random."""
    rng = random.Random(seed)
    facts = pool(org, with_solutions)
    chosen: list[Instance] = []
    while len(chosen) < count:
        order = list(facts)
        rng.shuffle(order)
        for item in order[: count - len(chosen)]:
            question = rng.choice(item.fact.questions)
            chosen.append(
                Instance(
                    len(chosen),
                    "knowledge_qa",
                    None,
                    question,
                    item.fact.answer,
                    "fuzzy_match",
                    {},
                    params={"article_id": item.article_id},
                )
            )
    return chosen


@dataclass(eq=False)
class _AuditData(AuditData):
    """The audit's data, working out the best constant answer once per task rather than once per instance
    (on 130 instances that is 130 × 50,000 token F1s)."""

    _constants: dict[str, str | None] = field(default_factory=dict)

    def best_constant(self, task: str) -> str | None:
        if task not in self._constants:
            self._constants[task] = super().best_constant(task)
        return self._constants[task]


def strategy_scores(org: OrgRecords, instances: list[Instance]) -> dict[str, float]:
    """Mean reward of each of the audit's knowledge_qa strategies."""
    data = _AuditData(org, instances)
    return {
        strategy.name: statistics.fmean(reward(item, strategy.answer(data, item)) for item in instances)
        for strategy in STRATEGIES["knowledge_qa"]
    }


def scores_by_kind(org: OrgRecords) -> dict[str, dict[str, float]]:
    """Each strategy's mean reward over every wording of every fact, by kind of fact."""
    items = [
        (item.kind, item.article_id, item.fact.answer, question)
        for item in pool(org)
        for question in item.fact.questions
    ]
    instances = [
        Instance(index, "knowledge_qa", None, question, answer, "fuzzy_match", {}, params={"article_id": article_id})
        for index, (_, article_id, answer, question) in enumerate(items)
    ]
    data = _AuditData(org, instances)
    found: dict[str, dict[str, float]] = {}
    for strategy in STRATEGIES["knowledge_qa"]:
        rewards: dict[str, list[float]] = {}
        for (kind, *_), instance in zip(items, instances, strict=True):
            rewards.setdefault(kind, []).append(reward(instance, strategy.answer(data, instance)))
        found[strategy.name] = {kind: statistics.fmean(values) for kind, values in rewards.items()}
    return found


def retrieval_top1(org: OrgRecords) -> float:
    """The share of bank questions whose top BM25 article (the audit's index) is the one that answers them."""
    index = BM25({key: f"{title} {summary} {body}" for key, (title, summary, body) in org.articles.items()})
    hits = [
        index.best(question) == item.article_id
        for item in pool(org, with_solutions=False)
        for question in item.fact.questions
    ]
    return statistics.fmean(hits)


def article_text(document: tuple[str, str, str]) -> str:
    title, summary, body = document
    return f"{title}\n{summary}\n{body}"


def answer_sentences(document: tuple[str, str, str], answer: str) -> list[str]:
    """The sentences of an article (as the audit splits them) that hold the answer."""
    return [sentence for sentence in sentences(article_text(document)) if answer in sentence]


def content_words(text: str) -> set[str]:
    """The audit's tokens less modal verbs, with a plural's final s dropped so 'shoes' meets 'shoe'."""
    return {re.sub(r"(?<=[a-z]{3})s$", "", word) for word in tokens(text) if len(word) > 1 and word not in _FUNCTION}


def overlap(question: str, sentence: str) -> float:
    """The share of the question's content words that the sentence also has."""
    asked = content_words(question)
    return len(asked & content_words(sentence)) / max(1, len(asked))


def overlaps(org: OrgRecords) -> list[tuple[float, str, str]]:
    """(overlap, question, answer sentence) for every wording of every bank fact."""
    found = []
    for item in pool(org, with_solutions=False):
        held = answer_sentences(org.articles[item.article_id], item.fact.answer)
        found += [
            (overlap(question, held[0]) if held else 1.0, question, held[0] if held else "")
            for question in item.fact.questions
        ]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SAMPLE_SEED)
    parser.add_argument("--count", type=int, default=SAMPLE_SIZE)
    parser.add_argument("--seeds", type=int, default=20, help="also draw samples with seeds 0..N-1: mean and max")
    parser.add_argument("--worst", type=int, default=10, help="print this many questions with the most overlap")
    args = parser.parse_args()
    org = org_of(articles())
    bodies = [article_text(document) for document in org.articles.values()]
    print(
        f"{len(org.articles)} articles, {sum(len(sentences(text)) for text in bodies)} sentences, "
        f"{sum(len(tokens(text)) for text in bodies)} content words"
    )
    bank = pool(org, with_solutions=False)
    print(
        f"{len(bank)} bank facts, {sum(len(item.fact.questions) for item in bank)} questions; "
        f"{len(pool(org)) - len(bank)} solution facts"
    )
    shares = overlaps(org)
    values = [share for share, _, _ in shares]
    print(
        f"overlap with the answer sentence: mean {statistics.fmean(values):.3f}, median {statistics.median(values):.3f}, "
        f"max {max(values):.3f}, above 1/3: {sum(value > 1 / 3 for value in values)}"
    )
    print(f"BM25's top article answers the question: {retrieval_top1(org):.1%} of bank questions")
    for label, with_solutions in (("bank and solutions", True), ("bank only", False)):
        scores = strategy_scores(org, sample(org, args.seed, args.count, with_solutions))
        others = [strategy_scores(org, sample(org, seed, args.count, with_solutions)) for seed in range(args.seeds)]
        print(f"\n{label}, {args.count} instances: seed {args.seed} | mean, max over seeds 0..{args.seeds - 1}")
        for name, score in scores.items():
            spread = [found[name] for found in others] or [score]
            print(f"  {score:6.1%} | {statistics.fmean(spread):6.1%} {max(spread):6.1%}  {name}")
    print("\nevery wording of every fact, by kind (bank, and the solution facts: days, what, price):")
    for name, by_kind in scores_by_kind(org).items():
        print("  " + "  ".join(f"{kind} {score:6.1%}" for kind, score in by_kind.items()) + f"  {name}")
    print("\nmost overlap:")
    for share, question, sentence in sorted(shares, reverse=True)[: args.worst]:
        print(f"  {share:.2f}  {question}\n        {sentence}")


if __name__ == "__main__":
    main()
