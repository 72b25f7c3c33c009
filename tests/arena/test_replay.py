"""Replaying corpus dialogues: the person's script keeps its rules, the report its keys."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.arena.replay import NEUTRAL_LINES, NEUTRAL_TURNS, SCRIPT, PersonScript, ReplayError, replay_row, run_replay, summarize, task_for
from duologue.cli import app
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Message, SubmitDeal
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.dealornodeal.task import Choose

runner = CliRunner()


def corpus(fixtures: Path, name: str, file: str):
    return read_corpus(corpus_format(name), fixtures / name / file, skip_invalid=True).dialogues


class Talker(Agent):
    """Only chats and turns deals down: never proposes, so the script runs out."""

    name = "talker"

    def act(self, observation):
        if "reject-deal" in observation.legal:
            return actions.RejectDeal()
        return actions.Say(text="Tell me more.")


class RealDealProposer(Agent):
    """Proposes the split the two people really agreed, or one giving the partner nothing."""

    name = "proposer"

    def __init__(self, deal: dict[str, dict[str, int]], greedy: bool = False):
        self.deal = deal
        self.greedy = greedy

    def act(self, observation):
        if "accept-deal" in observation.legal:
            return actions.RejectDeal() if self.greedy else actions.AcceptDeal()
        if "submit-deal" not in observation.legal:
            return actions.WalkAway()
        other = next(p for p in self.deal if p != self.party)
        if self.greedy:
            return actions.SubmitDeal(mine={k: 3 for k in self.deal[self.party]}, theirs={k: 0 for k in self.deal[other]})
        return actions.SubmitDeal(mine=dict(self.deal[self.party]), theirs=dict(self.deal[other]))


def replay(source, seat: str, agent: Agent):
    task = make("casino-v0", first=next(e.party for e in source.events))
    other = task.other(seat)
    script = PersonScript(source, other)
    played = play_episode(task, {seat: agent, other: script}, seed=1, scenario=source)
    return task, script, played


def agreed(dialogues):
    return next(d for d in dialogues if d.outcome and d.outcome.agreed)


def test_the_script_says_the_persons_messages_in_order_then_neutral_lines_then_leaves(fixtures):
    source = corpus(fixtures, "casino", "casino_sample.json")[0]
    seat, person = "mturk_agent_1", "mturk_agent_2"
    task, script, played = replay(source, seat, Talker())
    said = [e.text for e in played.events if isinstance(e, Message) and e.party == person]
    real = [e.text for e in source.events if isinstance(e, Message) and e.party == person]
    assert said[: len(real)] == real
    assert said[len(real):] == list(NEUTRAL_LINES[:NEUTRAL_TURNS])
    assert played.events[-1].kind == "walk-away" and played.events[-1].party == person
    assert script.exhausted
    row = replay_row(played.model_copy(update={"meta": {**played.meta, "replay": {"seat": seat, "script_exhausted": True}}}), source, task)
    assert row.stuck == 1.0 and row.walk_away == 1.0 and row.agreement == 0.0


def test_the_script_makes_the_persons_own_deal_when_it_still_applies(fixtures):
    source = corpus(fixtures, "casino", "casino_sample.json")[0]
    person = "mturk_agent_2"
    _, _, played = replay(source, "mturk_agent_1", Talker())
    theirs = [(dict(e.mine), dict(e.theirs)) for e in played.events if isinstance(e, SubmitDeal) and e.party == person]
    real = [(dict(e.mine), dict(e.theirs)) for e in source.events if isinstance(e, SubmitDeal) and e.party == person]
    assert theirs == real and real


def test_the_script_accepts_what_the_person_really_got_and_rejects_less(fixtures):
    source = agreed(corpus(fixtures, "casino", "casino_sample.json"))
    seat, person = "mturk_agent_1", "mturk_agent_2"
    task, _, played = replay(source, seat, RealDealProposer(source.outcome.deal))
    assert played.outcome.agreed
    assert played.outcome.scores[person] == task.judge(source).scores[person]
    _, _, greedy = replay(source, seat, RealDealProposer(source.outcome.deal, greedy=True))
    answers = [e.kind for e in greedy.events if e.party == person and e.kind in ("accept-deal", "reject-deal")]
    assert answers and set(answers) == {"reject-deal"}
    assert not greedy.outcome.agreed


def test_replay_seats_the_agent_in_each_party_and_scores_it_against_that_person(fixtures):
    sources = corpus(fixtures, "casino", "casino_sample.json")
    pairs = list(run_replay(sources, corpus="casino", agent="rule", seed=3))
    assert len(pairs) == 2 * len(sources)
    task = make("casino-v0")
    for (played, row), source in zip(pairs, [s for s in sources for _ in (0, 1)], strict=True):
        seat = row.seat
        assert played.meta["agents"][seat] == "rule" and played.meta["agents"][task.other(seat)] == SCRIPT
        assert row.human_score == task.judge(source).scores[seat]
        assert row.agent_score == played.outcome.scores[seat]
        assert played.scenario == source.scenario
    report = summarize([row for _, row in pairs], task_id="casino-v0", agent="rule")
    assert report.episodes == len(pairs) and report.dialogues == len(sources)
    assert report.counts["agreement"] == len(pairs)
    low, high = report.intervals["agreement"]
    assert low <= report.agreement <= high


def test_replay_is_generic_and_runs_on_craigslist(fixtures):
    sources = corpus(fixtures, "craigslist", "cocoa.json")
    assert task_for(sources[0], "craigslist") == "craigslist-v0"
    rows = [row for _, row in run_replay(sources, corpus="craigslist", agent="rule", seat="1")]
    assert {r.seat for r in rows} == {"1"} and len(rows) == len(sources)
    assert all(r.agent_score is not None for r in rows)


def test_a_corpus_several_tasks_play_needs_a_task(fixtures):
    source = corpus(fixtures, "casino", "casino_sample.json")[0]
    with pytest.raises(ReplayError, match="--task"):
        task_for(source.model_copy(update={"task": "nothing-like-it"}), "casino")


def test_the_command_prints_one_json_object_and_writes_the_dialogues(fixtures, tmp_path: Path):
    out = tmp_path / "replays.jsonl"
    result = runner.invoke(app, ["replay", "casino", str(fixtures / "casino" / "casino_sample.json"), "--agent", "rule", "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout[result.stdout.index("{"):])
    for key in ("agreement", "agent_score", "human_score", "pareto", "stuck", "intervals", "counts"):
        assert key in payload
    assert payload["episodes"] == len(out.read_text().splitlines()) == 8


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "nobody"], "--seat"),
        (["--agent", "nonsense"], "nonsense"),
        (["--agent", "hybrid:rule+rule"], "unknown writer"),
        (["--out", "x.txt"], ".jsonl"),
    ],
)
def test_user_mistakes_exit_non_zero_with_a_message(fixtures, args, message):
    base = ["replay", "casino", str(fixtures / "casino" / "casino_sample.json"), "--agent", "rule"]
    result = runner.invoke(app, base + args)
    assert result.exit_code != 0
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.corpus
def test_replay_on_the_real_validation_split(corpus_path):
    path = corpus_path("casino/split/casino_valid.json")
    sources = read_corpus(corpus_format("casino"), path).dialogues[:10]
    rows = [row for _, row in run_replay(sources, corpus="casino", agent="rule")]
    report = summarize(rows, task_id="casino-v0", agent="rule")
    assert report.episodes == 20
    task = make("casino-v0")
    assert report.human_agreement == sum(bool(task.judge(s).agreed) for s in sources) / len(sources)
    assert 0.0 <= report.stuck <= 1.0 and report.counts["pareto"] == sum(r.agreement for r in rows)


class Chooser(Agent):
    """Says one line, then privately chooses a fixed share for itself (Deal or No Deal)."""

    name = "chooser"

    def __init__(self, mine: dict[str, int]):
        self.mine = mine

    def act(self, observation):
        if not observation.transcript:
            return actions.Say(text="Here is what I will take.")
        pool = observation.public["pool"]
        return Choose(mine=dict(self.mine), theirs={item: pool[item] - self.mine[item] for item in pool})


def test_a_private_choice_is_answered_with_its_complement_when_it_gives_the_person_their_real_score(fixtures):
    """A proposal made in private (a Deal or No Deal choice) is answered through `Task.closing_moves`:
    the script takes the complement when it scores the person at least what they really got, though
    the person really chose otherwise, and goes on to its own real choice when it does not."""
    source = next(d for d in corpus(fixtures, "dealornodeal", "dealornodeal_sample.txt") if d.outcome.agreed)
    task = make("dealornodeal-v0", first=source.events[0].party)
    seat = source.events[0].party
    person = task.other(seat)
    pool = {item: int(n) for item, n in source.scenario.public["pool"].items()}
    generous = play_episode(task, {seat: Chooser(dict.fromkeys(pool, 0)), person: PersonScript(source, person)}, seed=1, scenario=source)
    assert generous.outcome.agreed and generous.outcome.scores[person] == 10 > task.judge(source).scores[person]
    greedy = play_episode(task, {seat: Chooser(pool), person: PersonScript(source, person)}, seed=1, scenario=source)
    assert not greedy.outcome.agreed
    real = [dict(e.mine) for e in source.events if e.kind == "choose" and e.party == person]
    assert [dict(e.mine) for e in greedy.events if e.kind == "choose" and e.party == person] == real


def test_a_blank_corpus_message_is_dropped_not_a_crash(fixtures):
    """Published data keeps a message with no text (a rule people broke); the script cannot say it, so it skips it."""
    sources = corpus(fixtures, "dealornodeal", "dealornodeal_sample.txt")
    blank = [s for s in sources if any(isinstance(e, Message) and not e.text.strip() for e in s.events)]
    assert blank
    rows = [row for _, row in run_replay(blank, corpus="dealornodeal", agent="rule")]
    assert len(rows) == 2 * len(blank)


def test_a_failed_replay_leaves_the_earlier_output_as_it_was(fixtures, tmp_path: Path, monkeypatch):
    out = tmp_path / "replay.jsonl"
    out.write_text("the last good run\n")
    path = str(fixtures / "casino" / "casino_sample.json")
    from duologue.arena import replay as replay_module

    def broken(*args, **kwargs):
        raise ReplayError("the run broke half way")

    monkeypatch.setattr(replay_module, "run_replay", broken)
    result = runner.invoke(app, ["replay", "casino", path, "--agent", "rule", "--out", str(out)])
    assert result.exit_code == 2 and "broke half way" in result.output
    assert out.read_text() == "the last good run\n" and not list(tmp_path.glob("*.partial"))
    monkeypatch.undo()
    assert runner.invoke(app, ["replay", "casino", path, "--agent", "rule", "--out", str(out)]).exit_code == 0
    assert out.read_text() != "the last good run\n" and not list(tmp_path.glob("*.partial"))


def test_a_task_of_another_corpus_is_refused_with_the_parties_named(fixtures):
    path = str(fixtures / "casino" / "casino_sample.json")
    result = runner.invoke(app, ["replay", "casino", path, "--agent", "rule", "--task", "craigslist-v0"])
    assert result.exit_code == 2 and "cannot be played as craigslist-v0" in result.output and "Traceback" not in result.output
