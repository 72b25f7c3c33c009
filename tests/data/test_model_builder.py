"""`model_builder`: models built from checked values are exactly what validation would make."""

import orjson
import pytest
from pydantic import ValidationError

from duologue.core.schema import LIKERT_5, Annotation, Dialogue, Message, Offer, Party, Rating, Scenario, Source
from duologue.data.formats import model_builder


def same_model(built, validated) -> None:
    assert type(built) is type(validated)
    assert built == validated
    assert list(built.__dict__) == list(validated.__dict__)  # field order, so dumps keep their key order
    assert built.model_fields_set == validated.model_fields_set
    assert orjson.dumps(built.model_dump()) == orjson.dumps(validated.model_dump())  # 1 and 1.0 differ here


def test_a_built_event_equals_the_validated_one_and_sets_the_same_fields():
    build = model_builder(Message, "party", "text", "extra")
    same_model(build(party="a", text="hi", extra={"x": 1}), Message(party="a", text="hi", extra={"x": 1}))
    offer = model_builder(Offer, "party", "time", "extra", "price", "sides")
    same_model(offer("0", 12.5, {}, 30.0, None), Offer(party="0", time=12.5, extra={}, price=30.0, sides=None))


def test_defaults_are_made_per_instance_as_pydantic_makes_them():
    build = model_builder(Annotation, "event", "layer")
    first, second = build(0, "intent"), build(1, "intent")
    same_model(first, Annotation(event=0, layer="intent"))
    assert first.labels == [] and first.labels is not second.labels  # a factory default is never shared
    rating = model_builder(Rating, "rater_kind", "criterion", "value")("party", "empathy", 4)
    same_model(rating, Rating(rater_kind="party", criterion="empathy", value=4))
    assert rating.scale == LIKERT_5 and rating.scale is not LIKERT_5  # a model default is deep-copied


def test_a_whole_dialogue_with_nested_models():
    parties = [Party(id="u", kind="human"), Party(id="b", kind="bot")]
    events = [Message(party="u", text="hi")]
    build = model_builder(Dialogue, "id", "task", "scenario", "parties", "events", "source")
    built = build(id="d1", task="openchat", scenario=Scenario(public={"a": 1}), parties=parties, events=events, source=Source(corpus="duo"))
    validated = Dialogue(id="d1", task="openchat", scenario=Scenario(public={"a": 1}), parties=parties, events=events, source=Source(corpus="duo"))
    same_model(built, validated)
    assert built.meta == {} and built.meta is not validated.meta


def test_built_models_still_validate_assignments():
    message = model_builder(Message, "party", "text")("a", "hi")
    with pytest.raises(ValidationError):
        message.text = 5
    message.extra = {"k": 1}
    assert message.model_fields_set == {"party", "text", "extra"}


def test_unknown_or_missing_required_fields_are_refused_when_the_builder_is_made():
    with pytest.raises(TypeError):
        model_builder(Message, "party", "text", "colour")
    with pytest.raises(TypeError):
        model_builder(Message, "party")  # text is required
    with pytest.raises(TypeError):
        model_builder(Message, "party", "text")("a")  # and the builder takes exactly its fields


def test_field_names_that_are_also_names_in_the_builder_work():
    from pydantic import BaseModel

    class Odd(BaseModel):
        model: str
        cls: int = 3

    built = model_builder(Odd, "model")("x")
    assert built == Odd(model="x") and built.model_fields_set == {"model"}
