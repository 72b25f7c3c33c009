"""One way to name agents: every command reads `--agents` the same, in all three forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.arena.specs import AGENTS_FORMS, split_agent_specs
from duologue.cli import app

runner = CliRunner()


def test_commas_repeats_and_extra_words_give_the_same_specs_in_order():
    assert split_agent_specs(["rule,modular"]) == ["rule", "modular"]
    assert split_agent_specs(["rule", "modular"]) == ["rule", "modular"]
    assert split_agent_specs(["rule"], ["modular"]) == ["rule", "modular"]
    assert split_agent_specs(["rule,rule"]) == ["rule", "rule"], "a repeat seats the same agent twice"
    assert split_agent_specs([" rule , llm:openai/gpt-4o-mini,", ",random"]) == ["rule", "llm:openai/gpt-4o-mini", "random"]
    assert split_agent_specs(["", " , "]) == []


def seated(out: Path) -> list[list[str]]:
    return [list(json.loads(line)["meta"]["agents"].values()) for line in out.read_text().splitlines()]


@pytest.mark.parametrize(
    "agents",
    [["-a", "random", "-a", "rule"], ["-a", "random,rule"], ["--agents", "random", "rule"], ["--agents", "random,", "rule"]],
    ids=["repeated", "commas", "spaces", "mixed"],
)
def test_play_seats_the_same_two_agents_whichever_form_names_them(agents, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    result = runner.invoke(app, ["play", "-t", "casino-v0", *agents, "-n", "2", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert seated(out) == [["random", "rule"]] * 2


def test_play_with_one_spec_seats_it_twice_and_refuses_three(tmp_path: Path):
    out = tmp_path / "run.jsonl"
    assert runner.invoke(app, ["play", "-t", "casino-v0", "-a", "rule", "-n", "1", "-o", str(out)]).exit_code == 0
    assert seated(out) == [["rule", "rule"]]
    result = runner.invoke(app, ["play", "-t", "casino-v0", "-a", "rule,random", "random", "-n", "1"])
    assert result.exit_code == 2 and "give two agent specs" in result.stderr and "Traceback" not in result.output


def test_tournament_takes_the_space_separated_form_and_drops_repeats():
    result = runner.invoke(app, ["tournament", "-t", "casino-v0", "--agents", "rule", "random", "rule", "-n", "1", "--bootstrap", "10", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["agents"] == ["rule", "random"]


def test_chat_plays_against_one_bot_and_says_so_for_two():
    result = runner.invoke(app, ["chat", "-t", "casino-v0", "--vs", "rule,random"])
    assert result.exit_code == 2 and "one bot" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_help_names_every_form(command):
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "400", "TERM": "dumb"})
    assert result.exit_code == 0
    assert " ".join(AGENTS_FORMS.split()) in " ".join(result.stdout.split())
