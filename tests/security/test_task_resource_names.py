"""A `task:` name in a study's protocol names one file in the task's `protocol/` folder, nothing else.

The repro: a study added on the admin page with `consent: "task:../../../../x"` (or a survey
`task:../x`) published any `.txt` of the server (or parsed any `.yaml`) to anyone with the study
link. Such a name is refused with its field named, on the admin page, in a `--study` file, and
when a file is read; a link in the folder that points out of it is refused too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from duologue import cli
from duologue.tasks import spec
from duologue.web.app import create_app
from duologue.web import protocol
from duologue.web.protocol import ProtocolError, text
from duologue.web.study import StudyError, default_studies, parse_studies
from web.conftest import fast_settings
from web.webtest_helpers import ADMIN

SECRET = "the server's private words"
BASE = "id: leak\ntask: casino-v0\npartners: [{kind: bot}]\n"


@pytest.fixture
def secret_txt(tmp_path) -> Path:
    """A text file outside any task's folder, and its name relative to casino's protocol folder."""
    secret = tmp_path / "secret" / "private.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    (secret.parent / "private.yaml").write_text("id: x\ntitle: leaked\nitems: [{id: a, question: q, kind: text}]\n", encoding="utf-8")
    return secret


def _climb(secret: Path) -> str:
    """`../../…/secret/private` from casino's protocol folder (the suffix is added by the reader)."""
    folder = Path(str(spec("casino-v0").resource("protocol")))
    return os.path.relpath(secret.with_suffix(""), folder)


def _protocol_cases(secret: Path) -> list[tuple[dict, str]]:
    up = _climb(secret)
    return [
        ({"consent": f"task:{up}"}, "protocol.consent"),
        ({"instructions": f"task:{up}"}, "protocol.instructions"),
        ({"surveys": [f"task:{up}"]}, "protocol.surveys.0"),
        ({"surveys": ["about-you", up]}, "protocol.surveys.1"),  # a bare survey name is the task's own too
        ({"consent": f"task:{secret.with_suffix('')}"}, "protocol.consent"),  # absolute
        ({"consent": "task:C:consent"}, "protocol.consent"),  # a drive
        ({"consent": "task:..\\..\\consent"}, "protocol.consent"),  # the other separator
        ({"consent": "task:consent\x00"}, "protocol.consent"),
        ({"consent": "task:.."}, "protocol.consent"),
        ({"consent": "task:"}, "protocol.consent"),
    ]


def test_the_repro_read_the_file_outside_and_now_the_study_is_refused(secret_txt):
    up = _climb(secret_txt)
    with pytest.raises(ProtocolError):  # the reader itself refuses, whatever made the study
        text("casino-v0", f"task:{up}")
    for extra, field in _protocol_cases(secret_txt):
        data = {**yaml.safe_load(BASE), "protocol": extra}
        for check in (True, False):  # refused while parsing, before any file is read
            with pytest.raises(StudyError) as refused:
                parse_studies(data, source="s.yaml", check=check)
            message = str(refused.value)
            reasons = ("plain file name", "not a file name", "control character")
            assert f"{field}: " in message and any(reason in message for reason in reasons), message
            assert SECRET not in message


def test_the_admin_page_refuses_it_with_the_field_named(tmp_path, secret_txt):
    app = create_app(fast_settings(tmp_path), default_studies(bot_wait_seconds=0.1))
    with TestClient(app) as client:
        for extra, field in _protocol_cases(secret_txt)[:4]:
            text_ = BASE + yaml.safe_dump({"protocol": extra})
            page = client.post("/admin/studies", data={"text": text_}, headers={"X-Admin-Token": ADMIN, "Accept": "text/html"})
            assert page.status_code == 422, page.text[:300]
            assert field in page.text and SECRET not in page.text
            refused = client.post("/admin/studies", data={"text": text_}, headers={"X-Admin-Token": ADMIN})
            assert refused.status_code == 422 and field in refused.json()["detail"]
            assert "leak" not in app.state.platform.studies
            # nobody with a link reaches the file
            shown = client.get("/protocol/leak/consent", params={"participant": "p-1"})
            assert shown.status_code >= 400 and SECRET not in shown.text


def test_a_study_file_naming_it_is_refused_by_serve(tmp_path, secret_txt, monkeypatch):
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    runner = CliRunner()
    for extra, field in _protocol_cases(secret_txt)[:4]:
        study = tmp_path / "study.yaml"
        study.write_text(BASE + yaml.safe_dump({"protocol": extra}), encoding="utf-8")
        result = runner.invoke(cli.app, ["serve", "--study", str(study), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
        assert result.exit_code == 2, result.output
        flat = re.sub(r"\s+", " ", result.output)
        assert field in flat and "plain file name" in flat and "Traceback" not in result.output


def test_a_link_in_the_folder_that_points_out_is_refused(tmp_path, secret_txt):
    folder = tmp_path / "protocol"
    folder.mkdir()
    (folder / "consent.txt").write_text("I agree.", encoding="utf-8")
    (folder / "leak.txt").symlink_to(secret_txt)
    (folder / "alias.txt").symlink_to(folder / "consent.txt")  # a link that stays inside is fine
    assert protocol.task_file(folder, "consent.txt").read_text(encoding="utf-8") == "I agree."
    assert protocol.task_file(folder, "alias.txt").read_text(encoding="utf-8") == "I agree."
    with pytest.raises(ProtocolError, match="leads out of the task's protocol/ folder"):
        protocol.task_file(folder, "leak.txt")
    for bad in ("../secret/private.txt", str(secret_txt), "a/b.txt", "", "..", "x\x00.txt"):
        with pytest.raises(ProtocolError):
            protocol.task_file(folder, bad)


def test_every_name_the_tasks_ship_still_reads():
    from duologue.web.study_cli import builtin_studies

    shipped = [s for s in builtin_studies() if s.protocol is not None]
    assert shipped, "some task ships a protocol"
    for study in shipped:
        assert parse_studies({**study.model_dump(mode="json")}, source="shipped")
