"""Storage on a database made by an older duologue: the guards added since reach it too."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from duologue.core.schema import Message
from duologue.web.storage import EventConflict, Storage

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
