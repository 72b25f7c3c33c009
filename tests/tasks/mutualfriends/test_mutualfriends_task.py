"""The MutualFriends task: rules, feedback on wrong selections, judging, metrics, corpus scenarios and transcripts."""

from __future__ import annotations

import pytest

from duologue.core import actions
from duologue.core.agent import RandomAgent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Scenario, Select
from duologue.core.task import IllegalAction
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.mutualfriends.task import MutualFriendsTask, wrong_selection_note
from duologue.testing import check_task

MUTUAL = {"School": "Rice University", "Hobby": "Hiking", "Time Preference": "morning"}
ZERO = [
    MUTUAL,
    {"School": "Rice University", "Hobby": "Chess", "Time Preference": "evening"},
    {"School": "Yale University", "Hobby": "Hiking", "Time Preference": "evening"},
    {"School": "Duke University", "Hobby": "Poker", "Time Preference": "morning"},
    {"School": "Yale University", "Hobby": "Golf", "Time Preference": "afternoon"},
]
ONE = [
    {"School": "Duke University", "Hobby": "Chess", "Time Preference": "morning"},
    {"School": "Rice University", "Hobby": "Golf", "Time Preference": "afternoon"},
    MUTUAL,
    {"School": "Yale University", "Hobby": "Poker", "Time Preference": "morning"},
    {"School": "Brown University", "Hobby": "Hiking", "Time Preference": "evening"},
]
ATTRIBUTES = [{"name": n, "value_type": t, "unique": False, "multivalued": False, "entity": True} for n, t in (("School", "school"), ("Hobby", "hobby"), ("Time Preference", "time_pref"))]
SCENARIO = Scenario(id="S_hand", public={"attributes": ATTRIBUTES, "alphas": [1.0, 0.3, 3.0]}, private={"0": {"friends": ZERO}, "1": {"friends": ONE}})


def started(**options) -> MutualFriendsTask:
    task = make("mutualfriends-v0", first="0", **options)
    task.reset(seed=1, scenario=SCENARIO)
    return task


def test_conforms_to_the_task_contract():
    check_task("mutualfriends-v0", episodes=25, seed=100)


def test_registry_and_party_ids():
    task = make("mutualfriends-v0")
    assert isinstance(task, MutualFriendsTask)
    assert task.party_ids == ("0", "1") and task.corpus == "mutualfriends" and "rule" in task.agents


def test_items_are_the_partys_own_friends():
    task = started()
    assert task.items(task.observe("0")) == ZERO
    assert task.items(task.observe("1")) == ONE


def test_selecting_a_friend_not_in_your_list_is_refused():
    task = started()
    with pytest.raises(IllegalAction, match="your own list"):
        task.step(actions.Select(item=ONE[0]), "0")
    assert task.events == [] and task.illegal["0"] == 1


def test_a_wrong_selection_tells_the_selector_and_the_game_goes_on():
    task = started()
    task.step(actions.Select(item=ZERO[1]), "0")
    assert not task.done
    assert task.observe("0").feedback == [wrong_selection_note(ZERO[1])]
    partner = task.observe("1")
    assert partner.feedback == []
    assert isinstance(partner.transcript[-1], Select) and partner.transcript[-1].item == ZERO[1]


def test_success_needs_both_latest_selections_on_the_mutual_friend():
    task = started()
    task.step(actions.Select(item=MUTUAL), "0")
    assert not task.done and task.observe("0").feedback == []
    task.step(actions.Select(item=ONE[0]), "1")
    assert not task.done
    task.step(actions.Say(text="it's the rice hiker in the morning"), "0")
    task.step(actions.Select(item=MUTUAL), "1")
    terminated, truncated, outcome = task.last()
    assert terminated and not truncated
    assert outcome.reason == "success" and outcome.agreed and outcome.deal == {"friend": MUTUAL}
    assert outcome.scores == {"0": 1.0, "1": 1.0}


def test_a_later_wrong_selection_supersedes_a_right_one():
    task = started()
    task.step(actions.Select(item=MUTUAL), "0")
    task.step(actions.Say(text="hmm"), "1")
    task.step(actions.Select(item=ZERO[2]), "0")
    task.step(actions.Select(item=MUTUAL), "1")
    assert not task.done


def test_running_out_of_turns_is_a_failure():
    task = started(max_turns=4)
    for party in ("0", "1", "0", "1"):
        task.step(actions.Say(text="hello"), party)
    terminated, truncated, outcome = task.last()
    assert truncated and outcome.reason == "turn_limit" and outcome.agreed is False
    assert outcome.scores == {"0": 0.0, "1": 0.0}


def test_episode_metrics():
    task = started()
    task.step(actions.Say(text="anyone who likes hiking?"), "0")
    task.step(actions.Select(item=ONE[4]), "1")
    task.step(actions.Select(item=MUTUAL), "0")
    task.step(actions.Select(item=MUTUAL), "1")
    metrics = task.episode_metrics(task.to_dialogue())
    assert metrics["success"] == 1.0 and metrics["agreement"] == 1.0
    assert metrics["utterances"] == 1.0 and metrics["selections"] == 3.0 and metrics["turns"] == 4.0
    assert metrics["success_per_selection"] == pytest.approx(1 / 3)
    assert metrics["success_per_turn"] == pytest.approx(1 / 4)


def test_judge_agrees_with_the_corpus_on_the_fixture_dialogues(fixtures):
    task = make("mutualfriends-v0")
    fmt = corpus_format("mutualfriends")
    for name in ("cocoa_train.json", "hf_validation.json"):
        for dialogue in read_corpus(fmt, fixtures / "mutualfriends" / name).dialogues:
            judged = task.judge(dialogue)
            assert judged.agreed == dialogue.outcome.agreed, dialogue.id
            assert judged.agreed == bool(dialogue.outcome.extra["reward"]), dialogue.id


def test_a_corpus_scenario_replays_and_its_transcript_writes_back(fixtures):
    fmt = corpus_format("mutualfriends")
    [dialogue, *_] = read_corpus(fmt, fixtures / "mutualfriends" / "cocoa_train.json").dialogues
    task = make("mutualfriends-v0")
    played = play_episode(task, {"0": RandomAgent(), "1": RandomAgent()}, seed=5, scenario=dialogue)
    assert played.scenario == dialogue.scenario
    record = fmt.from_dialogue(played)
    assert fmt.check(record) == []
    assert record_differences(record, fmt.from_dialogue(fmt.to_dialogue(record))) == []


def test_rule_agents_transcript_is_a_valid_corpus_record():
    task = make("mutualfriends-v0")
    from duologue.agents import make_agent

    dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=11)
    fmt = corpus_format("mutualfriends")
    record = fmt.from_dialogue(dialogue)
    assert fmt.check(record) == []
    assert record["outcome"]["reward"] == (1 if dialogue.outcome.agreed else 0)
    back = fmt.to_dialogue(record)
    assert [e.kind for e in back.events] == [e.kind for e in dialogue.events if e.kind != "system"]
    assert Dialogue.model_validate_json(dialogue.model_dump_json()) == dialogue


def test_random_play_stays_legal_and_ends():
    task = make("mutualfriends-v0")
    for seed in range(10):
        dialogue = play_episode(task, {"0": RandomAgent(), "1": RandomAgent()}, seed=seed)
        assert dialogue.outcome is not None and dialogue.meta["illegal_actions"] == {"0": 0, "1": 0}
        assert len(dialogue.events) <= task.max_turns + 1
