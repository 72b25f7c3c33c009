"""The open-chat engine in both DUO settings: rules, ending, privacy, judging, DUO transcripts, replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Message, SystemNote
from duologue.core.task import IllegalAction
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus
from duologue.data.text import tokenize
from duologue.tasks import corpus_format, make
from duologue.tasks.openchat.corpus import DuoFormat
from duologue.tasks.openchat.task import EmpatheticChatTask, WizardChatTask
from duologue.testing import check_task

IDS = ["openchat-ed-v0", "openchat-wow-v0"]
DUO = DuoFormat()


def rule_episode(task_id: str, seed: int, **options) -> Dialogue:
    task = make(task_id, **options)
    return play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)


@pytest.mark.parametrize("task_id", IDS)
def test_conformance(task_id):
    check_task(task_id, episodes=10, seed=100)


def test_registered_classes_share_one_engine():
    ed, wow = make("openchat-ed-v0"), make("openchat-wow-v0")
    assert isinstance(ed, EmpatheticChatTask) and isinstance(wow, WizardChatTask)
    assert type(ed).__mro__[1] is type(wow).__mro__[1]
    assert ed.party_ids == wow.party_ids == ("user", "bot")
    assert ed.corpus == wow.corpus == "duo"
    assert ed.agents["rule"] == wow.agents["rule"] == "duologue.tasks.openchat.agents:ListenerAgent"


def test_who_speaks_first_and_default_lengths_follow_the_corpus():
    ed, wow = make("openchat-ed-v0"), make("openchat-wow-v0")
    assert ed.reset(seed=1).to_move == "user"
    assert wow.reset(seed=1).to_move == "bot"
    assert (ed.utterances, wow.utterances) == (20, 21)
    assert rule_episode("openchat-ed-v0", 4).messages()[0].party == "user"
    assert rule_episode("openchat-wow-v0", 4).messages()[0].party == "bot"


@pytest.mark.parametrize("task_id", IDS)
def test_the_chat_completes_after_the_set_number_of_utterances(task_id):
    dialogue = rule_episode(task_id, 2, utterances=7)
    assert len(dialogue.messages()) == 7
    assert dialogue.outcome.reason == "completed" and dialogue.outcome.agreed is None
    assert not any(isinstance(e, SystemNote) for e in dialogue.events)
    default = rule_episode(task_id, 2)
    assert len(default.messages()) == make(task_id).utterances


def test_a_turn_limit_below_the_length_truncates():
    dialogue = rule_episode("openchat-ed-v0", 2, utterances=20, max_turns=6)
    assert len(dialogue.messages()) == 6
    assert dialogue.outcome.reason == "turn_limit"


def test_a_huge_length_raises_the_safety_net_with_it():
    task = make("openchat-ed-v0", utterances=60)
    assert task.max_turns >= 60
    with pytest.raises(ValueError):
        make("openchat-ed-v0", utterances=0)


def test_only_say_is_legal_and_other_moves_are_refused_and_counted():
    task = make("openchat-ed-v0")
    task.reset(seed=0)
    assert task.legal_actions("user") == ["say"]
    assert task.legal_actions("bot") == []
    for move in (actions.Quit(), actions.Offer(price=3.0), actions.Select(item={})):
        with pytest.raises(IllegalAction):
            task.step(move, "user")
    assert task.illegal["user"] == 3 and task.events == []
    with pytest.raises(IllegalAction):
        task.step(actions.Say(text="hello"), "bot")


def test_observations_show_each_side_only_its_own_secrets():
    task = make("openchat-ed-v0", style="not_aligned")
    task.reset(seed=5)
    user, bot = task.observe("user"), task.observe("bot")
    secrets = task.scenario.private["user"]
    assert (user.role, bot.role) == ("user", "system")
    assert user.private == secrets and bot.private == {"style": "not_aligned"}
    bot_view = bot.model_dump_json()
    assert secrets["emotion"] not in bot_view and secrets["episode"] not in bot_view
    assert "not_aligned" not in user.model_dump_json()


def test_judge_is_pure_and_reads_system_notes():
    dialogue = rule_episode("openchat-wow-v0", 9, utterances=5)
    task = make("openchat-wow-v0")
    assert task.judge(dialogue).reason == "completed"
    cut = dialogue.model_copy(update={"events": [*dialogue.events[:3], SystemNote(party=None, name="disconnect")]})
    assert task.judge(cut).reason == "disconnect" and task.judge(cut).agreed is None


@pytest.mark.parametrize("task_id", IDS)
def test_played_transcripts_are_valid_duo_records(task_id):
    for seed in range(5):
        dialogue = rule_episode(task_id, seed)
        record = DUO.from_dialogue(dialogue)
        assert DUO.check(record) == []
        assert record["model"] == "rule"
        assert record["prompt"] in ("aligned", "neutral", "not_aligned")
        assert record["subjective_evaluation"] == {} and "objective_evaluation" not in record
        speakers = ["Human" if m.party == "user" else "Bot" for m in dialogue.messages()]
        assert [t["speaker"] for t in record["dialogue"]] == speakers
        assert [t["message"] for t in record["dialogue"]] == [m.text for m in dialogue.messages()]
        if task_id == "openchat-ed-v0":
            assert (record["emotion"], record["episode"]) == (dialogue.scenario.private["user"]["emotion"], dialogue.scenario.private["user"]["episode"])
        else:
            assert record["topic"] == dialogue.scenario.public["topic"]
        again = DUO.from_dialogue(DUO.to_dialogue(record))
        assert record_differences(record, again) == []


@pytest.mark.parametrize(
    "relative, task_id",
    [("ed/en/0000.json", "openchat-ed-v0"), ("ed/en/0001.json", "openchat-ed-v0"), ("wow/en/1000.json", "openchat-wow-v0"), ("ed/ja/2000.json", "openchat-ed-v0"), ("wow/ja/3000.json", "openchat-wow-v0")],
)
def test_a_duo_fixture_scenario_replays(fixtures: Path, relative, task_id):
    path = fixtures / "duo" / relative
    corpus_dialogue = DUO.to_dialogue(json.loads(path.read_text(encoding="utf-8")), file=str(path))
    task = make(task_id)
    played = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=11, scenario=corpus_dialogue)
    assert played.scenario == corpus_dialogue.scenario
    assert played.outcome.reason == "completed"
    assert len(played.messages()) == task.utterances
    record = DUO.from_dialogue(played)
    assert DUO.check(record) == []
    for key in ("setting", "emotion", "episode", "topic"):
        assert record.get(key) == corpus_dialogue.scenario.public.get(key)
    assert record["prompt"] == corpus_dialogue.scenario.public["style"]


def test_judge_on_corpus_fixtures_says_completed(fixtures: Path):
    task = make("openchat-ed-v0")
    for dialogue in read_corpus(corpus_format("duo"), fixtures / "duo").dialogues:
        assert task.judge(dialogue).reason == "completed"


def test_episode_metrics_count_utterances_and_tokens():
    dialogue = rule_episode("openchat-ed-v0", 3, utterances=6)
    metrics = make("openchat-ed-v0").episode_metrics(dialogue)
    lengths = [len(tokenize(m.text, "en")) for m in dialogue.messages()]
    assert metrics["utterances"] == 6.0
    assert metrics["mean_utterance_tokens"] == pytest.approx(sum(lengths) / 6)
    user = [n for n, m in zip(lengths, dialogue.messages(), strict=True) if m.party == "user"]
    assert metrics["mean_user_tokens"] == pytest.approx(sum(user) / len(user))
    assert metrics["completed"] == 1.0


def test_random_agents_play_both_settings():
    for task_id in IDS:
        task = make(task_id)
        dialogue = play_episode(task, {p: make_agent("random", task) for p in task.party_ids}, seed=1)
        assert dialogue.outcome.reason == "completed"
        assert all(isinstance(e, Message) for e in dialogue.events)


@pytest.mark.corpus
def test_real_duo_dialogues_judge_completed_and_replay(corpus_path):
    root = corpus_path("duo")
    dialogues = read_corpus(corpus_format("duo"), root).dialogues
    assert len(dialogues) == 455
    tasks = {"ed": make("openchat-ed-v0"), "wow": make("openchat-wow-v0")}
    for dialogue in dialogues:
        task = tasks[dialogue.scenario.public["setting"]]
        assert task.judge(dialogue).reason == "completed"
        metrics = task.episode_metrics(dialogue)
        assert metrics["utterances"] == len(dialogue.messages())
    sample = [d for d in dialogues if d.language == "en"][::40]
    for dialogue in sample:
        task = tasks[dialogue.scenario.public["setting"]]
        played = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=0, scenario=dialogue)
        assert DUO.check(DUO.from_dialogue(played)) == []


def test_turns_left_counts_the_messages_left_not_the_safety_net():
    task = make("openchat-ed-v0", utterances=4)
    task.reset(seed=1)
    assert task.observe("user").turns_left == 4
    task.step(actions.Say(text="I got a new job today."), "user")
    assert task.observe("bot").turns_left == 3 and task.observe("user").turns_left == 3
