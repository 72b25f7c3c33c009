"""A study is checked whole before it is accepted: each kind of bad setting is refused with its
field named, by `parse_studies` (so `serve --study`) and by the admin page, and a good one passes."""

from __future__ import annotations

import pytest
import yaml

from duologue.web.study import Partner, Study, StudyError, parse_studies
from duologue.web.study_check import study_problems

from web.webtest_helpers import ADMIN

GOOD = "id: fine\ntask: casino-v0\npartners: [{kind: human}, {kind: bot, agent: rule}]\nquotas: {bot:rule: 5}\n"


@pytest.mark.parametrize(
    "extra, field, words",
    [
        ("task_options: {colour: blue}\n", "task_options.colour", "colour"),
        ("partners: [{kind: bot, agent: telepath}]\n", "partners.0.agent", "cannot be built"),
        ("partners: [{kind: bot, agent: 'hybrid:rule+rule'}]\n", "partners.0.agent", "unknown writer"),
        ("task: dealornodeal-v0\npartners: [{kind: bot, agent: 'rl:utility'}]\nquotas: {}\n", "partners.0.agent", "no policy of that name"),
        ("quotas: {bot:random: 3}\n", "quotas.bot:random", "no partner of that kind"),
        ("scenarios: {source: corpus, corpus: casino, path: /nowhere/casino.json}\n", "scenarios.path", "does not exist"),
        ("scenarios: {source: corpus, corpus: klingon, path: .}\n", "scenarios.corpus", "unknown corpus"),
        ("questionnaire: no-such-form\n", "questionnaire", "unknown questionnaire"),
        ("human_party: referee\n", "human_party", "not a party"),
        ("scenarios: {pool: 100000000}\n", "scenarios.pool", "less than or equal to 10000"),  # every pairing looks at all of them
        ("scenarios: {pool: -1}\n", "scenarios.pool", "greater than or equal to 1"),
        ("bot_wait_seconds: .nan\n", "bot_wait_seconds", "finite"),
        ("time_limit_seconds: -1\n", "time_limit_seconds", "greater than 0"),
        ("quotas: {bot:rule: -2}\n", "quotas.bot:rule", "greater than or equal to 0"),
        ("task_options: {max_turns: -5}\n", "task_options.max_turns", "at least 1"),
        ("protocol: {consent: /nowhere/consent.txt}\n", "protocol.consent", "no such file"),
        ("protocol: {consent: task:consent, surveys: [no-such-survey]}\n", "protocol.surveys.0", "ships no"),
    ],
)
def test_each_kind_of_bad_setting_is_refused_with_its_field(extra, field, words):
    data = yaml.safe_load(GOOD)
    data.update(yaml.safe_load(extra))
    with pytest.raises(StudyError) as refused:
        parse_studies(data, source="s.yaml")
    message = str(refused.value)
    assert message.startswith("s.yaml: study 1 (fine): ") and f"{field}: " in message and words in message.lower(), message


def test_a_corpus_file_that_does_not_parse_is_refused(tmp_path):
    broken = tmp_path / "casino.json"
    broken.write_text("{ not json")
    data = {**yaml.safe_load(GOOD), "scenarios": {"source": "corpus", "corpus": "casino", "path": str(broken)}}
    with pytest.raises(StudyError, match="scenarios.path: .* cannot be read as casino"):
        parse_studies(data)


def test_a_good_study_passes_and_every_default_study_does():
    assert [s.id for s in parse_studies(yaml.safe_load(GOOD))] == ["fine"]
    from duologue.web.study import default_studies

    for study in default_studies():
        assert study_problems(study) == [], study.id


def test_several_problems_are_all_named_at_once():
    study = Study(id="many", task="casino-v0", partners=[Partner(kind="bot", agent="telepath")], quotas={"human-human": 1}, task_options={"colour": 1})
    fields = [problem.split(":", 1)[0] for problem in study_problems(study)]
    assert fields == ["task_options.colour", "quotas.human-human"]  # no agent is built without a task to build it for


def test_the_admin_page_refuses_a_bad_study_with_its_field_and_keeps_the_others(client):
    before = client.get("/admin/api/counts", headers={"X-Admin-Token": ADMIN}).status_code
    response = client.post("/admin/studies", data={"text": GOOD.replace("rule", "telepath")}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert response.status_code == 422 and "partners.1.agent" in response.text
    assert "fine" not in client.app.state.platform.studies
    good = client.post("/admin/studies", data={"text": GOOD}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert good.status_code == 303 and "fine" in client.app.state.platform.studies and before == 200


def test_the_admin_page_refuses_a_study_naming_a_missing_protocol_file(client):
    text = GOOD + "protocol: {instructions: /nowhere/instructions.txt}\n"
    response = client.post("/admin/studies", data={"text": text}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert response.status_code == 422 and "protocol.instructions" in response.text and "name only what the task ships" in response.text
    missing = GOOD + "protocol: {instructions: task:no-such-text}\n"
    response = client.post("/admin/studies", data={"text": missing}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert response.status_code == 422 and "protocol.instructions" in response.text and "ships no" in response.text
    assert "fine" not in client.app.state.platform.studies


def test_the_admin_page_names_no_server_file_for_anyone_with_a_link_to_read(client, tmp_path):
    """A consent text is shown to every visitor: on the admin page a study may name only what the
    task ships, so the web token cannot publish a file of the server (a --study file still can)."""
    secret = tmp_path / "secret.env"
    secret.write_text("DUOLOGUE_SECRET=hunter2\n")
    (tmp_path / "s.yaml").write_text("id: s\ntitle: S\nquestions: []\n")
    corpus = f"scenarios: {{source: corpus, corpus: casino, path: {secret}}}\n"
    for extra in (f"protocol: {{consent: {secret}}}\n", f"protocol: {{consent: task:consent, surveys: [{tmp_path / 's.yaml'}]}}\n", corpus):
        response = client.post("/admin/studies", data={"text": GOOD + extra}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
        assert response.status_code == 422 and "name only what the task ships" in response.text and "hunter2" not in response.text, response.text
        assert "fine" not in client.app.state.platform.studies
        assert client.get("/protocol/fine/consent?participant=x").status_code == 404
    values = "consent: {researcher: R, institution: I, contact: c@i.example, ethics_approval: E-1, duration: 5 minutes, pay: £1, bonus: none, data_use: D, withdrawal: W}\n"
    shipped = client.post("/admin/studies", data={"text": GOOD + "protocol: {consent: task:consent}\n" + values}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert shipped.status_code == 303 and "fine" in client.app.state.platform.studies


def test_a_study_file_that_is_not_text_is_refused_with_why(tmp_path):
    from duologue.web.study import load_studies

    binary = tmp_path / "study.yaml"
    binary.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(StudyError, match="not a text file"):
        load_studies(binary)
