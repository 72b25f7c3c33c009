"""Studies as data: the example file, defaults for every task, and clear errors for mistakes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from duologue.tasks import TASKS
from duologue.web.questionnaires import get_questionnaire
from duologue.web.study import Scenarios, ScenarioPool, Study, StudyError, default_studies, load_studies

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_study_file_loads_and_documents_every_field():
    studies = load_studies(ROOT / "study.example.yaml")
    assert [s.id for s in studies] == ["casino-pilot", "duo-ed"]
    text = (ROOT / "study.example.yaml").read_text()
    for name in [*Study.model_fields, *Scenarios.model_fields]:
        assert f"{name}:" in text, f"study.example.yaml does not document `{name}`"
    for study in studies:
        for name in (study.questionnaire, study.rating_questionnaire):
            if name:
                get_questionnaire(name)


def test_every_registered_task_has_a_default_study_with_its_rule_bot():
    studies = default_studies()
    assert sorted(s.task for s in studies) == sorted(TASKS)
    for study in studies:
        assert any(p.kind == "bot" and p.agent == "rule" for p in study.partners)
        assert study.allows_humans


@pytest.mark.parametrize(
    "text, words",
    [
        ("id: a\ntask: chess-v0\n", "unknown task"),
        ("id: a\ntask: casino-v0\npartner: []\n", "partner"),
        ("id: a b\ntask: casino-v0\n", "id"),
        ("id: a\ntask: casino-v0\npartners: []\n", "at least one partner"),
        ("id: a\ntask: casino-v0\nscenarios: {source: corpus}\n", "scenarios.path"),
        ("studies: [{id: a, task: casino-v0}, {id: a, task: casino-v0}]\n", "unique"),
        ("- just\n- a list\n", "study"),
        ("id: [unclosed\n", "not valid YAML"),
    ],
)
def test_study_mistakes_are_named(tmp_path, text, words):
    path = tmp_path / "study.yaml"
    path.write_text(text)
    with pytest.raises(StudyError) as error:
        load_studies(path)
    assert words in str(error.value)


def test_a_missing_study_file_is_a_clear_error(tmp_path):
    with pytest.raises(StudyError, match="study.yaml"):
        load_studies(tmp_path / "study.yaml")


def test_a_scenario_pool_fills_the_least_used_scenario_and_stops_at_the_quota():
    study = Study(id="s", task="casino-v0", scenarios=Scenarios(pool=3, seed=10), per_scenario=2)
    pool = ScenarioPool(study)
    counts = {("seed:10", "bot:rule"): 2, ("seed:11", "bot:rule"): 1}
    key, scenario, seed = pool.choose(counts, "bot:rule", random.Random(0))
    assert key == "seed:12" and scenario is None and seed == 12
    full = {(k, "bot:rule"): 2 for k in pool.keys()}
    assert pool.choose(full, "bot:rule", random.Random(0)) is None
    assert pool.choose(full, "human-human", random.Random(0)) is not None  # quotas are per partner type


def test_corpus_scenarios_replay_real_records(fixtures):
    folder = fixtures / "casino"
    files = sorted(p for p in folder.glob("*.json") if "broken" not in p.name) if folder.exists() else []
    if not files:
        pytest.skip("no CaSiNo fixture file")
    study = Study(id="c", task="casino-v0", scenarios=Scenarios(source="corpus", corpus="casino", path=files[0], limit=2))
    pool = ScenarioPool(study)
    assert len(pool.keys()) >= 1 and all(k.startswith("corpus:") for k in pool.keys())
    key, scenario, _ = pool.choose({}, "bot:rule", random.Random(1))
    assert scenario is not None and scenario.private
