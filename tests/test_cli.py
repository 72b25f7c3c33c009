"""The `duologue` command: every user mistake gives a message and a non-zero exit, never a traceback."""

import json
from pathlib import Path

import pytest

from typer.testing import CliRunner

from duologue.cli import app

runner = CliRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def test_schema_prints_the_dialogue_json_schema(tmp_path: Path):
    result = run("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "Dialogue"
    out = tmp_path / "s.json"
    assert run("schema", "--out", str(out)).exit_code == 0
    assert json.loads(out.read_text())["title"] == "Dialogue"


def test_unknown_corpus_suggests_a_name(tmp_path: Path):
    (tmp_path / "x.json").write_text("[]")
    result = run("data", "validate", "casno", str(tmp_path / "x.json"))
    assert result.exit_code == 2
    assert "Did you mean 'casino'" in result.stderr
    assert "Traceback" not in result.output


def test_missing_path_and_empty_folder_are_clean_errors(tmp_path: Path):
    result = run("data", "stats", "duo", str(tmp_path / "nope"))
    assert result.exit_code == 2 and "no such file or folder" in result.stderr
    result = run("data", "stats", "duo", str(tmp_path))
    assert result.exit_code == 2 and "no .json, .jsonl or .parquet files" in result.stderr


def test_play_then_report(coins, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    result = run("play", "--task", coins, "--agents", "random", "--agents", "random", "-n", "20", "--workers", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 20
    assert "agreement" in result.stdout
    result = run("report", str(out), "--json")
    assert result.exit_code == 0
    [group] = json.loads(result.stdout)
    assert group["episodes"] == 20 and group["task"] == coins
    again = run("play", "--task", coins, "--agents", "random", "-n", "25", "--out", str(out))
    assert again.exit_code == 0 and "resumed: 20" in again.stderr
    assert len(out.read_text().splitlines()) == 25


def test_report_rates_the_agents_of_self_play_runs(tmp_path: Path):
    """Rule beats random at CaSiNo from either seat, so its rating must come out above random's."""
    out = tmp_path / "casino.jsonl"
    for first, second in (("rule", "random"), ("random", "rule")):
        assert run("play", "--task", "casino-v0", "--agents", first, "--agents", second, "-n", "15", "--out", str(out)).exit_code == 0
    result = run("report", str(out), "--ratings", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert [g["episodes"] for g in payload["metrics"]] == [15, 15]
    pooled = [b for b in payload["ratings"] if b["method"] == "bradley-terry" and b["role"] is None]
    assert pooled, [(b["method"], b["role"]) for b in payload["ratings"]]
    rating = {row["name"]: row["rating"] for row in pooled[0]["rows"]}
    assert rating["rule"] > rating["random"]
    table = run("report", str(out), "--ratings")
    assert table.exit_code == 0 and "Bradley-Terry" in table.stdout


def test_play_rejects_unknown_agents_and_tasks(coins):
    result = run("play", "--task", coins, "--agents", "randm", "-n", "1")
    assert result.exit_code == 2 and "Did you mean 'random'" in result.stderr
    result = run("play", "--task", "coins-v1", "--agents", "random", "-n", "1")
    assert result.exit_code == 2 and "Did you mean 'coins-v0'" in result.stderr


def test_report_on_a_corpus_file_is_a_clean_error(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "task": "casino", "parties": [{"id": "a", "kind": "human"}, {"id": "b", "kind": "human"}]}) + "\n")
    result = run("report", str(path))
    assert result.exit_code == 2 and "not played by duologue" in result.stderr


def test_terminal_chat_shows_the_private_view_and_refuses_illegal_moves(coins, tmp_path: Path):
    out = tmp_path / "chat.jsonl"
    typed = "hello there\n/offer 99\n/bogus\n" + "/accept\n/quit\n" * 20
    result = run("chat", "--task", coins, "--vs", "random", "--seed", "4", "--out", str(out), input=typed)
    assert result.exit_code == 0, result.output
    assert "private (only you see this)" in result.stdout and "lucky" in result.stdout
    assert "/offer is not a move you can make now" in result.stdout or "99 is greater than the maximum of 10" in result.stdout
    assert result.stdout.count("private (only you see this)") == 1
    assert "/bogus is not a move you can make now" in result.stdout
    dialogue = json.loads(out.read_text())
    assert dialogue["parties"][0]["kind"] == "human"
    assert dialogue["events"][0] == {**dialogue["events"][0], "kind": "message", "text": "hello there"}


def test_task_options_on_the_command_line(tmp_path: Path):
    out = tmp_path / "p.jsonl"
    result = run("play", "--task", "casino-v0", "--agents", "random,random", "-n", "2", "-O", "max_turns=4", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert all(json.loads(line)["meta"]["max_turns"] == 4 for line in out.read_text().splitlines())
    result = run("play", "--task", "casino-v0", "--agents", "random", "-n", "1", "-O", "max_turn=4")
    assert result.exit_code == 2 and "Did you mean 'max_turns'" in result.stderr
    result = run("play", "--task", "casino-v0", "--agents", "random", "-n", "1", "-O", "max_turns")
    assert result.exit_code == 2 and "write name=value" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["play", "--task", "dealornodeal-v0", "--agents", "rl:utility", "--agents", "rule", "-n", "1"],
        ["tournament", "--task", "dealornodeal-v0", "--agents", "rule", "--agents", "rl:utility", "-n", "1"],
        ["chat", "--task", "dealornodeal-v0", "--vs", "rl:utility"],
        ["play", "--task", "casino-v0", "--agents", "hybrid:rule+rule", "--agents", "rule", "-n", "1"],
        ["play", "--task", "casino-v0", "--agents", "modular:/no/such/corpus", "--agents", "rule", "-n", "1"],
    ],
)
def test_an_agent_that_cannot_play_the_task_is_refused_before_any_episode(command):
    """A real kind with an argument the task cannot use (no policy trained for it, an unknown writer)
    is found when the agent is first reset; it is probed then, not left to fail inside a run."""
    result = run(*command)
    assert result.exit_code != 0 and "cannot play" in result.stderr and "Traceback" not in result.output, result.output


def test_output_paths_are_checked_before_the_work_and_never_end_in_a_traceback(coins, tmp_path: Path):
    """A folder in the way, a file in the way or a foreign file: refused up front, nothing played first."""
    blocker = tmp_path / "afile"
    blocker.write_text("")
    (tmp_path / "dir.jsonl").mkdir()
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("my own notes\n")
    cases = [
        (["schema", "--out", str(blocker / "x.json")], "is a file, not a folder"),
        (["schema", "--out", str(tmp_path / "dir.jsonl")], "is a folder"),
        (["play", "--task", coins, "--agents", "random", "-n", "1", "--out", str(blocker / "x.jsonl")], "is a file, not a folder"),
        (["play", "--task", coins, "--agents", "random", "-n", "1", "--out", str(foreign)], "notes.jsonl:1: not JSON"),
        (["chat", "--task", coins, "--vs", "random", "--out", str(tmp_path / "dir.jsonl")], "is a folder"),
        (["chat", "--task", coins, "--vs", "random", "--out", str(tmp_path / "chat.txt")], "write a .jsonl file"),
        (["tournament", "--task", "casino-v0", "--agents", "rule,random", "-n", "1", "--report", str(blocker / "r.html")], "is a file, not a folder"),
    ]
    for args, words in cases:
        result = run(*args, input="hello\n/quit\n")
        assert result.exit_code != 0 and words in result.stderr and "Traceback" not in result.output, (args, result.output)
        assert "private (only you see this)" not in result.stdout, "the game began before its output was checked"
    assert foreign.read_text() == "my own notes\n"


def test_a_file_that_cannot_be_read_is_named_when_the_rest_are_read(tmp_path: Path, corpus_path):
    """--skip-invalid reads what it can; a whole file it could not read is said, with why."""
    real = corpus_path("casino/split/casino_valid.json")
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.json").write_bytes(real.read_bytes())
    (folder / "b.json").write_bytes(real.read_bytes()[:5000])
    result = run("data", "convert", "casino", str(folder), "--skip-invalid", "--out", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 0 and "left out" in result.stderr and "b.json: malformed JSON" in result.stderr
    checked = run("data", "validate", "casino", str(folder / "b.json"))
    assert checked.exit_code == 1 and "1 could not be read" in checked.stderr
    replayed = run("replay", "casino", str(folder / "b.json"), "--agent", "rule")
    assert replayed.exit_code == 2 and "b.json: malformed JSON" in replayed.stderr


def test_training_refuses_a_partner_it_cannot_play_before_any_episode(tmp_path: Path):
    pytest.importorskip("torch")
    result = run("train", "policy", "--task", "casino-v0", "--episodes", "2", "--partner", "nope", "-o", str(tmp_path / "p.npz"), "--run-dir", str(tmp_path / "run"))
    assert result.exit_code == 2 and "--partner: unknown agent" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "command, words",
    [
        (["tournament", "--task", "casino-v0", "--agents", "rule,random", "-n", "1", "--max-turns", "0"], "max_turns must be"),
        (["analyze", "dialogues", "FIXTURE", "--corpus", "casino", "--report", "x.txt"], "the report is an HTML file"),
        (["train", "policy", "--task", "casino-v0", "--episodes", "0", "--lr", "-1"], "--lr: Input should be greater than 0"),
    ],
)
def test_options_are_checked_before_the_work(command, words, fixtures):
    if command[0] == "train":
        pytest.importorskip("torch")
    command = [str(fixtures / "casino" / "casino_sample.json") if part == "FIXTURE" else part for part in command]
    result = run(*command)
    assert result.exit_code != 0 and words in result.output and "Traceback" not in result.output and "errors.pydantic.dev" not in result.output, result.output


def test_a_field_named_twice_in_by_groups_once(fixtures):
    result = run("analyze", "dialogues", str(fixtures / "casino" / "casino_sample.json"), "--corpus", "casino", "--by", "task,task", "--bootstrap", "0")
    assert result.exit_code == 0, result.output


def test_a_fault_in_the_tasks_own_code_ends_a_terminal_game_with_its_name_and_keeps_the_game(tmp_path: Path, monkeypatch):
    from duologue import tasks
    from toy_task import CoinSplit

    class RaisingJudge(CoinSplit):
        spec = CoinSplit.spec.model_copy(update={"id": "raising-coins-v0"})

        def judge(self, dialogue):
            raise KeyError("2")

    monkeypatch.setitem(tasks.TASKS, "raising-coins-v0", RaisingJudge)
    out = tmp_path / "chat.jsonl"
    result = run("chat", "--task", "raising-coins-v0", "--vs", "random", "--seed", "3", "--out", str(out), input="/leave\n")
    assert result.exit_code == 1 and "the game stopped: KeyError" in result.stderr and "Traceback" not in result.output, result.output
    assert len(out.read_text().splitlines()) == 1


def test_a_task_whose_default_max_turns_is_not_a_number_is_named():
    from toy_task import CoinSplit

    class NoLimit(CoinSplit):
        default_max_turns = None

    with pytest.raises(ValueError, match="NoLimit.default_max_turns must be a whole number"):
        NoLimit()


def test_tables_printed_to_a_pipe_keep_their_cells_whole(monkeypatch):
    """`duologue tasks | grep casino` must see the task ids, not `casino-…` squeezed into 80 columns."""
    from duologue.tasks import spec, task_ids

    monkeypatch.delenv("COLUMNS", raising=False)
    result = run("tasks")
    assert result.exit_code == 0, result.output
    for task_id in task_ids():
        assert any(task_id in line and spec(task_id).title in line for line in result.output.splitlines()), task_id


def test_listing_commands_print_json():
    from duologue.tasks import task_ids

    tasks = run("tasks", "--json")
    assert tasks.exit_code == 0 and [t["id"] for t in json.loads(tasks.output)] == list(task_ids())
    corpora = run("data", "corpora", "--json")
    assert corpora.exit_code == 0 and {"casino", "duologue"} <= {c["name"] for c in json.loads(corpora.output)}


def test_a_terminal_game_ends_with_scores_by_who_not_a_dict_of_party_ids():
    result = run("chat", "--task", "casino-v0", "--vs", "rule", "--seed", "4", input="hello, I need water most\n/walk-away\n")
    assert result.exit_code == 0, result.output
    end = result.output.split("the end", 1)[1]
    assert "your score: 5" in end and "partner's score: 5" in end and "no agreement" in end
    assert "mturk_agent" not in result.output and "{" not in end, result.output
