"""Questionnaires as data: the shipped files, which apply where, answer checking, ratings, completion codes."""

from __future__ import annotations

import json
import re

import pytest

from duologue.core.schema import LIKERT_5, Dialogue, Party, Rating
from duologue.data.compare import record_differences
from duologue.tasks import TASKS, corpus_format, make
from duologue.tasks.casino import corpus as casino_corpus
from duologue.tasks.casino.rules import LIKENESS_LABELS, LIKENESS_SCALE, SATISFACTION_LABELS, SATISFACTION_SCALE
from duologue.web.questionnaires import (
    InvalidAnswers,
    Item,
    Questionnaire,
    QuestionnaireError,
    QuestionnaireForm,
    builtin_questionnaires,
    check_completion_code,
    coerce_answer,
    completion_code,
    forms_for,
    get_questionnaire,
    load_questionnaire,
    load_questionnaires,
    questionnaires_for,
    with_ratings,
)

FAMILIES = {make(task_id).family for task_id in TASKS}


def _casino_record(fixtures, dialogue_id: int) -> dict:
    records = json.loads((fixtures / "casino" / "casino_sample.json").read_text())
    return next(r for r in records if r["dialogue_id"] == dialogue_id)


def _duo_record(fixtures, relative: str) -> dict:
    return json.loads((fixtures / "duo" / relative).read_text())


def _two_humans(task: str, task_id: str, ids=("a", "b"), roles=(None, None)) -> Dialogue:
    parties = [Party(id=i, kind="human", role=r, participant_id=f"P-{i}") for i, r in zip(ids, roles, strict=True)]
    return Dialogue(id=f"d-{task_id}", task=task, parties=parties, meta={"task_id": task_id})


def _openchat(task_id: str) -> Dialogue:
    parties = [Party(id="user", kind="human", role="user", participant_id="P1"), Party(id="bot", kind="bot", role="system", agent="rule")]
    return Dialogue(id=f"d-{task_id}", task="openchat", parties=parties, meta={"task_id": task_id})


# --------------------------------------------------------------------------- the shipped files


def test_shipped_questionnaires_load_with_the_expected_ids():
    assert set(builtin_questionnaires()) == {"casino-post-negotiation", "duo-user", "duo-rater", "cocoa-user", "cocoa-rater"}


def test_every_item_names_only_registered_tasks_or_families():
    known = set(TASKS) | FAMILIES
    for questionnaire in builtin_questionnaires().values():
        for item in questionnaire.items:
            assert set(item.tasks) <= known, (questionnaire.id, item.id, item.tasks)


def test_casino_items_are_the_corpus_criteria_on_the_corpus_scales():
    items = {i.id: i for i in get_questionnaire("casino-post-negotiation").items}
    assert set(items) == set(casino_corpus.RATING_SCALES)
    assert items["satisfaction"].scale == SATISFACTION_SCALE
    assert items["opponent_likeness"].scale == LIKENESS_SCALE
    assert items["satisfaction"].options() == list(SATISFACTION_LABELS)
    assert items["opponent_likeness"].options() == list(LIKENESS_LABELS)
    assert items["satisfaction"].about == "dialogue" and items["opponent_likeness"].about == "partner"


@pytest.mark.parametrize("name, relative", [("duo-user", "ed/en/0000.json"), ("duo-rater", "ed/en/0000.json"), ("duo-user", "wow/en/1000.json"), ("duo-rater", "wow/en/1000.json")])
def test_duo_items_are_the_corpus_criteria_in_corpus_order(fixtures, name, relative):
    record = _duo_record(fixtures, relative)
    task_id = "openchat-ed-v0" if record["setting"] == "ed" else "openchat-wow-v0"
    respondent = "party" if name == "duo-user" else "third_party"
    role = "user" if respondent == "party" else None
    items = get_questionnaire(name).items_for(task_id, respondent, role)
    assert [i.id for i in items] == list(record["subjective_evaluation"])
    assert all(i.scale == LIKERT_5 and i.options() == [1, 2, 3, 4, 5] and i.value_type == "float" for i in items)


# --------------------------------------------------------------------------- which apply


@pytest.mark.parametrize(
    "task_id, respondent, role, expected",
    [
        ("casino-v0", "party", None, {"casino-post-negotiation": ["satisfaction", "opponent_likeness"]}),
        ("casino-v0", "third_party", None, {}),
        ("openchat-ed-v0", "party", "user", {"duo-user": ["preference", "stylistic_similarity", "consistency", "empathy"]}),
        ("openchat-wow-v0", "party", "user", {"duo-user": ["preference", "stylistic_similarity", "consistency", "engagingness"]}),
        ("openchat-ed-v0", "party", "system", {}),
        ("openchat-wow-v0", "third_party", None, {"duo-rater": ["preference", "stylistic_similarity", "consistency", "engagingness"]}),
        ("craigslist-v0", "party", "buyer", {"cocoa-user": ["human_likeness", "cooperation"]}),
        ("mutualfriends-v0", "third_party", None, {"cocoa-rater": ["human_likeness", "cooperation"]}),
        ("openchat", "party", "user", {"duo-user": ["preference", "stylistic_similarity", "consistency"]}),
    ],
)
def test_questionnaires_for_a_task_and_respondent(task_id, respondent, role, expected):
    found = questionnaires_for(task_id, respondent, role)
    assert {q.id: [i.id for i in q.items] for q in found} == expected


def test_unknown_respondent_kind_is_refused():
    with pytest.raises(QuestionnaireError, match="respondent"):
        questionnaires_for("casino-v0", "bot")


def test_unknown_questionnaire_name_suggests_the_closest():
    with pytest.raises(QuestionnaireError, match="duo-user"):
        get_questionnaire("duo-usr")


# --------------------------------------------------------------------------- answers become corpus ratings


def test_casino_answers_become_the_ratings_the_reader_builds_and_export_natively(fixtures):
    fmt = corpus_format("casino")
    record = _casino_record(fixtures, 101)
    original = fmt.to_dialogue(record)
    blank = original.model_copy(update={"ratings": [], "meta": {"task_id": "casino-v0"}})
    rated = blank
    for party in blank.parties:
        outcomes = record["participant_info"][party.id]["outcomes"]
        (form,) = forms_for(blank, "party", party.id)
        rated = with_ratings(rated, form.ratings({"satisfaction": outcomes["satisfaction"], "opponent_likeness": outcomes["opponent_likeness"]}))
    assert sorted(r.model_dump_json() for r in rated.ratings) == sorted(r.model_dump_json() for r in original.ratings)
    assert record_differences(record, fmt.from_dialogue(rated)) == []


def test_casino_answers_may_be_positions_of_labels():
    dialogue = _two_humans("casino", "casino-v0", ids=("mturk_agent_1", "mturk_agent_2"))
    (form,) = forms_for(dialogue, "party", "mturk_agent_2")
    ratings = form.ratings({"satisfaction": "5", "opponent_likeness": 1})
    assert [(r.criterion, r.value, r.target, r.rater_id, r.rater_kind) for r in ratings] == [
        ("satisfaction", "Extremely satisfied", None, "mturk_agent_2", "party"),
        ("opponent_likeness", "Extremely dislike", "mturk_agent_1", "mturk_agent_2", "party"),
    ]


def test_duo_user_and_rater_answers_rebuild_the_native_record(fixtures):
    fmt = corpus_format("duo")
    record = _duo_record(fixtures, "ed/en/0000.json")
    original = fmt.to_dialogue(record, file=str(fixtures / "duo/ed/en/0000.json"))
    blank = original.model_copy(update={"ratings": [], "meta": {"task_id": "openchat-ed-v0"}})
    (user_form,) = forms_for(blank, "party", "user")
    rated = with_ratings(blank, user_form.ratings({k: str(int(v)) for k, v in record["subjective_evaluation"].items()}))
    objective = record["objective_evaluation"]
    for rater in range(3):
        (form,) = forms_for(blank, "third_party", str(rater))
        answers = {f.key: int(objective[f"{f.item.id}_scores"][rater]) for f in form.fields}
        rated = with_ratings(rated, form.ratings(answers))
    assert all(type(r.value) is float for r in rated.ratings)  # DUO's files hold 4.0, not 4
    assert record_differences(record, fmt.from_dialogue(rated)) == []


def test_rater_items_about_each_party_give_one_field_and_rating_per_party():
    dialogue = _two_humans("craigslist", "craigslist-v0", ids=("0", "1"), roles=("buyer", "seller"))
    (form,) = forms_for(dialogue, "third_party", "rater-9")
    assert [(f.key, f.target, f.target_label) for f in form.fields] == [
        ("human_likeness@0", "0", "Buyer"),
        ("human_likeness@1", "1", "Seller"),
        ("cooperation@0", "0", "Buyer"),
        ("cooperation@1", "1", "Seller"),
    ]
    ratings = form.ratings({"human_likeness@0": 5, "human_likeness@1": "2", "cooperation@0": 4.0, "cooperation@1": 3})
    assert [(r.criterion, r.target, r.value, r.rater_id, r.rater_kind) for r in ratings] == [
        ("human_likeness", "0", 5, "rater-9", "third_party"),
        ("human_likeness", "1", 2, "rater-9", "third_party"),
        ("cooperation", "0", 4, "rater-9", "third_party"),
        ("cooperation", "1", 3, "rater-9", "third_party"),
    ]
    assert all(type(r.value) is int for r in ratings)


def test_parties_without_roles_are_named_by_letter():
    dialogue = _two_humans("mutualfriends", "mutualfriends-v0", ids=("0", "1"))
    (form,) = forms_for(dialogue, "third_party", "r")
    assert [f.target_label for f in form.fields[:2]] == ["Participant A", "Participant B"]


# --------------------------------------------------------------------------- bad answers


@pytest.fixture
def duo_form() -> QuestionnaireForm:
    (form,) = forms_for(_openchat("openchat-ed-v0"), "party", "user")
    return form


GOOD = {"preference": 4, "stylistic_similarity": 3, "consistency": 5, "empathy": 2}


def test_good_answers_have_no_problems(duo_form):
    assert duo_form.problems(GOOD) == []
    assert [r.criterion for r in duo_form.ratings(GOOD)] == list(GOOD)


@pytest.mark.parametrize(
    "change, key, words",
    [
        ({"empathy": None}, "empathy", "not answered"),
        ({"empathy": "  "}, "empathy", "not answered"),
        ({"preference": 6}, "preference", "outside the scale"),
        ({"preference": 0}, "preference", "outside the scale"),
        ({"preference": "4.5"}, "preference", "whole number from 1 to 5"),
        ({"preference": 4.5}, "preference", "whole number from 1 to 5"),
        ({"preference": True}, "preference", "true/false"),
        ({"preference": "four"}, "preference", "whole number"),
        ({"preference": [4]}, "preference", "whole number"),
        ({"preference": float("nan")}, "preference", "whole number"),
        ({"engagingness": 3}, "engagingness", "not a question of 'duo-user'"),
    ],
)
def test_each_bad_answer_is_named_by_its_item(duo_form, change, key, words):
    answers = {**GOOD, **change}
    answers = {k: v for k, v in answers.items() if v is not None}
    problems = duo_form.problems(answers)
    assert [p.key for p in problems] == [key]
    assert words in problems[0].message
    with pytest.raises(InvalidAnswers) as error:
        duo_form.ratings(answers)
    assert key in str(error.value)


def test_a_missing_answer_quotes_the_question(duo_form):
    (problem,) = duo_form.problems({k: v for k, v in GOOD.items() if k != "consistency"})
    assert "consistent" in problem.message and "'consistency'" in problem.message


def test_every_problem_is_reported_at_once(duo_form):
    problems = duo_form.problems({"preference": 9, "submit": "Send"})
    assert {p.key for p in problems} == {"submit", "preference", "stylistic_similarity", "consistency", "empathy"}


def test_unknown_keys_may_be_ignored(duo_form):
    assert duo_form.problems({**GOOD, "submit": "Send"}, allow_unknown=True) == []


def test_answers_that_are_not_an_object_are_refused(duo_form):
    (problem,) = duo_form.problems(["4", "3"])  # type: ignore[arg-type]
    assert problem.key == "answers"


def test_labelled_scale_refuses_other_words_and_positions():
    item = get_questionnaire("casino-post-negotiation").items[0]
    assert coerce_answer(item, " Undecided ") == ("Undecided", None)
    for bad in ("extremely satisfied", "Happy", 0, 6, "6", True):
        value, reason = coerce_answer(item, bad)
        assert value is None and reason


def test_optional_items_may_be_left_blank():
    item = Item(id="comment_score", question="Anything?", scale=LIKERT_5, respondent="party", tasks=["casino"], required=False)
    questionnaire = Questionnaire(id="opt", title="t", items=[item])
    form = QuestionnaireForm(questionnaire, _two_humans("casino", "casino-v0"), "party", "a")
    assert form.ratings({}) == []
    assert form.ratings({"comment_score": ""}) == []
    assert form.ratings({"comment_score": 2})[0].value == 2


def test_a_party_form_needs_a_party_of_the_dialogue():
    with pytest.raises(QuestionnaireError, match="not a party"):
        QuestionnaireForm(get_questionnaire("casino-post-negotiation"), _two_humans("casino", "casino-v0"), "party", "zed")


def test_a_questionnaire_that_asks_nothing_here_is_refused():
    with pytest.raises(QuestionnaireError, match="asks nothing"):
        QuestionnaireForm(get_questionnaire("casino-post-negotiation"), _openchat("openchat-ed-v0"), "party", "user")


def test_answering_again_replaces_the_earlier_answer(duo_form):
    dialogue = with_ratings(duo_form.dialogue, duo_form.ratings(GOOD))
    dialogue = with_ratings(dialogue, duo_form.ratings({**GOOD, "empathy": 5}))
    assert len(dialogue.ratings) == 4
    assert next(r.value for r in dialogue.ratings if r.criterion == "empathy") == 5.0
    other = Rating(rater_kind="third_party", rater_id="r1", target="bot", criterion="empathy", value=1.0)
    assert len(with_ratings(dialogue, [other]).ratings) == 5


# --------------------------------------------------------------------------- bad questionnaire files


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


ITEM = "  - {id: x, question: 'Q?', respondent: party, tasks: [casino], scale: {low: 1, high: 5}}\n"


@pytest.mark.parametrize(
    "text, words",
    [
        ("id: q\ntitle: t\nitems: [\n", "cannot read"),
        ("id: q\ntitle: t\nitems: []\n", "items"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: party, tasks: [casino], scale: {low: 1}}\n", "low` and `high"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: party, tasks: [casino], scale: {low: 1, high: 4.5}}\n", "whole numbers"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: third_party, about: partner, tasks: [casino], scale: {low: 1, high: 5}}\n", "no partner"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: party, about: boss, tasks: [casino], scale: {low: 1, high: 5}}\n", "role:<role>"),
        ("id: q\ntitle: t\nitems:\n  - {id: X-1, question: 'Q?', respondent: party, tasks: [casino], scale: {low: 1, high: 5}}\n", "items.0.id"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: party, tasks: [casino], scale: {labels: [a, a]}}\n", "distinct labels"),
        ("id: q\ntitle: t\nitems:\n" + ITEM + ITEM, "both ask 'x'"),
        ("id: q\ntitle: t\nitems:\n  - {id: x, question: 'Q?', respondent: party, tasks: [casino], scale: {low: 1, high: 5}, colour: red}\n", "colour"),
    ],
)
def test_bad_questionnaire_files_are_refused_with_the_reason(tmp_path, text, words):
    path = _write(tmp_path, "q.yaml", text)
    with pytest.raises(QuestionnaireError) as error:
        load_questionnaire(path)
    assert str(path) in str(error.value) and words in str(error.value)


def test_json_questionnaires_load_and_ids_must_be_unique(tmp_path):
    data = {"id": "q", "title": "t", "items": [{"id": "x", "question": "Q?", "respondent": "party", "tasks": ["casino"], "scale": {"low": 1, "high": 5}}]}
    _write(tmp_path, "a.json", json.dumps(data))
    _write(tmp_path, "notes.txt", "ignored")
    assert list(load_questionnaires(tmp_path)) == ["q"]
    _write(tmp_path, "b.yaml", json.dumps(data))  # JSON is YAML too
    with pytest.raises(QuestionnaireError, match="used twice"):
        load_questionnaires(tmp_path)


# --------------------------------------------------------------------------- completion codes


def test_completion_codes_are_reproducible_readable_and_distinct():
    code = completion_code("s3cret", "casino", "PID-1")
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", code)
    assert code == completion_code("s3cret", "casino", "PID-1")
    others = {
        completion_code("s3cret", "casino", "PID-2"),
        completion_code("s3cret", "duo", "PID-1"),
        completion_code("other", "casino", "PID-1"),
        completion_code("s3cret", "casinoP", "ID-1"),  # the ids are not simply glued together
        code,
    }
    assert len(others) == 5
    assert completion_code("s3cret", "casino", "PID-1", prefix="DUO") == f"DUO-{code}"
    assert len(completion_code("s3cret", "casino", "PID-1", groups=2, group_size=5)) == 11


def test_many_codes_do_not_collide():
    codes = {completion_code("k", "study", f"P{i}") for i in range(5000)}
    assert len(codes) == 5000


def test_checking_a_code_forgives_typing_but_not_a_wrong_code():
    code = completion_code("s3cret", "casino", "PID-1", prefix="DUO")
    assert check_completion_code(code, "s3cret", "casino", "PID-1", prefix="DUO")
    retyped = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert check_completion_code(retyped, "s3cret", "casino", "PID-1", prefix="DUO")
    assert not check_completion_code(code, "s3cret", "casino", "PID-2", prefix="DUO")
    assert not check_completion_code(code, "wrong", "casino", "PID-1", prefix="DUO")
    assert not check_completion_code(None, "s3cret", "casino", "PID-1")  # type: ignore[arg-type]


def test_a_code_needs_a_secret():
    with pytest.raises(ValueError, match="secret"):
        completion_code("", "casino", "PID-1")


# --------------------------------------------------------------------------- against the real corpora


@pytest.mark.corpus
def test_duo_items_match_every_real_duo_file(corpus_path):
    files = sorted(corpus_path("duo").rglob("*.json"))
    assert files
    for path in files:
        record = json.loads(path.read_text())
        task_id = "openchat-ed-v0" if record["setting"] == "ed" else "openchat-wow-v0"
        user = [i.id for i in get_questionnaire("duo-user").items_for(task_id, "party", "user")]
        rater = [i.id for i in get_questionnaire("duo-rater").items_for(task_id, "third_party")]
        assert user == list(record["subjective_evaluation"]), path
        if "objective_evaluation" in record:
            assert [k for k in record["objective_evaluation"] if not k.endswith("_scores")] == rater, path


@pytest.mark.corpus
def test_every_real_casino_answer_is_on_the_questionnaire_scales(corpus_path):
    items = {i.id: i for i in get_questionnaire("casino-post-negotiation").items}
    seen = {criterion: set() for criterion in items}
    for path in sorted(corpus_path("casino/split").glob("*.json")):
        for record in json.loads(path.read_text()):
            for info in record["participant_info"].values():
                for criterion, item in items.items():
                    value = info["outcomes"][criterion]
                    if value is not None:
                        assert coerce_answer(item, value) == (value, None), (path.name, record["dialogue_id"], criterion, value)
                        seen[criterion].add(value)
    assert all(len(values) == 5 for values in seen.values())  # every label is used in the corpus


def test_party_labels_name_roles_letters_or_refuse_strangers():
    from duologue.web.questionnaires import party_label

    dialogue = _two_humans("craigslist", "craigslist-v0", ids=("0", "1"), roles=("buyer", "buyer"))
    assert [party_label(dialogue, p) for p in ("0", "1")] == ["Participant A", "Participant B"]  # roles do not tell them apart
    assert party_label(_openchat("openchat-ed-v0"), "bot") == "System"
    with pytest.raises(KeyError, match="not a party"):
        party_label(dialogue, "9")


def test_an_item_about_a_role_needs_exactly_one_party_in_that_role():
    for roles in (("user", "user"), ("system", "system")):
        dialogue = Dialogue(
            id="odd",
            task="openchat",
            parties=[Party(id="a", kind="human", role=roles[0]), Party(id="b", kind="bot", role=roles[1])],
            meta={"task_id": "openchat-ed-v0"},
        )
        with pytest.raises(QuestionnaireError, match="role 'system'"):
            forms_for(dialogue, "third_party", "r")
