import json

import pytest
from pydantic import ValidationError

from duologue.core.schema import (
    GenericEvent,
    Annotation,
    Dialogue,
    Message,
    Party,
    Rating,
    Scale,
    SubmitDeal,
    dialogue_json_schema,
)


def two_parties() -> list[Party]:
    return [Party(id="a", kind="human"), Party(id="b", kind="bot", agent="rule")]


def test_events_are_parsed_by_kind():
    d = Dialogue(
        id="d1",
        task="casino",
        parties=two_parties(),
        events=[
            {"kind": "message", "party": "a", "text": "hi"},
            {"kind": "submit-deal", "party": "b", "mine": {"Food": 1}, "theirs": {"Food": 2}},
        ],
    )
    assert isinstance(d.events[0], Message)
    assert isinstance(d.events[1], SubmitDeal) and d.events[1].theirs == {"Food": 2}
    assert [m.text for m in d.messages()] == ["hi"]


def test_unknown_event_kind_is_kept_and_unknown_field_is_rejected():
    # a kind no installed task registered (a plug-in's move) stays readable, every field kept
    d = Dialogue(id="d", task="casino", parties=two_parties(), events=[{"kind": "dance", "party": "a", "steps": [1, 2]}])
    assert isinstance(d.events[0], GenericEvent) and d.events[0].kind == "dance"
    assert Dialogue.model_validate_json(d.model_dump_json()).model_dump() == d.model_dump()
    assert d.model_dump()["events"][0]["steps"] == [1, 2]
    with pytest.raises(ValidationError, match="kind"):
        Dialogue(id="d", task="casino", parties=two_parties(), events=[{"party": "a"}])
    with pytest.raises(ValidationError, match="txt"):
        Dialogue(id="d", task="casino", parties=two_parties(), events=[{"kind": "message", "party": "a", "text": "x", "txt": "y"}])


def test_references_must_resolve():
    with pytest.raises(ValidationError, match="not one of the parties"):
        Dialogue(id="d", task="casino", parties=two_parties(), events=[{"kind": "message", "party": "z", "text": "x"}])
    with pytest.raises(ValidationError, match="not an event index"):
        Dialogue(id="d", task="casino", parties=two_parties(), annotations=[Annotation(event=0, layer="intent", labels=["intro"])])
    with pytest.raises(ValidationError, match="unique"):
        Dialogue(id="d", task="casino", parties=[Party(id="a", kind="human"), Party(id="a", kind="bot")])
    with pytest.raises(ValidationError, match="not a party"):
        Dialogue(id="d", task="casino", parties=two_parties(), scenario={"private": {"c": {}}})


def test_rating_must_be_on_its_scale():
    Rating(rater_kind="party", criterion="preference", value=5)
    with pytest.raises(ValidationError, match="outside its scale"):
        Rating(rater_kind="party", criterion="preference", value=6)
    labels = Scale(kind="ordinal", labels=["low", "mid", "high"])
    rating = Rating(rater_kind="party", criterion="satisfaction", value="mid", scale=labels)
    assert labels.numeric(rating.value) == 2.0
    with pytest.raises(ValidationError, match="outside its scale"):
        Rating(rater_kind="party", criterion="satisfaction", value="great", scale=labels)
    with pytest.raises(ValidationError):
        Rating(rater_kind="party", criterion="x", value=True)


def test_dialogue_round_trips_through_json():
    d = Dialogue(
        id="d",
        task="craigslist",
        parties=two_parties(),
        events=[{"kind": "offer", "party": "a", "price": 12.5, "time": 3.0}, {"kind": "accept", "party": "b"}],
        ratings=[Rating(rater_kind="third_party", rater_id="0", criterion="x", value=3.0)],
    )
    again = Dialogue.model_validate_json(d.model_dump_json())
    assert again == d


def test_json_schema_names_every_event_kind():
    text = json.dumps(dialogue_json_schema())
    for kind in ("message", "select", "offer", "submit-deal", "walk-away", "system"):
        assert f'"{kind}"' in text


def test_a_task_s_own_events_read_back_as_its_classes_in_a_fresh_process(tmp_path):
    """Reading a stored dialogue imports the registered tasks on the first kind it does not know."""
    import subprocess
    import sys

    from duologue.agents import make_agent
    from duologue.core.episode import play_episode
    from duologue.tasks import make, task_ids

    own = [t for t in task_ids() if make(t).spec.family == "dealornodeal"]
    if not own:
        return
    task = make(own[0])
    dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=1)
    path = tmp_path / "d.json"
    path.write_text(dialogue.model_dump_json(), encoding="utf-8")
    code = "import sys; from duologue.core.schema import Dialogue; d = Dialogue.model_validate_json(open(sys.argv[1]).read()); print(sorted({type(e).__name__ for e in d.events}))"
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "GenericEvent" not in out.stdout and "Message" in out.stdout
