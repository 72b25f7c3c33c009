"""`duologue analyze dialogues` and the tasks' own analyses (found through their specs): outputs, reports and clean failures."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.data.io import read_corpus, write_dialogues
from duologue.analysis.analyses import TaskAnalysis
from duologue.tasks import corpus_format

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["analyze", *args])


def test_casino_json_has_the_fixture_figures(fixtures):
    result = run("casino", str(fixtures / "casino" / "casino_sample.json"), "--format", "json", "--bootstrap", "50")
    assert result.exit_code == 0, result.output
    analysis = json.loads(result.stdout)
    assert analysis["points"]["mean"] == pytest.approx(15.0)
    assert analysis["walk_aways"]["walk_aways"] == 1
    assert {(c["x"], c["y"]) for c in analysis["correlations"]} == {("score", "satisfaction"), ("score", "opponent_likeness"), ("satisfaction", "opponent_likeness")}


def test_casino_table_output(fixtures):
    result = run("casino", str(fixtures / "casino" / "casino_sample.json"), "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    assert "Pearson correlations per participant" in result.stdout and "self-need" in result.stdout


def test_duo_report_and_figures(fixtures, tmp_path):
    report = tmp_path / "duo.html"
    result = run("duo", str(fixtures / "duo"), "--report", str(report), "--figures", str(tmp_path / "png"), "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    html = report.read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') >= 4
    assert list((tmp_path / "png").glob("*.png"))
    assert "Spearman correlations" in result.stdout


def test_dialogues_on_our_own_jsonl(fixtures, tmp_path):
    dialogues = read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json").dialogues
    path = tmp_path / "played.jsonl"
    write_dialogues(dialogues, path)
    result = run("dialogues", str(path), "--format", "json", "--bootstrap", "0", "--by", "task,split")
    assert result.exit_code == 0, result.output
    analysis = json.loads(result.stdout)
    assert analysis["by"] == ["task", "split"] and analysis["dialogues"] == 4


def test_dialogues_reads_a_native_corpus_when_told(fixtures):
    result = run("dialogues", str(fixtures / "duo"), "--corpus", "duo", "--bootstrap", "0", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["dialogues"] == 5


@pytest.mark.parametrize("command", ["duo", "casino", "dialogues"])
def test_missing_path_fails_cleanly(command, tmp_path):
    result = run(command, str(tmp_path / "nowhere"))
    assert result.exit_code == 1
    assert "no such file or folder" in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


def test_wrong_corpus_fails_cleanly(fixtures):
    result = run("casino", str(fixtures / "duo"))
    assert result.exit_code == 1
    assert "nothing was read" in result.output and "Traceback" not in result.output


def test_unknown_grouping_field_fails_cleanly(fixtures):
    result = run("dialogues", str(fixtures / "duo"), "--corpus", "duo", "--by", "colour")
    assert result.exit_code == 1 and "cannot group by colour" in result.output


def test_report_must_be_html(fixtures, tmp_path):
    result = run("casino", str(fixtures / "casino" / "casino_sample.json"), "--bootstrap", "0", "--report", str(tmp_path / "r.pdf"))
    assert result.exit_code == 1 and "HTML" in result.output


def test_real_duo_reproduces_the_papers_spearman(corpus_path):
    result = run("duo", str(corpus_path("duo")), "--format", "json", "--bootstrap", "0", "--by", "")
    assert result.exit_code == 0, result.output
    found = {(c["x"], c["y"], c["group"].get("language"), c["group"].get("setting")): c["r"] for c in json.loads(result.stdout)["correlations"] if len(c["group"]) == 2}
    assert round(found[("party:stylistic_similarity", "party:preference", "en", "ed")], 2) == 0.75
    assert round(found[("party:stylistic_similarity", "party:preference", "en", "wow")], 2) == 0.67


# --------------------------------------------------------------------------- a plug-in task's own analysis


class Counted(TaskAnalysis):
    """A plug-in's analysis: only how many messages its dialogues hold."""

    messages: int

    def tables(self):
        from rich.table import Table

        table = Table(title="Plug-in count")
        table.add_column("plug-in messages")
        table.add_row(str(self.messages))
        return [table]


def count_messages(dialogues, *, by=None, bootstrap=0, seed=0):
    """Count the messages of a plug-in corpus."""
    from duologue.core.schema import Message
    from duologue.data.stats import corpus_statistics

    return Counted(dialogues=len(dialogues), stats=corpus_statistics(dialogues, lambda d: "all"), messages=sum(isinstance(e, Message) for d in dialogues for e in d.events))


def test_a_plug_in_tasks_analysis_is_a_command_found_through_its_spec(coins, fixtures, monkeypatch):
    from duologue import tasks
    from toy_task import CoinSplit

    class CoinsWithCorpus(CoinSplit):
        spec = CoinSplit.spec.model_copy(update={"id": "coinlog-v0", "corpus": "coinlog", "analysis": f"{__name__}:count_messages"})

    monkeypatch.setitem(tasks.TASKS, "coinlog-v0", CoinsWithCorpus)
    monkeypatch.setitem(tasks.CORPUS_FORMATS, "coinlog", tasks.CORPUS_FORMATS["duo"])  # its files happen to look like DUO's
    listed = run("--help")
    assert "coinlog" in listed.stdout and "Count the messages" in listed.stdout
    result = run("coinlog", str(fixtures / "duo"), "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["dialogues"] == 5 and payload["messages"] == 23
    table = run("coinlog", str(fixtures / "duo"))
    assert table.exit_code == 0 and "plug-in messages" in table.stdout and "23" in table.stdout
    assert run("nosuchcorpus", str(fixtures / "duo")).exit_code == 2
