"""`duologue serve`: prints where people go for each task, and refuses a broken study file cleanly."""

from __future__ import annotations

from typer.testing import CliRunner

from duologue import cli

runner = CliRunner()


def test_serve_prints_the_url_of_every_task_and_starts_uvicorn(monkeypatch, tmp_path):
    started = {}
    monkeypatch.setattr("uvicorn.run", lambda app, host, port, **kw: started.update(app=app, host=host, port=port))
    result = runner.invoke(cli.app, ["serve", "--port", "8123", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 0, result.output
    assert started["host"] == "127.0.0.1" and started["port"] == 8123
    for study in ("casino", "craigslist", "mutualfriends", "openchat-ed", "openchat-wow"):
        assert f"http://localhost:8123/study/{study}" in result.output
    assert "/admin?token=" in result.output


def test_serve_with_a_study_file(monkeypatch, tmp_path):
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    study = tmp_path / "study.yaml"
    study.write_text("id: pilot\ntask: craigslist-v0\npartners: [{kind: bot}]\n")
    result = runner.invoke(cli.app, ["serve", "--study", str(study), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 0, result.output
    assert "/study/pilot" in result.output and "/study/casino" not in result.output


def test_serve_refuses_a_broken_study_file(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text("id: pilot\ntask: chess-v0\n")
    result = runner.invoke(cli.app, ["serve", "--study", str(study), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 2
    assert "unknown task" in result.output and "Traceback" not in result.output
