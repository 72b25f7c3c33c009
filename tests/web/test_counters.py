"""Quota counters kept as rows agree with counting the dialogues themselves, whatever happens to them.

The truth here is a GROUP BY written in this file over the stored dialogues (set-aside ones left
out), as quotas were counted before the counters. Random sequences of creating, finishing, setting
aside and interrupting dialogues of two studies are played against a real SQLite database, and the
counters must equal the truth after each sequence; `test_postgres.py` plays the same sequences on
PostgreSQL, also from several threads at once.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError

from duologue.core.schema import Dialogue, Party
from duologue.web.storage import Storage

STUDIES = ("study-a", "study-b")
SCENARIOS = ("", "seed:0", "seed:1", "corpus:x")
PAIRINGS = ("human-human", "bot:rule", "bot:random")
INTERRUPTED = "interrupted"

# One operation: ("create", study, scenario, pairing) or (what, index, set_aside) where `what` is
# finish / interrupt / finish-again and `index` picks one of the dialogues created so far.
operation = st.one_of(
    st.tuples(st.just("create"), st.sampled_from(STUDIES), st.sampled_from(SCENARIOS), st.sampled_from(PAIRINGS)),
    st.tuples(st.sampled_from(["finish", "interrupt", "finish-again"]), st.integers(0, 10**6), st.sampled_from([None, "no messages", "too short"])),
)


@dataclass
class Played:
    created: list[str] = field(default_factory=list)
    finished: set[str] = field(default_factory=set)


def new_dialogue(storage: Storage, dialogue_id: str, study: str, scenario: str, pairing: str) -> None:
    dialogue = Dialogue(id=dialogue_id, task="toy", parties=[Party(id="a", kind="human", participant_id=f"{dialogue_id}-a"), Party(id="b", kind="bot", agent="rule")])
    seats = [{"party": "a", "kind": "human", "participant_id": f"{dialogue_id}-a", "agent": None}, {"party": "b", "kind": "bot", "participant_id": None, "agent": "rule"}]
    storage.create_dialogue(dialogue, study_id=study, task_id="toy-v0", pairing=pairing, scenario_key=scenario, seats=seats)


def play(storage: Storage, operations: list[tuple], played: Played, prefix: str = "d") -> None:
    """Apply the operations as the platform does (a dialogue is finished by play or interrupted, maybe
    set aside; a dialogue already finished is finished again only by a repeated close)."""
    for op in operations:
        if op[0] == "create":
            dialogue_id = f"{prefix}-{len(played.created)}"
            new_dialogue(storage, dialogue_id, op[1], op[2], op[3])
            played.created.append(dialogue_id)
            continue
        what, index, aside = op
        if not played.created:
            continue
        dialogue_id = played.created[index % len(played.created)]
        if what != "finish-again" and dialogue_id in played.finished:
            continue
        if what == "finish-again" and dialogue_id not in played.finished:
            continue
        stored = storage.dialogue(dialogue_id)
        assert stored is not None
        storage.finish_dialogue(stored, INTERRUPTED if what == "interrupt" else "agreement", aside)
        played.finished.add(dialogue_id)


def truth(storage: Storage, study: str) -> dict[tuple[str, str], int]:
    """Counted dialogues per (scenario, pairing), by the GROUP BY quotas used before the counters."""
    query = text(
        "SELECT scenario_key, pairing, COUNT(*) FROM dialogues WHERE study_id = :study"
        " AND id NOT IN (SELECT dialogue_id FROM set_aside) GROUP BY scenario_key, pairing"
    )
    with storage.engine.connect() as connection:
        return {(scenario, pairing): n for scenario, pairing, n in connection.execute(query, {"study": study})}


def assert_counters_true(storage: Storage) -> None:
    for study in (*STUDIES, "no-such-study"):
        pairs = truth(storage, study)
        by_pairing: dict[str, int] = {}
        by_scenario: dict[str, int] = {}
        for (scenario, pairing), n in pairs.items():
            by_pairing[pairing] = by_pairing.get(pairing, 0) + n
            by_scenario[scenario] = by_scenario.get(scenario, 0) + n
        assert storage.count_pairs(study) == pairs
        assert storage.count_by(study, "pairing") == by_pairing
        assert storage.count_by(study, "scenario_key") == by_scenario
        assert storage.counter_differences(study) == {}


@settings(max_examples=40, derandomize=True, database=None)
@given(st.lists(operation, max_size=40))
def test_counters_equal_the_group_by_after_any_sequence(operations):
    storage = Storage("sqlite://")
    try:
        play(storage, operations, Played())
        assert_counters_true(storage)
    finally:
        storage.close()


def test_a_long_fixed_seed_sequence_and_a_rebuild_agree(tmp_path):
    """Hundreds of operations from a fixed seed, checked as they go; a rebuild then changes nothing."""
    rng = random.Random(17)
    storage = Storage(f"sqlite:///{tmp_path / 'long.db'}")
    played = Played()
    for _step in range(12):
        operations = [
            ("create", rng.choice(STUDIES), rng.choice(SCENARIOS), rng.choice(PAIRINGS)) if rng.random() < 0.5
            else (rng.choice(["finish", "interrupt", "finish-again"]), rng.randrange(10**6), rng.choice([None, None, "no messages"]))
            for _ in range(40)
        ]
        play(storage, operations, played)
        assert_counters_true(storage)
    before = {s: storage.count_pairs(s) for s in STUDIES}
    storage.rebuild_counters()
    assert {s: storage.count_pairs(s) for s in STUDIES} == before
    assert storage.set_aside("study-a") or storage.set_aside("study-b"), "the sequence set some dialogues aside"
    storage.close()


def test_a_set_aside_dialogue_stops_counting_and_stays_out(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'aside.db'}")
    new_dialogue(storage, "d1", "study-a", "seed:0", "human-human")
    new_dialogue(storage, "d2", "study-a", "seed:0", "human-human")
    assert storage.count_pairs("study-a") == {("seed:0", "human-human"): 2}
    for _ in range(2):  # a second close of the same dialogue does not take it off twice
        stored = storage.dialogue("d1")
        assert stored is not None
        storage.finish_dialogue(stored, INTERRUPTED, "no messages")
    assert storage.count_by("study-a", "pairing") == {"human-human": 1}
    stored = storage.dialogue("d2")
    assert stored is not None
    storage.finish_dialogue(stored, "agreement", "no messages")
    assert storage.count_by("study-a", "pairing") == {} and storage.count_pairs("study-a") == {}, "no key counted zero, as a GROUP BY"
    storage.close()


def test_a_failed_write_changes_no_counter(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'failed.db'}")
    new_dialogue(storage, "d1", "study-a", "", "bot:rule")
    with pytest.raises(IntegrityError):
        new_dialogue(storage, "d1", "study-a", "", "bot:rule")  # the same id again: the whole transaction fails
    assert storage.count_by("study-a", "pairing") == {"bot:rule": 1}
    with pytest.raises(ValueError):
        storage.count_by("study-a", "status")
    storage.close()


def test_a_database_made_before_the_counters_gets_them_built_once(tmp_path):
    path = tmp_path / "old.db"
    storage = Storage(f"sqlite:///{path}")
    play(storage, [("create", "study-a", "seed:0", "human-human"), ("create", "study-a", "seed:1", "bot:rule"), ("create", "study-b", "", "bot:rule"), ("finish", 1, "no messages")], Played())
    storage.close()
    with sqlite3.connect(path) as connection:  # as an older duologue left it: no counters at all
        for name in ("quota_counts", "quota_totals", "counter_builds"):
            connection.execute(f"DROP TABLE {name}")
    storage = Storage(f"sqlite:///{path}")
    assert storage.count_pairs("study-a") == {("seed:0", "human-human"): 1}
    assert storage.count_by("study-b", "pairing") == {"bot:rule": 1}
    assert_counters_true(storage)
    storage.close()


def test_a_study_written_around_storage_is_counted_when_the_database_opens(tmp_path):
    path = tmp_path / "around.db"
    storage = Storage(f"sqlite:///{path}")
    new_dialogue(storage, "d1", "study-a", "seed:0", "human-human")
    storage.close()
    with sqlite3.connect(path) as connection:  # a copy of d1's row for another study, with no counter rows
        connection.execute(
            "INSERT INTO dialogues (id, study_id, task_id, pairing, scenario_key, status, created_at, data)"
            " SELECT 'd2', 'study-b', task_id, pairing, scenario_key, status, created_at, data FROM dialogues WHERE id = 'd1'"
        )
    storage = Storage(f"sqlite:///{path}")
    assert storage.count_by("study-b", "pairing") == {"human-human": 1}
    assert_counters_true(storage)
    storage.close()


def test_a_lobby_join_reads_counters_and_never_counts_the_dialogues(tmp_path):
    """No statement of a whole join (quota checks, scenario choice, the dialogue's start) groups over dialogues."""
    import asyncio

    from duologue.web.hub import LiveHub
    from duologue.web.matchmaker import Matchmaker
    from duologue.web.settings import Settings
    from duologue.web.study import Partner, Scenarios, Study

    study = Study(id="lobby", task="casino-v0", partners=[Partner(kind="human")], quotas={"human-human": 100}, scenarios=Scenarios(pool=5, seed=0), per_scenario=10, ratings_per_dialogue=0)
    storage = Storage(f"sqlite:///{tmp_path / 'lobby.db'}")
    statements: list[str] = []
    event.listen(storage.engine, "before_cursor_execute", lambda conn, cursor, statement, *rest: statements.append(statement))

    async def pair() -> None:
        hub = LiveHub(storage, Settings(), {study.id: study})
        matchmaker = Matchmaker({study.id: study}, storage, hub)
        first, second = await asyncio.gather(matchmaker.join(study, "p1"), matchmaker.join(study, "p2"))
        assert first.dialogue_id == second.dialogue_id
        await matchmaker.close()
        await hub.close()

    asyncio.run(pair())
    assert statements and not [s for s in statements if "GROUP BY" in s.upper()]
    assert len(storage.dialogues(study_id="lobby")) == 1
    assert storage.counter_differences("lobby") == {}, "closed before a message: set aside, and off the counters too"
    storage.close()
