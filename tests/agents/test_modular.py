"""The generic parts of the modular agent: the act policy, retrieval, the corpus cache, realisation."""

import logging
import random
from pathlib import Path

import pytest

from duologue.modular.agent import (
    ActPolicy,
    Generated,
    Knowledge,
    ModularAgent,
    UtteranceIndex,
    cached_knowledge,
    escape_braces,
    fill,
    fit_share,
    resolve_corpus,
    template_slots,
)


pytestmark = pytest.mark.usefixtures("fresh_modular_cache")


# ---------------------------------------------------------------------------- policy


def test_policy_follows_counts_at_a_well_seen_context():
    policy = ActPolicy(strength=1.0, floor=0.0)
    for _ in range(90):
        policy.add(("buyer", "inquiry"), "inform")
    for _ in range(10):
        policy.add(("buyer", "inquiry"), "unknown")
    dist = policy.distribution(("buyer", "inquiry"), ["inform", "unknown"])
    assert dist["inform"] == pytest.approx(0.9, abs=0.02)
    assert sum(dist.values()) == pytest.approx(1.0)


def test_policy_backs_off_to_shorter_contexts_when_the_full_one_was_never_seen():
    policy = ActPolicy(floor=0.0)
    for _ in range(50):
        policy.add(("seller", "counter-price"), "counter-price")
    policy.add(("seller", "intro"), "unknown")
    dist = policy.distribution(("seller", "never-seen-act"), ["counter-price", "unknown"])
    assert dist["counter-price"] > 0.9  # from the (seller,) level


def test_policy_renormalises_over_the_allowed_acts_and_keeps_a_floor():
    policy = ActPolicy(floor=0.05)
    for _ in range(100):
        policy.add(("a",), "x")
    dist = policy.distribution(("a",), ["y", "z"])  # x is not allowed now
    assert set(dist) == {"y", "z"}
    assert dist["y"] == pytest.approx(0.5)
    with_x = policy.distribution(("a",), ["x", "y"])
    assert with_x["y"] >= 0.04  # an act never seen keeps a small chance


def test_policy_from_table_propagates_counts_to_prefixes():
    policy = ActPolicy.from_table({"buyer|<start>": {"intro": 9, "init-price": 1}, "seller|<start>": {"intro": 1, "init-price": 9}})
    assert policy.size == 20
    assert policy.best(("buyer", "<start>"), ["intro", "init-price"]) == "intro"
    assert policy.best(("seller", "<start>"), ["intro", "init-price"]) == "init-price"
    assert policy.distribution(("nobody",), ["intro", "init-price"])["intro"] == pytest.approx(0.5, abs=0.01)


def test_policy_sampling_uses_the_given_rng_only():
    policy = ActPolicy.from_table({"a": {"x": 1, "y": 1, "z": 1}})
    first = [policy.sample(("a",), ["x", "y", "z"], random.Random(7)) for _ in range(5)]
    again = [policy.sample(("a",), ["x", "y", "z"], random.Random(7)) for _ in range(5)]
    assert first == again
    draws = {policy.sample(("a",), ["x", "y", "z"], rng) for rng in [random.Random(s) for s in range(40)]}
    assert draws == {"x", "y", "z"}
    with pytest.raises(ValueError):
        policy.sample(("a",), [], random.Random(0))


# ---------------------------------------------------------------------------- retrieval


def test_templates_fill_and_escape():
    template = escape_braces("I'd say {maybe} ") + "{price}"
    assert template_slots(template) == {"price"}
    assert fill(template, {"price": "$40"}) == "I'd say {maybe} $40"


def test_index_filters_by_slots_and_required_tags_and_ranks_preferred_tags_first():
    index = UtteranceIndex()
    index.add("counter-price", "How about {price}?", {"role": "buyer", "category": "bike"})
    index.add("counter-price", "Can't do {partner_price}, {price}?", {"role": "buyer", "category": "car"})
    index.add("counter-price", "I could do {price}.", {"role": "seller", "category": "bike"})
    assert not index.add("counter-price", "how about  {price}?", {"role": "buyer", "category": "bike"})  # a duplicate
    assert len(index) == 3
    found = index.candidates("counter-price", slots={"price"}, require={"role": "buyer"})
    assert [c.template for c in found] == ["How about {price}?"]  # the other needs a partner price
    both = index.candidates("counter-price", slots={"price", "partner_price"}, require={"role": "buyer"}, prefer={"category": "car"}, rng=random.Random(0))
    assert [c.tag("category") for c in both] == ["car", "bike"]
    assert index.candidates("counter-price", slots={"price"}, require={"role": ["seller", "nobody"]})[0].tag("role") == "seller"
    assert index.candidates("agree") == []


# ---------------------------------------------------------------------------- where the corpus comes from


def test_corpus_path_from_argument_environment_or_nowhere(tmp_path, monkeypatch):
    corpus = tmp_path / "data" / "craigslist" / "validation.json"
    corpus.parent.mkdir(parents=True)
    corpus.write_text("[]")
    assert resolve_corpus(str(corpus), "ignored") == corpus
    assert resolve_corpus(str(tmp_path / "missing.json"), "craigslist/validation.json") is None
    monkeypatch.setenv("DUOLOGUE_DATA", str(tmp_path / "data"))
    assert resolve_corpus(None, "craigslist/validation.json") == corpus
    monkeypatch.setenv("DUOLOGUE_DATA", str(tmp_path / "elsewhere"))
    assert resolve_corpus(None, "craigslist/validation.json") is None


def _knowledge(source: str) -> Knowledge:
    return Knowledge(policy=ActPolicy(), index=UtteranceIndex(), source=source)


def test_knowledge_is_built_once_per_process_and_falls_back_with_a_warning(tmp_path, caplog):
    builds = []

    def build(path: Path) -> Knowledge:
        builds.append(path)
        return _knowledge(str(path))

    first = cached_knowledge("Owner", tmp_path, build, lambda: _knowledge("built-in"))
    second = cached_knowledge("Owner", tmp_path, build, lambda: _knowledge("built-in"))
    assert first is second and len(builds) == 1 and first.from_corpus
    with caplog.at_level(logging.WARNING, logger="duologue.modular.agent"):
        fallback = cached_knowledge("Owner", None, build, lambda: _knowledge("built-in"))
    assert not fallback.from_corpus
    assert "no corpus found" in caplog.text


def test_a_corpus_that_cannot_be_read_falls_back_instead_of_failing(tmp_path, caplog):
    def broken(path: Path) -> Knowledge:
        raise ValueError("not a corpus")

    with caplog.at_level(logging.WARNING, logger="duologue.modular.agent"):
        knowledge = cached_knowledge("Broken", tmp_path, broken, lambda: _knowledge("built-in"))
    assert knowledge.source == "built-in"
    assert "could not learn" in caplog.text


# ---------------------------------------------------------------------------- realisation


class EchoAgent(ModularAgent):
    """The smallest task part: a fixed index, and nothing else."""

    corpus_relative = "echo/nowhere"

    @classmethod
    def build_knowledge(cls, path):
        raise AssertionError("not used")

    @classmethod
    def fallback_knowledge(cls):
        index = UtteranceIndex()
        index.add("counter-price", "How about {price}?")
        index.add("counter-price", "I was thinking {price}, friend.")
        index.add("counter-price", "Nope, {price} is a steal.")
        return Knowledge(policy=ActPolicy.from_table({"": {"counter-price": 1}}), index=index, source="built-in")

    def act(self, observation):  # pragma: no cover - realisation is tested directly
        raise NotImplementedError


def _echo() -> EchoAgent:
    agent = EchoAgent("prior")
    agent.reset(task=None, party="0", rng=random.Random(3))  # type: ignore[arg-type]
    return agent


def test_realize_takes_a_retrieved_candidate_that_fits_and_logs_it():
    agent = _echo()
    text = agent.realize("counter-price", values={"price": "$40"}, fits=lambda t: "friend" in t, fallback=["{price}?"])
    assert text == "I was thinking $40, friend."
    record = agent.generated[-1]
    assert record.source == "corpus" and record.fits and record.tried >= 1


def test_realize_does_not_repeat_itself_and_falls_back_to_templates_when_nothing_fits():
    agent = _echo()
    said = {agent.realize("counter-price", values={"price": "$40"}, fits=lambda t: True, fallback=["{price}?"]) for _ in range(3)}
    assert len(said) == 3  # three different corpus lines, none repeated
    text = agent.realize("counter-price", values={"price": "$40"}, fits=lambda t: t.endswith("please?"), fallback=["{price}, please?", "{price}?"])
    assert text == "$40, please?"
    record = agent.generated[-1]
    assert record.source == "template" and record.fits and record.first_fits is None  # every corpus line was said already


def test_realize_reports_a_fallback_that_does_not_fit():
    agent = _echo()
    agent.realize("agree", values={}, fits=lambda t: False, fallback=["Okay."])
    assert agent.generated[-1] == Generated(act="agree", text="Okay.", source="template", fits=False, first_fits=None, tried=0)


def test_fit_share_counts_only_checked_replies():
    records = [
        Generated("a", "x", "corpus", True, True, 1),
        Generated("a", "y", "corpus", True, False, 2),
        Generated("b", "z", "template", False, None, 0),
        Generated("c", "w", "template", True, None, 0, checked=False),
    ]
    share = fit_share(records)
    assert share["replies"] == 4 and share["checked"] == 3
    assert share["fit"] == pytest.approx(2 / 3)
    assert share["from_corpus"] == pytest.approx(0.5)
    assert share["first_candidate_fit"] == pytest.approx(0.5)


def test_retrieval_ranks_by_the_context_a_line_answered():
    from duologue.modular.agent import similarity

    index = UtteranceIndex()
    index.add("chat", "Sure, it runs fine.", context="does the engine run well?")
    index.add("chat", "It is blue.", context="what colour is the paint?")
    partner = "what colour is it painted?"
    ranked = index.candidates("chat", rank=lambda c: similarity(c.context, partner), rng=random.Random(0))
    assert [c.template for c in ranked] == ["It is blue.", "Sure, it runs fine."]


def test_words_not_grounded_in_the_dialogue_are_found():
    from duologue.modular.agent import ungrounded_words

    common = {"the", "still", "available"}
    grounds = ["2012 Honda Civic LX sedan, automatic, 98k miles."]
    assert ungrounded_words("is the convertible still available?", grounds, common) == {"convertible"}
    assert ungrounded_words("A haunted car?", grounds, common) == {"haunted", "car"}
    assert ungrounded_words("is the sedan still available? how many miles?", grounds, common | {"how", "many"}) == set()
