"""Export: duologue's jsonl plus each corpus's own format, with questionnaire and rating-job answers on board."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from duologue.agents import make_agent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus, read_dialogues
from duologue.tasks import CORPUS_FORMATS, corpus_format, make, specs
from duologue.web.export import JSONL_NAME, MANIFEST_NAME, export_folder, export_zip, formats_by_task
from duologue.web.questionnaires import forms_for, with_ratings

TASK_IDS = ("casino-v0", "openchat-ed-v0", "openchat-wow-v0", "craigslist-v0", "mutualfriends-v0")
RATERS = ("rater-1", "rater-2", "rater-3")
RATER_SCORES = {"rater-1": 3, "rater-2": 4, "rater-3": 4}


def _platform_dialogue(task_id: str, seed: int, *, raters=RATERS) -> Dialogue:
    """A dialogue as the platform stores it: people in the human seats, their answers and raters' answers attached."""
    task = make(task_id)
    dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)
    parties = []
    for index, party in enumerate(dialogue.parties):
        if party.role == "system":  # open chat: the bot stays a bot
            parties.append(party)
        else:
            parties.append(party.model_copy(update={"kind": "human", "agent": None, "participant_id": f"{task_id}-P{index}"}))
    dialogue = dialogue.model_copy(update={"id": f"{task_id}-{seed}", "parties": parties})
    for party in dialogue.parties:
        if party.kind != "human":
            continue
        for form in forms_for(dialogue, "party", party.id):
            answers = {f.key: (2 if party is parties[0] else 5) for f in form.fields}
            dialogue = with_ratings(dialogue, form.ratings(answers))
    for rater in raters:
        for form in forms_for(dialogue, "third_party", rater):
            dialogue = with_ratings(dialogue, form.ratings({f.key: RATER_SCORES[rater] for f in form.fields}))
    return Dialogue.model_validate(dialogue.model_dump())  # as stored and loaded again


@pytest.fixture(scope="module")
def collected() -> list[Dialogue]:
    dialogues = [_platform_dialogue(task_id, seed) for task_id in TASK_IDS for seed in (1, 2)]
    dialogues.append(_platform_dialogue("openchat-ed-v0", 3, raters=()))  # not rated by third parties yet
    return dialogues


@pytest.fixture(scope="module")
def exported(collected, tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("export")
    return out, export_folder(collected, out)


def _by_id(dialogues):
    return {d.id: d for d in dialogues}


def test_layout_and_manifest(exported, collected):
    out, report = exported
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        JSONL_NAME,
        MANIFEST_NAME,
        "native/casino/casino.json",
        "native/craigslist/craigslist.json",
        "native/duo/ed/en/openchat-ed-v0-1.json",
        "native/duo/ed/en/openchat-ed-v0-2.json",
        "native/duo/ed/en/openchat-ed-v0-3.json",
        "native/duo/wow/en/openchat-wow-v0-1.json",
        "native/duo/wow/en/openchat-wow-v0-2.json",
        "native/mutualfriends/mutualfriends.json",
    ]
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert manifest == report.to_json()
    assert manifest["dialogues"] == len(collected)
    assert manifest["per_task"] == {"casino-v0": 2, "craigslist-v0": 2, "mutualfriends-v0": 2, "openchat-ed-v0": 3, "openchat-wow-v0": 2}
    assert manifest["ratings"] == sum(len(d.ratings) for d in collected)
    assert {name: n["dialogues"] for name, n in manifest["native"].items()} == {"casino": 2, "craigslist": 2, "mutualfriends": 2, "duo": 5}


def test_jsonl_keeps_everything(exported, collected):
    out, _ = exported
    back = read_dialogues(out / JSONL_NAME).dialogues
    assert [d.id for d in back] == [d.id for d in collected]
    assert back == collected


def test_casino_export_carries_satisfaction_and_likeness_in_outcomes(exported, collected):
    out, _ = exported
    records = json.loads((out / "native/casino/casino.json").read_text())
    stored = _by_id(collected)
    assert [r["dialogue_id"] for r in records] == ["casino-v0-1", "casino-v0-2"]
    for record in records:
        first, second = stored[record["dialogue_id"]].parties
        assert record["participant_info"][first.id]["outcomes"]["satisfaction"] == "Slightly dissatisfied"
        assert record["participant_info"][first.id]["outcomes"]["opponent_likeness"] == "Slightly dislike"
        assert record["participant_info"][second.id]["outcomes"]["satisfaction"] == "Extremely satisfied"
        assert record["participant_info"][second.id]["outcomes"]["opponent_likeness"] == "Extremely like"
        assert isinstance(record["participant_info"][first.id]["outcomes"]["points_scored"], int)


def test_duo_export_carries_user_and_third_party_evaluations(exported):
    out, _ = exported
    record = json.loads((out / "native/duo/ed/en/openchat-ed-v0-1.json").read_text())
    assert record["subjective_evaluation"] == {"preference": 2.0, "stylistic_similarity": 2.0, "consistency": 2.0, "empathy": 2.0}
    objective = record["objective_evaluation"]
    for item in ("preference", "stylistic_similarity", "consistency", "empathy"):
        assert objective[f"{item}_scores"] == [3.0, 4.0, 4.0]
        assert objective[item] == 3.67  # the raters' mean, rounded as in DUO's files
    wow = json.loads((out / "native/duo/wow/en/openchat-wow-v0-2.json").read_text())
    assert list(wow["subjective_evaluation"]) == ["preference", "stylistic_similarity", "consistency", "engagingness"]
    assert wow["objective_evaluation"]["engagingness_scores"] == [3.0, 4.0, 4.0]
    unrated = json.loads((out / "native/duo/ed/en/openchat-ed-v0-3.json").read_text())
    assert "objective_evaluation" not in unrated
    assert unrated["subjective_evaluation"]["empathy"] == 2.0


@pytest.mark.parametrize("corpus", ["casino", "craigslist", "mutualfriends", "duo"])
def test_native_files_pass_the_format_checks_and_read_back(exported, collected, corpus):
    out, _ = exported
    fmt = corpus_format(corpus)
    folder = out / "native" / corpus
    for path in folder.rglob("*.json"):
        data = json.loads(path.read_text())
        for record in data if isinstance(data, list) else [data]:
            assert fmt.check(record) == [], (path, fmt.record_id(record))
    result = read_corpus(fmt, folder)
    assert result.problems == [] and result.invalid == 0
    stored = _by_id(collected)
    assert {d.id for d in result.dialogues} == {d.id for d in collected if d.task == fmt.task}
    for dialogue in result.dialogues:
        original = stored[dialogue.id]
        assert [m.text for m in dialogue.messages()] == [m.text for m in original.messages()]
        if corpus in ("casino", "duo"):  # the formats with a place for ratings give them all back
            carried = sorted((r.rater_kind, r.criterion, r.value) for r in dialogue.ratings)
            assert carried == sorted((r.rater_kind, r.criterion, r.value) for r in original.ratings)


def test_what_native_formats_cannot_carry_is_listed_and_kept_in_jsonl(exported, collected):
    out, report = exported
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    for corpus in ("craigslist", "mutualfriends"):
        assert manifest["native"][corpus]["not_in_native"] == {
            "party:cooperation": 4,
            "party:human_likeness": 4,
            "third_party:cooperation": 12,
            "third_party:human_likeness": 12,
        }
    assert manifest["native"]["casino"]["not_in_native"] == {}
    assert manifest["native"]["duo"]["not_in_native"] == {}
    back = _by_id(read_dialogues(out / JSONL_NAME).dialogues)
    cocoa = back["craigslist-v0-1"]
    assert {(r.rater_kind, r.criterion) for r in cocoa.ratings} == {
        ("party", "human_likeness"),
        ("party", "cooperation"),
        ("third_party", "human_likeness"),
        ("third_party", "cooperation"),
    }


def test_third_party_ratings_of_casino_are_reported_as_jsonl_only(tmp_path):
    from duologue.core.schema import Rating

    dialogue = _platform_dialogue("casino-v0", 5)
    extra = Rating(rater_kind="third_party", rater_id="r", target=None, criterion="satisfaction", value=4)
    report = export_folder([with_ratings(dialogue, [extra])], tmp_path)
    assert report.native["casino"].not_in_native == {"third_party:satisfaction": 1}


def test_a_dialogue_its_format_cannot_hold_is_skipped_and_kept_in_jsonl(tmp_path, collected):
    silent = _platform_dialogue("openchat-ed-v0", 9).model_copy(update={"id": "silent", "events": []})
    report = export_folder([silent, *[d for d in collected if d.task == "openchat"]], tmp_path)
    (skipped,) = report.native["duo"].skipped
    assert skipped["dialogue"] == "silent" and any("no messages" in p for p in skipped["problems"])
    assert report.native["duo"].dialogues == 5
    assert not list((tmp_path / "native/duo").rglob("silent.json"))
    assert "silent" in {d.id for d in read_dialogues(tmp_path / JSONL_NAME).dialogues}
    assert read_corpus(corpus_format("duo"), tmp_path / "native/duo").problems == []
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert manifest["native"]["duo"]["skipped"][0]["dialogue"] == "silent"
    assert manifest["native"]["duo"]["not_in_native"]["party:empathy"] == 1  # the skipped one's answers


def test_a_task_without_a_corpus_format_stays_in_jsonl(tmp_path, monkeypatch, collected):
    monkeypatch.delitem(CORPUS_FORMATS, "mutualfriends")
    report = export_folder(collected, tmp_path)
    assert sorted(report.without_format) == ["mutualfriends-v0-1", "mutualfriends-v0-2"]
    assert "mutualfriends" not in report.native
    assert not (tmp_path / "native/mutualfriends").exists()


def test_zip_holds_the_same_files_as_the_folder(exported, collected):
    out, _ = exported
    archive = zipfile.ZipFile(io.BytesIO(export_zip(collected)))
    folder_files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted(archive.namelist()) == folder_files
    for name in folder_files:
        assert archive.read(name) == (out / name).read_bytes(), name


def test_zip_extracts_to_readable_corpora(tmp_path, collected):
    zipfile.ZipFile(io.BytesIO(export_zip(collected))).extractall(tmp_path)
    assert len(read_corpus(corpus_format("casino"), tmp_path / "native/casino").dialogues) == 2
    assert len(read_corpus(corpus_format("duo"), tmp_path / "native/duo").dialogues) == 5


def test_an_empty_export_still_has_its_jsonl_and_manifest(tmp_path):
    report = export_folder([], tmp_path)
    assert report.dialogues == 0 and report.native == {}
    assert (tmp_path / JSONL_NAME).read_bytes() == b""
    assert json.loads((tmp_path / MANIFEST_NAME).read_text())["dialogues"] == 0
    assert zipfile.ZipFile(io.BytesIO(export_zip([]))).namelist() == [JSONL_NAME, MANIFEST_NAME]


def test_corpus_dialogues_export_back_to_their_own_records(tmp_path, fixtures):
    """Re-exporting dialogues read from a corpus gives the corpus's records back exactly."""
    fmt = corpus_format("casino")
    source = fixtures / "casino" / "casino_sample.json"
    dialogues = read_corpus(fmt, source).dialogues
    export_folder(dialogues, tmp_path)
    assert record_differences(json.loads(source.read_text()), json.loads((tmp_path / "native/casino/casino.json").read_text())) == []


def test_every_task_family_with_a_corpus_has_its_writer():
    """The writer of each family is the corpus format its tasks' specs name."""
    found = {family: fmt.name for family, fmt in formats_by_task().items()}
    expected = {task_spec.family: task_spec.corpus for task_spec in specs() if task_spec.corpus is not None}
    assert expected and {family: found.get(family) for family in expected} == expected


@pytest.mark.corpus
@pytest.mark.parametrize("corpus, relative", [("casino", "casino/split/casino_valid.json"), ("duo", "duo/ed/en")])
def test_real_corpus_dialogues_export_back_to_their_own_files(tmp_path, corpus_path, corpus, relative):
    """The export writes real corpus dialogues back exactly as the published files hold them."""
    fmt = corpus_format(corpus)
    source = corpus_path(relative)
    dialogues = read_corpus(fmt, source).dialogues
    report = export_folder(dialogues, tmp_path)
    assert report.native[corpus].skipped == [] and report.native[corpus].not_in_native == {}
    if corpus == "casino":
        written = json.loads((tmp_path / "native/casino/casino.json").read_text())
        assert record_differences(json.loads(source.read_text()), written) == []
    else:
        for path in sorted(source.glob("*.json")):
            written = tmp_path / "native/duo/ed/en" / path.name
            assert record_differences(json.loads(path.read_text()), json.loads(written.read_text())) == [], path.name
