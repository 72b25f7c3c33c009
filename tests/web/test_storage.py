"""Storage on a database made by an older duologue: the guards added since reach it too."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from duologue.core.schema import Message
from duologue.web.storage import EventBatchItem, EventConflict, Storage, StorageUnavailable

OLD_EVENTS_TABLE = "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, dialogue_id VARCHAR, seq INTEGER, data TEXT)"


def old_database(path, rows=()) -> str:
    """A SQLite file whose events table predates the unique (dialogue, seq) constraint."""
    with sqlite3.connect(path) as connection:
        connection.execute(OLD_EVENTS_TABLE)
        connection.executemany("INSERT INTO events (dialogue_id, seq, data) VALUES (?, ?, ?)", rows)
    return f"sqlite:///{path}"


def test_an_old_database_gets_unique_event_numbers(tmp_path):
    storage = Storage(old_database(tmp_path / "old.db"))
    storage.add_events("d1", 0, [Message(party="a", text="hello")])
    with pytest.raises(EventConflict):
        storage.add_events("d1", 0, [Message(party="b", text="the same number again")])
    assert [e.text for e in storage.events("d1")] == ["hello"]
    storage.close()


def test_an_old_database_that_already_repeats_a_number_still_opens(tmp_path, caplog):
    twice = [("d1", 0, Message(party="a", text="x").model_dump_json())] * 2
    with caplog.at_level(logging.WARNING, logger="duologue.web.storage"):
        storage = Storage(old_database(tmp_path / "old.db", twice))
    assert "repeat a number" in caplog.text
    assert len(storage.events("d1")) == 2, "nothing stored is lost"
    storage.close()


def test_a_new_database_is_not_given_a_second_index(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Storage(url).close()
    Storage(url).close()  # opened again: nothing to add
    with sqlite3.connect(tmp_path / "new.db") as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")]
    assert "one_event_per_seq_index" not in names


def test_questionnaire_answers_are_stored_exactly_once_however_often_they_arrive(tmp_path):
    """Eight submissions of one seat's answers at the same moment (double clicks, tabs, workers):
    one stores its ratings, every one gets the same completion code back."""
    import threading

    from duologue.core.schema import LIKERT_5, Dialogue, Party, Rating

    storage = Storage(f"sqlite:///{tmp_path / 'once.db'}")
    dialogue = Dialogue(id="d-once", task="toy", parties=[Party(id="a", kind="human", participant_id="p-a"), Party(id="b", kind="bot", agent="rule")])
    seats = storage.create_dialogue(dialogue, study_id="s", task_id="toy-v0", pairing="bot:rule", scenario_key="k", seats=[
        {"party": "a", "kind": "human", "participant_id": "p-a", "agent": None},
        {"party": "b", "kind": "bot", "participant_id": None, "agent": "rule"},
    ])
    token = next(seat.token for seat in seats if seat.kind == "human")
    rating = Rating(rater_kind="party", rater_id="a", target=None, criterion="satisfaction", value=4, scale=LIKERT_5)
    start, answers = threading.Barrier(8), []

    def submit() -> None:
        start.wait()
        answers.append(storage.complete_questionnaire(token, [rating], "CODE-1234"))

    threads = [threading.Thread(target=submit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(storage.ratings("d-once")) == 1
    assert {seat.completion_code for seat in answers} == {"CODE-1234"} and all(seat.questionnaire_done for seat in answers)
    storage.close()


def test_a_batch_keeps_every_move_but_a_repeated_one(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'platform.db'}")
    storage.add_events("d1", 0, [Message(party="a", text="first")], "m1")
    items = [
        EventBatchItem("d2", 0, [Message(party="a", text="fresh").model_dump_json()], "x"),
        EventBatchItem("d1", 0, [Message(party="b", text="the same number again").model_dump_json()], "m2"),
        EventBatchItem("d3", 0, [Message(party="a", text="also fresh").model_dump_json()], None),
    ]
    outcomes = storage.add_event_batch(items)
    assert outcomes[0] is None and outcomes[2] is None and isinstance(outcomes[1], EventConflict)
    assert [[e.text for e in storage.events(d)] for d in ("d1", "d2", "d3")] == [["first"], ["fresh"], ["also fresh"]]
    assert storage.move_seen("d2", "x") and not storage.move_seen("d1", "m2")
    with pytest.raises(EventConflict):
        storage.add_events("d2", 1, [Message(party="a", text="a retried move")], "x")  # the move id is taken
    assert [e.text for e in storage.events("d2")] == ["fresh"]
    storage.close()


def test_a_failing_write_of_a_move_is_reported_as_storage_unavailable_and_keeps_nothing(tmp_path):
    """Moves are written on the driver's own connection (`plain_sql`): a database error still
    reaches the platform as `StorageUnavailable` (a 503 to the page), and the half-done
    transaction is rolled back."""
    storage = Storage(f"sqlite:///{tmp_path / 'platform.db'}")
    storage.add_events("d1", 0, [Message(party="a", text="first")], "m1")
    with sqlite3.connect(tmp_path / "platform.db") as connection:
        connection.execute("ALTER TABLE moves RENAME TO moves_elsewhere")
    with pytest.raises(StorageUnavailable, match="OperationalError"):
        storage.add_events("d1", 1, [Message(party="b", text="second")], "m2")
    assert [e.text for e in storage.events("d1")] == ["first"]
    storage.close()


def test_the_plain_reads_give_python_values_as_the_orm_does(tmp_path):
    """`seat_by_token`, `info`, `seats_of_participant` and `session_of` are read on the driver's own
    connection (`plain_sql.PlainQuery`); SQLite stores a boolean as 0/1, and the seat still says
    True or False, exactly as SQLAlchemy's own reading of the same rows does."""
    from duologue.core.schema import Dialogue, Party
    from duologue.web.storage import SeatRow, _seat

    storage = Storage(f"sqlite:///{tmp_path / 'plain.db'}")
    dialogue = Dialogue(id="d-plain", task="toy", parties=[Party(id="a", kind="human", participant_id="p-a"), Party(id="b", kind="bot", agent="rule")])
    seats = storage.create_dialogue(dialogue, study_id="s", task_id="toy-v0", pairing="bot:rule", scenario_key="k", seats=[
        {"party": "a", "kind": "human", "participant_id": "p-a", "agent": None},
        {"party": "b", "kind": "bot", "participant_id": None, "agent": "rule"},
    ])
    token = seats[0].token
    assert storage.seat_by_token(token).questionnaire_done is False
    storage.complete_questionnaire(token, [], "CODE-1")
    plain = storage.seat_by_token(token)
    assert plain.questionnaire_done is True and plain.completion_code == "CODE-1"
    with storage._session() as session:
        assert plain == _seat(session.query(SeatRow).filter_by(token=token).one())
    [(seat, info)] = storage.seats_of_participant("p-a", "s")
    assert seat == plain and info == storage.info("d-plain") and info.status == "live" and isinstance(info.created_at, float)
    assert storage.seats_of_participant("p-a", "another study") == [] and storage.seat_by_token("no such token") is None
    # a seat without a participant (the bot's) is read the ORM's way, still within the study asked for
    assert [seat.party for seat, _ in storage.seats_of_participant(None, "s")] == ["b"] and storage.seats_of_participant(None, "another study") == []
    assert storage.info("no such dialogue") is None and storage.session_of("p-a") is None
    assert storage.bind_session("p-a", "s1") == "s1" and storage.session_of("p-a") == "s1"
    storage.close()
