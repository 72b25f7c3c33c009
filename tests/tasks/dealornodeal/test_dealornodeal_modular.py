"""The modular Deal or No Deal agent: legal complete games, splits that add up and are worth something,
words that read back as the act and split meant, play without the corpus, and strategy learning from it."""

from __future__ import annotations

import random

import pytest

from duologue.agents import make_agent
from duologue.modular.agent import fit_share
from duologue.core.episode import play_episode
from duologue.tasks import make
from games import play_games
from duologue.tasks.dealornodeal.modular import OPTIONS, DealModularAgent
from duologue.tasks.dealornodeal.modular_acts import PRIOR, act_sequence, message_act
from duologue.tasks.dealornodeal.modular_words import detokenize, render, split_template
from duologue.tasks.dealornodeal.rules import ITEMS, complement, value
from duologue.tasks.dealornodeal.task import ChooseEvent
from duologue.tasks.dealornodeal.understanding import read

NO_CORPUS = "modular:prior"
POOL = {"book": 3, "hat": 1, "ball": 2}


pytestmark = pytest.mark.usefixtures("fresh_modular_cache")


def play(specs, episodes, *, seed=0):
    return play_games(lambda: make("dealornodeal-v0"), specs, episodes, seed=seed)


def check_games(games):
    """Every game legal and complete; every agreed split adds up and is worth something to a modular side."""
    agreed = 0
    for dialogue, agents in games:
        assert sum(dialogue.meta["illegal_actions"].values()) == 0
        assert dialogue.outcome is not None and dialogue.outcome.reason in ("agreement", "disagree", "no_agreement")
        chosen = [e for e in dialogue.events if isinstance(e, ChooseEvent)]
        assert len(chosen) == 2  # both sides chose: the game ran to its end
        pool = {item: int(dialogue.scenario.public["pool"][item]) for item in ITEMS}
        for event in chosen:
            assert event.mine is not None and event.theirs is not None
            assert complement(event.mine, pool) == event.theirs
        if dialogue.outcome.agreed:
            agreed += 1
            for party, agent in agents.items():
                if isinstance(agent, DealModularAgent):
                    assert value(dialogue.outcome.deal[party], dialogue.scenario.private[party]["values"]) > 0
    return agreed / len(games)


# ---------------------------------------------------------------------------- the acts


@pytest.mark.parametrize(
    ("text", "act"),
    [
        ("i'll take the books, you can have the rest", "propose"),
        ("no deal", "disagree"),
        ("ok deal", "agree"),
        ("hi there", "greet"),
        ("what do you want?", "inquire"),
        ("let me think", "unknown"),
    ],
)
def test_messages_read_as_coarse_acts(text, act):
    assert message_act(text, POOL) == act


def test_a_split_said_again_is_insisting_and_restating_the_partners_split_agrees():
    mine = read("i'll take the books, you can have the rest", POOL).speaker_gets
    assert message_act("i'll take the books, you can have the rest", POOL, own_last=mine) == "insist"
    assert message_act("deal, i get the hat and the balls", POOL, offered={"book": 0, "hat": 1, "ball": 2}) == "agree"
    assert message_act("deal, i get the books", POOL, offered={"book": 0, "hat": 1, "ball": 2}) == "propose"


def test_the_prior_and_the_corpus_acts_use_one_vocabulary(fixtures):
    from duologue.tasks import corpus_dialogues

    known = {"greet", "propose", "insist", "agree", "disagree", "inquire", "unknown", "select"}
    assert {act for row in PRIOR.values() for act in row} <= known
    dialogues = corpus_dialogues("dealornodeal", fixtures / "dealornodeal" / "dealornodeal_sample.txt")
    pairs = [pair for d in dialogues for pair in act_sequence(d)]
    assert pairs and {act for _, act in pairs} <= known


def test_a_corpus_split_becomes_a_template_that_states_any_split():
    text = detokenize("i 'd like the books and 1 ball , you get the hat and 1 ball .")
    share = read(text, POOL).speaker_gets
    assert share == {"book": 3, "hat": 0, "ball": 1}
    template, roles = split_template(text, share, POOL)
    assert "{s0}" in template and set(roles.values()) == {"mine:book", "mine:ball", "theirs:hat", "theirs:ball"}
    other = {"book": 1, "hat": 1, "ball": 0}
    filled = render(template, roles, other, POOL, {i: i for i in ITEMS}, random.Random(0))
    assert read(filled, POOL).speaker_gets == other


def test_lines_whose_counts_would_stay_behind_are_not_templates():
    share = {"book": 3, "hat": 0, "ball": 0}
    assert split_template("i get three whole books", share, POOL) is None  # `three` is cut off from its item
    assert split_template("i want the books, two is not enough", share, POOL) is None  # a count outside the slots
    assert split_template("i want the books", share, POOL) is not None


def test_proposals_and_refusals_it_says_carry_no_yes_and_it_greets_once_at_most():
    games = play([NO_CORPUS, NO_CORPUS], 20) + play(["rule", NO_CORPUS], 20, seed=50)
    for _, agents in games:
        for agent in agents.values():
            if not isinstance(agent, DealModularAgent):
                continue
            for record in agent.generated:
                words = set(record.text.lower().replace(",", " ").replace(".", " ").split())
                if record.act in ("propose", "insist", "disagree"):
                    assert not words & {"ok", "okay", "sure", "yes", "sounds", "fine"}, record.text
            assert [r.act for r in agent.generated].count("greet") <= 1


# ---------------------------------------------------------------------------- play


def test_against_rule_and_itself_every_game_is_legal_and_most_agree():
    assert check_games(play([NO_CORPUS, "rule"], 30) + play(["rule", NO_CORPUS], 30, seed=100)) >= 0.8
    assert check_games(play([NO_CORPUS, NO_CORPUS], 30, seed=200)) >= 0.8


def test_the_same_seed_gives_the_same_game(fixtures):
    spec = f"modular:{fixtures / 'dealornodeal' / 'dealornodeal_sample.txt'}"
    for specs in ([spec, "rule"], [NO_CORPUS, NO_CORPUS]):
        first, again = play(specs, 3, seed=7), play(specs, 3, seed=7)
        assert [[e.model_dump() for e in d.events] for d, _ in first] == [[e.model_dump() for e in d.events] for d, _ in again]


def test_without_a_corpus_it_plays_from_the_prior_and_templates_that_read_back(caplog):
    games = play([NO_CORPUS, "rule"], 20)
    assert "not found" in caplog.text or "no corpus" in caplog.text
    agent = games[0][1]["alice"]
    assert not agent.knowledge.from_corpus
    shares = fit_share(g for _, agents in games for g in agents["alice"].generated)
    assert shares["replies"] > 0 and shares["from_corpus"] == 0 and shares["fit"] == 1.0


def test_it_learns_from_a_corpus_file_given_in_its_spec(fixtures):
    spec = f"modular:{fixtures / 'dealornodeal' / 'dealornodeal_sample.txt'}"
    games = play([spec, "rule"], 10)
    agent = games[0][1]["alice"]
    assert agent.knowledge.from_corpus and agent.knowledge.policy.size > 0
    check_games(games)


def test_the_plain_agent_takes_the_planners_option_and_offers_the_rest():
    task = make("dealornodeal-v0")
    task.reset(seed=3)
    agent = make_agent(NO_CORPUS, task)
    agent.reset(task, "alice", random.Random(0))
    assert agent.option_names() == [f"{point}:{o}" for point, options in OPTIONS.items() for o in options]
    assert agent.choose_option("propose", (), ["plan", "greedy"]) == "plan"
    agent.planner._read(task.observe("alice"))
    splits = agent.splits(8.0)
    assert splits["plan"] == agent.planner._proposal(8.0)
    pool = agent.planner.pool
    for share in splits.values():
        assert all(0 <= share[i] <= pool[i] for i in ITEMS) and value(share, agent.planner.values) > 0


def test_a_strategy_that_always_picks_the_last_option_stays_legal():
    games = []
    for n in range(20):
        task = make("dealornodeal-v0")
        learner = make_agent(NO_CORPUS, task)
        original = learner.reset

        def reset(*args, learner=learner, original=original):
            original(*args)
            learner.choose_option = lambda point, context, options: options[-1]

        learner.reset = reset
        agents = {"alice": learner, "bob": make_agent("rule", task)}
        games.append((play_episode(task, agents, seed=n), agents))
    check_games(games)


# ---------------------------------------------------------------------------- the real corpus


@pytest.mark.corpus
def test_with_the_real_corpus_it_retrieves_most_replies_and_they_fit(corpus_path):
    spec = f"modular:{corpus_path('dealornodeal/val.txt')}"
    games = play([spec, "rule"], 40) + play([spec, spec], 20, seed=40)
    agreement = check_games(games)
    assert agreement >= 0.8
    records = [g for _, agents in games for agent in agents.values() if isinstance(agent, DealModularAgent) for g in agent.generated]
    shares = fit_share(records)
    assert shares["from_corpus"] >= 0.6 and shares["fit"] >= 0.95
    stats = games[0][1]["alice"].knowledge.stats
    assert stats["dialogues"] > 500 and stats["split templates"] > 100


# ---------------------------------------------------------------------------- strategy learning


def test_train_policy_starts_from_the_modular_agent_and_rl_plays_what_it_wrote(tmp_path):
    pytest.importorskip("torch")
    from typer.testing import CliRunner

    from duologue.arena.selfplay import PlayConfig, play_one
    from duologue.cli import app
    from duologue.modular.coarse_policy import CoarsePolicy

    out = tmp_path / "p.npz"
    result = CliRunner().invoke(app, ["train", "policy", "--task", "dealornodeal-v0", "--reward", "utility", "--episodes", "40", "--seed", "0",
                                      "--out", str(out), "--run-dir", str(tmp_path / "run"), "--fresh"])
    assert result.exit_code == 0, result.output
    policy = CoarsePolicy.load(out)
    assert policy.meta["task"] == "dealornodeal-v0" and policy.meta["episodes"] == 40
    assert {"propose", "agree", "propose:plan", "propose:greedy", "answer:reject"} <= set(policy.acts)
    for number in range(6):
        dialogue = play_one(PlayConfig(task="dealornodeal-v0", agents=[f"rl:{out}", "rule"] if number % 2 else ["rule", f"rl:{out}"]), number)
        assert dialogue.outcome is not None
        assert sum(dialogue.meta["illegal_actions"].values()) == 0
