"""Where the platform keeps everything: SQLAlchemy 2 over SQLite (default) or PostgreSQL.

The rest of the platform talks to `Storage` only, in the one schema (`Dialogue`, events,
`Rating`); agents never see the database. Each event is written as it happens (one row per
event), so a crash loses nothing that was already shown. Quota counts are rows of their own
(`duologue.web.counters`), changed in the transactions that create and set aside dialogues.

Exactly once: events are unique per (dialogue, seq), so two workers can never both write event
number n; a person's move may carry a client-chosen `move_id`, kept in `moves` (unique per
dialogue) in the same transaction as the move's events, so a retried move is recognised and not
applied twice. A database that cannot be reached raises `StorageUnavailable` (the web layer answers
503); every write is one transaction, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import json
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, ParamSpec, Sequence, TypeVar, cast

from pydantic import TypeAdapter
from sqlalchemy import Boolean, bindparam, event, inspect, text, Float, ForeignKey, Integer, String, Table, Text, UniqueConstraint, create_engine, insert, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from duologue.core.schema import Dialogue, Event, Rating
from duologue.web import counters
from duologue.web.plain_sql import CombinedInsert, PlainQuery, PlainStatement, PlainWriter

_EVENT = TypeAdapter(Event)
log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")


COMBINED_ROWS = 1000
"""At most this many rows go into one combined insert (three parameters each, well under the 65,535
a PostgreSQL statement takes, and a shape worth compiling); a larger batch takes the plain inserts."""


class StorageUnavailable(RuntimeError):
    """The database cannot be reached now (down, restarting, network); nothing was written."""


class EventConflict(RuntimeError):
    """Another writer already stored these event numbers (or this move id): nothing was written."""


class Base(DeclarativeBase):
    pass


class DialogueRow(Base):
    __tablename__ = "dialogues"
    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    study_id: Mapped[str] = mapped_column(String(80), index=True)
    task_id: Mapped[str] = mapped_column(String(80))
    pairing: Mapped[str] = mapped_column(String(80))
    """`human-human` or `bot:<spec>`: the partner type quotas count."""
    scenario_key: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(20), default="live", index=True)
    end_reason: Mapped[str | None] = mapped_column(String(80), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    data: Mapped[str] = mapped_column(Text)
    """The dialogue's JSON without events (scenario, parties, meta; the outcome once finished)."""


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("dialogue_id", "seq", name="one_event_per_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dialogue_id: Mapped[str] = mapped_column(ForeignKey("dialogues.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)


class MoveRow(Base):
    """A person's move id, stored with the move's events: a retry with the same id is not applied again."""

    __tablename__ = "moves"
    dialogue_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    move_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)


class SeatRow(Base):
    __tablename__ = "seats"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dialogue_id: Mapped[str] = mapped_column(ForeignKey("dialogues.id"), index=True)
    party: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(10))
    participant_id: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    agent: Mapped[str | None] = mapped_column(String(200), nullable=True)
    token: Mapped[str] = mapped_column(String(80), unique=True, index=True)
    completion_code: Mapped[str | None] = mapped_column(String(80), nullable=True)
    questionnaire_done: Mapped[bool] = mapped_column(Boolean, default=False)


class RatingRow(Base):
    __tablename__ = "ratings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dialogue_id: Mapped[str] = mapped_column(ForeignKey("dialogues.id"), index=True)
    rater_kind: Mapped[str] = mapped_column(String(20))
    rater_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    data: Mapped[str] = mapped_column(Text)


class RatingJobRow(Base):
    __tablename__ = "rating_jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dialogue_id: Mapped[str] = mapped_column(ForeignKey("dialogues.id"), index=True)
    study_id: Mapped[str] = mapped_column(String(80), index=True)
    rater_id: Mapped[str] = mapped_column(String(200), index=True)
    status: Mapped[str] = mapped_column(String(20), default="assigned")
    created_at: Mapped[float] = mapped_column(Float)
    done_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class StudyRow(Base):
    __tablename__ = "studies"
    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    """The study as JSON (studies added on the admin page survive a restart)."""


class SetAsideRow(Base):
    """A finished dialogue too short to use (no messages, or a person below the study's
    `min_messages`): kept and exported, but not counted toward quotas nor given to raters."""

    __tablename__ = "set_aside"
    dialogue_id: Mapped[str] = mapped_column(ForeignKey("dialogues.id"), primary_key=True)
    reason: Mapped[str] = mapped_column(Text)


class IdentityRow(Base):
    __tablename__ = "identities"
    participant_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    session: Mapped[str] = mapped_column(String(64), index=True)
    """A keyed hash of the browser's session cookie (`duologue.web.identity`), never the cookie itself."""
    created_at: Mapped[float] = mapped_column(Float)


def create_tables(engine: Any, metadata: Any) -> None:
    """`metadata.create_all`, with PostgreSQL workers that start together taking turns (the
    counters' advisory lock): two workers creating the same table at once make one of them fail."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": counters.STARTUP_LOCK})
        metadata.create_all(connection)


@dataclass(frozen=True)
class Seat:
    """One party's place in a dialogue: who sits there and the secret that proves it."""

    dialogue_id: str
    party: str
    kind: str
    participant_id: str | None
    agent: str | None
    token: str
    completion_code: str | None
    questionnaire_done: bool


@dataclass(frozen=True)
class DialogueInfo:
    """A dialogue's bookkeeping, without loading its events."""

    id: str
    study_id: str
    task_id: str
    pairing: str
    scenario_key: str
    status: str
    end_reason: str | None
    created_at: float
    finished_at: float | None


def _counted() -> Any:
    """The condition that a dialogue was not set aside as too short."""
    return DialogueRow.id.not_in(select(SetAsideRow.dialogue_id))


_SEAT_FIELDS = ("dialogue_id", "party", "kind", "participant_id", "agent", "token", "completion_code", "questionnaire_done")
"""`Seat`'s fields, in its order."""
_SEAT_COLUMNS = tuple(getattr(SeatRow, name) for name in _SEAT_FIELDS)


def _seat(row: SeatRow) -> Seat:
    return Seat(row.dialogue_id, row.party, row.kind, row.participant_id, row.agent, row.token, row.completion_code, row.questionnaire_done)


_INFO_COLUMNS = (DialogueRow.id, DialogueRow.study_id, DialogueRow.task_id, DialogueRow.pairing, DialogueRow.scenario_key, DialogueRow.status, DialogueRow.end_reason, DialogueRow.created_at, DialogueRow.finished_at)
"""`DialogueInfo`'s fields, in its order."""


def _sqlite_write_ahead(connection: Any, _record: Any) -> None:
    """SQLite in write-ahead-log mode, synced at checkpoints: a commit costs a quarter of a
    millisecond instead of a full fsync (~10 ms here), which at 200 live dialogues is the difference
    between a 30 ms and a 3 s relay. A power cut may lose the last moments of play, never corrupt
    the file; PostgreSQL is the choice when that matters."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


_INSERT_DIALOGUE = insert(DialogueRow)
_INSERT_SEATS = insert(SeatRow)
_MOVE_SEEN = select(MoveRow.seq).where(MoveRow.dialogue_id == bindparam("dialogue_id"), MoveRow.move_id == bindparam("move_id"))
_INFO_OF = select(*_INFO_COLUMNS).where(DialogueRow.id == bindparam("id"))
_SEAT_OF_TOKEN = select(*_SEAT_COLUMNS).where(SeatRow.token == bindparam("token"))
_SEATS_WITH_INFO = select(*_SEAT_COLUMNS, *_INFO_COLUMNS).join(DialogueRow, DialogueRow.id == SeatRow.dialogue_id).order_by(DialogueRow.created_at)
_SEATS_IN_STUDY = _SEATS_WITH_INFO.where(SeatRow.participant_id == bindparam("participant"), DialogueRow.study_id == bindparam("study"))
_SESSION_OF = select(IdentityRow.session).where(IdentityRow.participant_id == bindparam("participant"))
_DIALOGUE_DATA = select(DialogueRow.data).where(DialogueRow.id == bindparam("id"))
_ALL_EVENTS = select(EventRow.data).where(EventRow.dialogue_id == bindparam("dialogue_id")).order_by(EventRow.seq, EventRow.id)
_RATINGS_OF = select(RatingRow.data).where(RatingRow.dialogue_id == bindparam("dialogue_id")).order_by(RatingRow.id)
_EVENTS_SINCE = select(EventRow.data).where(EventRow.dialogue_id == bindparam("dialogue_id"), EventRow.seq >= bindparam("since")).order_by(EventRow.seq)
_FINISH = update(DialogueRow).where(DialogueRow.id == bindparam("key")).values(status=bindparam("status"), end_reason=bindparam("end_reason"), finished_at=bindparam("finished_at"), data=bindparam("data"))
_SET_ASIDE_OF = select(SetAsideRow.dialogue_id).where(SetAsideRow.dialogue_id == bindparam("key"))
_COUNTED_AS = select(DialogueRow.study_id, DialogueRow.scenario_key, DialogueRow.pairing).where(DialogueRow.id == bindparam("key"))


@dataclass(frozen=True)
class EventBatchItem:
    """One move's events for `Storage.add_event_batch`, already serialised (JSON per event)."""

    dialogue_id: str
    first_seq: int
    events: list[str]
    move_id: str | None = None


class Storage:
    """The platform's only door to the database. Short transactions; safe to call from any thread.

    The live platform calls it through `run`: for a database server in the storage's own threads
    (`threads`, 4 unless set), so the event loop that relays every other dialogue's frames never
    waits for a network round trip, and their waits overlap; for SQLite on the loop itself (unless
    `threads` is set), since its calls are short and all CPU: a thread would only take turns with
    the loop for Python's interpreter lock, which made moves wait longer, not shorter.

    The calls every move, arrival and page make are plain statements on the driver's connection
    (`plain_sql`): on PostgreSQL one round trip each (reads in autocommit, a move's write as one
    combined statement); the rest go through SQLAlchemy (`reader` for reads, `engine` for writes).
    """

    def __init__(self, url: str, *, threads: int | None = None) -> None:
        options: dict[str, Any] = {}
        if threads is None:
            threads = 0 if url.startswith("sqlite") else 4
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="storage") if threads else None
        if url.startswith("sqlite"):
            options["connect_args"] = {"check_same_thread": False}
        # No ping before each use of a pooled connection (a round trip added to every move): a
        # database server that restarted makes the first statement on a dead connection fail, which
        # answers that one request 503 (the page sends a move again) and throws the whole pool's
        # connections away, so the next request opens fresh ones.
        self.engine = create_engine(url, **options)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_write_ahead)
        # Reads on a database server run on connections in autocommit: a read is then one round
        # trip, where a transaction makes it three (BEGIN, the query, ROLLBACK) and costs the server
        # three times the work. No read here needs one snapshot across statements (PostgreSQL's READ
        # COMMITTED takes a new one per statement anyway). SQLite reads stay on the one engine.
        # (The same pool of connections: a database server that restarted empties it for both.)
        self.reader = self.engine if url.startswith("sqlite") else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        create_tables(self.engine, Base.metadata)
        self._guard_event_numbers()
        with self.engine.begin() as connection:  # a database made before the index: the raters' look-up by browser
            connection.execute(text("CREATE INDEX IF NOT EXISTS ix_identities_session ON identities (session)"))
        built = counters.prepare(self.engine)
        if built is not None:
            log.info("quota counters built from the stored dialogues (%s)", ", ".join(built) or "every study")
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self._read_session = sessionmaker(self.reader, expire_on_commit=False)
        self._writer = PlainWriter(self.engine)
        self._insert_events = PlainStatement(self.engine, insert(EventRow), ("dialogue_id", "seq", "data"))
        self._insert_moves = PlainStatement(self.engine, insert(MoveRow), ("dialogue_id", "move_id", "seq"))
        # Calls of one statement each on the driver's connection (`plain_sql`), in autocommit on a
        # database server: the reads every arrival, page and move make, and there a move's write.
        self._plain = PlainWriter(self.engine, autocommit=not url.startswith("sqlite"))
        queries: dict[str, Any] = {
            "info": _INFO_OF, "move_seen": _MOVE_SEEN, "seat": _SEAT_OF_TOKEN, "seats_in_study": _SEATS_IN_STUDY, "session": _SESSION_OF,
            "totals": counters.TOTALS, "pairs": counters.PAIRS, "events": _EVENTS_SINCE,
            "dialogue": _DIALOGUE_DATA, "all_events": _ALL_EVENTS, "ratings_of": _RATINGS_OF,
        }
        self._queries = {name: PlainQuery(self.engine, query) for name, query in queries.items()}
        self._combined: CombinedInsert | None = None
        """PostgreSQL: a move's events and id in one statement, run in autocommit (`plain_sql`)."""
        if self.engine.dialect.name == "postgresql":
            self._combined = CombinedInsert(self.engine, [(cast(Table, EventRow.__table__), ("dialogue_id", "seq", "data")), (cast(Table, MoveRow.__table__), ("dialogue_id", "move_id", "seq"))])

    def _guard_event_numbers(self) -> None:
        """Give a database made before events were unique per (dialogue, seq) that guard too.

        `create_all` adds missing tables, not constraints to existing ones; the unique index does
        the constraint's work. A database that already holds a repeated number keeps working
        without it, and the log says which dialogue to look at.
        """
        columns = ["dialogue_id", "seq"]
        found = inspect(self.engine)
        if any(c["column_names"] == columns for c in found.get_unique_constraints("events")):
            return
        if any(i["column_names"] == columns and i["unique"] for i in found.get_indexes("events")):
            return
        try:
            with self.engine.begin() as connection:
                connection.execute(text("CREATE UNIQUE INDEX one_event_per_seq_index ON events (dialogue_id, seq)"))
        except IntegrityError as error:
            log.warning("events repeat a number within a dialogue, so they are not guarded against it: %s", error.orig)

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=True)
        self.engine.dispose()

    async def run(self, method: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """`method(*args, **kwargs)`, a call that uses this storage, in the storage's threads (or on
        the loop, see the class), awaited.

        A caller cancelled meanwhile stops waiting, but the call itself still completes (a
        transaction is never cut in half); the unique event numbers catch a move stored so.
        """
        if self._threads is None:
            return method(*args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._threads, functools.partial(method, *args, **kwargs))

    # ------------------------------------------------------------------ dialogues

    def create_dialogue(self, dialogue: Dialogue, *, study_id: str, task_id: str, pairing: str, scenario_key: str, seats: list[dict[str, Any]]) -> list[Seat]:
        """Store a new live dialogue and its seats; returns the seats with their fresh tokens."""
        base = dialogue.model_dump(mode="json", exclude={"events"})
        rows = [{"dialogue_id": dialogue.id, "token": secrets.token_urlsafe(18), "completion_code": None, "questionnaire_done": False, **seat} for seat in seats]
        with self.engine.begin() as connection:  # plain statements: every pairing writes these
            connection.execute(_INSERT_DIALOGUE, {"id": dialogue.id, "study_id": study_id, "task_id": task_id, "pairing": pairing, "scenario_key": scenario_key, "status": "live", "end_reason": None, "created_at": time.time(), "finished_at": None, "data": json.dumps(base)})
            connection.execute(_INSERT_SEATS, rows)
            counters.bump(connection, study_id, scenario_key, pairing, +1)
        return [Seat(**{field: row[field] for field in _SEAT_FIELDS}) for row in rows]

    def add_event(self, dialogue_id: str, seq: int, event: Event) -> None:
        self.add_events(dialogue_id, seq, [event])

    def add_events(self, dialogue_id: str, first_seq: int, events: list[Event], move_id: str | None = None) -> None:
        """Store events numbered from `first_seq` (and the move id that made them) in one transaction.

        Raises `EventConflict` when one of those numbers or the move id is already stored.
        """
        item = EventBatchItem(dialogue_id, first_seq, [e.model_dump_json() for e in events], move_id)
        problem = self.add_event_batch([item])[0]
        if problem is not None:
            raise problem

    def add_event_batch(self, items: list[EventBatchItem]) -> list[EventConflict | None]:
        """Store several moves' events in one transaction (the live platform's storage thread sends
        whatever queued up together); returns, per item, None or the `EventConflict` that kept it out.

        Plain inserts on the driver's connection (`plain_sql`): this is the platform's hottest write
        (on PostgreSQL one combined statement in autocommit, one round trip). When one item
        conflicts, the transaction is rolled back and each item is stored in a transaction of its
        own, so the others are kept and only the repeat is refused.
        """
        events = [{"dialogue_id": i.dialogue_id, "seq": i.first_seq + n, "data": data} for i in items for n, data in enumerate(i.events)]
        moves = [{"dialogue_id": i.dialogue_id, "move_id": i.move_id, "seq": i.first_seq} for i in items if i.move_id is not None]
        try:
            if self._combined is not None and 0 < len(events) + len(moves) <= COMBINED_ROWS:
                self._plain.run([self._combined.statement([events, moves])])
            else:
                self._writer.run([(self._insert_events, events), (self._insert_moves, moves)])
            return [None] * len(items)
        except IntegrityError:
            if len(items) == 1:
                return [EventConflict(f"{items[0].dialogue_id}: events from {items[0].first_seq} or move {items[0].move_id!r} already stored")]
        outcomes: list[EventConflict | None] = []
        for item in items:
            outcomes.append(self.add_event_batch([item])[0])
        return outcomes

    def events(self, dialogue_id: str, since: int = 0) -> list[Event]:
        """A dialogue's stored events from number `since` on, in order."""
        rows = self._plain.read(self._queries["events"], {"dialogue_id": dialogue_id, "since": since})
        return [_EVENT.validate_json(data) for (data,) in rows]

    def move_seen(self, dialogue_id: str, move_id: str) -> bool:
        """Whether a move with this id was already applied in this dialogue."""
        return bool(self._plain.read(self._queries["move_seen"], {"dialogue_id": dialogue_id, "move_id": move_id}))

    def finish_dialogue(self, dialogue: Dialogue, end_reason: str | None, set_aside: str | None = None) -> None:
        """Mark finished and store the final parties, outcome and meta (events are already stored);
        `set_aside` (why it is too short to use) keeps it out of quota counts and the rating pool.
        Plain statements, as for moves: every dialogue ends here."""
        data = json.dumps(dialogue.model_dump(mode="json", exclude={"events"}))
        with self.engine.begin() as connection:
            done = connection.execute(_FINISH, {"key": dialogue.id, "status": "finished", "end_reason": end_reason, "finished_at": time.time(), "data": data})
            if done.rowcount != 1:
                raise KeyError(dialogue.id)
            if set_aside is not None and connection.execute(_SET_ASIDE_OF, {"key": dialogue.id}).first() is None:
                connection.execute(insert(SetAsideRow), {"dialogue_id": dialogue.id, "reason": set_aside})
                row = connection.execute(_COUNTED_AS, {"key": dialogue.id}).one()
                counters.bump(connection, row.study_id, row.scenario_key, row.pairing, -1)

    def set_aside(self, study_id: str) -> dict[str, str]:
        """A study's finished dialogues that do not count (too short), with the reason of each."""
        with self._read_session() as session:
            rows = session.execute(select(SetAsideRow.dialogue_id, SetAsideRow.reason).join(DialogueRow, DialogueRow.id == SetAsideRow.dialogue_id).where(DialogueRow.study_id == study_id)).all()
        return {dialogue_id: reason for dialogue_id, reason in rows}

    def set_aside_among(self, dialogue_ids: list[str]) -> set[str]:
        """Which of these dialogues were set aside as too short."""
        if not dialogue_ids:
            return set()
        with self.reader.connect() as connection:
            return set(connection.execute(select(SetAsideRow.dialogue_id).where(SetAsideRow.dialogue_id.in_(dialogue_ids))).scalars())

    def info(self, dialogue_id: str) -> DialogueInfo | None:
        rows = self._plain.read(self._queries["info"], {"id": dialogue_id})
        return DialogueInfo(*rows[0]) if rows else None

    def dialogue(self, dialogue_id: str) -> Dialogue | None:
        """The whole dialogue in the one schema: events in order, all ratings attached."""
        found = self._plain.read(self._queries["dialogue"], {"id": dialogue_id})
        if not found:
            return None
        data = json.loads(found[0][0])
        events = self._plain.read(self._queries["all_events"], {"dialogue_id": dialogue_id})
        ratings = self._plain.read(self._queries["ratings_of"], {"dialogue_id": dialogue_id})
        data["events"] = [json.loads(e) for (e,) in events]
        data["ratings"] = [*data.get("ratings", []), *(json.loads(r) for (r,) in ratings)]
        return Dialogue.model_validate(data)

    def dialogues(self, *, study_id: str | None = None, status: str | None = None) -> list[DialogueInfo]:
        """Dialogues' bookkeeping, oldest first (their JSON is not read: a lease round asks for every live one)."""
        query = select(*_INFO_COLUMNS).order_by(DialogueRow.created_at)
        if study_id is not None:
            query = query.where(DialogueRow.study_id == study_id)
        if status is not None:
            query = query.where(DialogueRow.status == status)
        with self.reader.connect() as connection:
            return [DialogueInfo(*row) for row in connection.execute(query)]

    def iter_dialogues(self, *, study_id: str | None = None, status: str | None = "finished") -> Iterator[Dialogue]:
        for info in self.dialogues(study_id=study_id, status=status):
            dialogue = self.dialogue(info.id)
            if dialogue is not None:
                yield dialogue

    def count_by(self, study_id: str, column: str) -> dict[str, int]:
        """Dialogues of a study per `pairing` or `scenario_key` (for quotas; set-aside ones left out),
        read from the quota counters (`duologue.web.counters`): a row per key, however many are stored."""
        if column == "pairing":
            return counters.totals_of(self._plain.read(self._queries["totals"], {"study": study_id}))
        if column == "scenario_key":
            return counters.per_scenario_of(self.count_pairs(study_id))
        raise ValueError(f"quotas count by pairing or scenario_key, not {column!r}")

    def count_pairs(self, study_id: str) -> dict[tuple[str, str], int]:
        """Dialogues of a study per (scenario_key, pairing), set-aside ones left out (from the counters)."""
        return counters.pairs_of(self._plain.read(self._queries["pairs"], {"study": study_id}))

    def counter_differences(self, study_id: str) -> dict[str, dict[Any, tuple[int, int]]]:
        """Where a study's quota counters disagree with a count over its dialogues (empty: they agree)."""
        with self._read_session() as session:
            return counters.differences(session, study_id)

    def rebuild_counters(self, study_id: str | None = None) -> None:
        """Count a study's (or every study's) quota counters again from the dialogues, e.g. after rows
        were written around `Storage`."""
        with self.engine.begin() as connection:
            counters.rebuild(connection, study_id)

    # ------------------------------------------------------------------ seats

    def seat_by_token(self, token: str) -> Seat | None:
        rows = self._plain.read(self._queries["seat"], {"token": token})
        return Seat(*rows[0]) if rows else None

    def seats(self, dialogue_id: str) -> list[Seat]:
        with self.reader.connect() as connection:
            return [Seat(*row) for row in connection.execute(select(*_SEAT_COLUMNS).where(SeatRow.dialogue_id == dialogue_id).order_by(SeatRow.id))]

    def seats_of_participant(self, participant_id: str, study_id: str | None = None) -> list[tuple[Seat, DialogueInfo]]:
        """Every seat a participant has taken (to resume a live dialogue, or to keep raters apart)."""
        seat_width = len(_SEAT_COLUMNS)
        if study_id is not None and participant_id is not None:  # every arrival at a lobby asks this
            rows: Sequence[Any] = self._plain.read(self._queries["seats_in_study"], {"participant": participant_id, "study": study_id})
        else:
            query = _SEATS_WITH_INFO.where(SeatRow.participant_id == participant_id)
            if study_id is not None:
                query = query.where(DialogueRow.study_id == study_id)
            with self.reader.connect() as connection:
                rows = connection.execute(query).all()
        return [(Seat(*row[:seat_width]), DialogueInfo(*row[seat_width:])) for row in rows]

    def study_seats(self, study_id: str) -> list[tuple[Seat, DialogueInfo]]:
        """Every person's seat in a study's dialogues with its dialogue, oldest dialogue first (the admin's monitor)."""
        query = (
            select(*_SEAT_COLUMNS, *_INFO_COLUMNS)
            .join(DialogueRow, DialogueRow.id == SeatRow.dialogue_id)
            .where(DialogueRow.study_id == study_id, SeatRow.kind == "human")
            .order_by(DialogueRow.created_at, SeatRow.id)
        )
        width = len(_SEAT_COLUMNS)
        with self.reader.connect() as connection:
            return [(Seat(*row[:width]), DialogueInfo(*row[width:])) for row in connection.execute(query)]

    def seated_participants(self, study_id: str) -> set[str]:
        """Every person seated in one of a study's dialogues, whatever became of it (they are paid
        for their dialogue, never for waiting)."""
        query = select(SeatRow.participant_id).join(DialogueRow, DialogueRow.id == SeatRow.dialogue_id).where(DialogueRow.study_id == study_id, SeatRow.participant_id.is_not(None)).distinct()
        with self.reader.connect() as connection:
            return {participant for (participant,) in connection.execute(query) if participant is not None}

    def complete_questionnaire(self, token: str, ratings: list[Rating], completion_code: str) -> Seat:
        """Store a party's answers and its completion code in one transaction, exactly once: of two
        submissions at the same moment (a double click, two tabs, two workers) only the one that
        marks the questionnaire done stores its answers; the other gets the stored seat back."""
        with self._session.begin() as session:
            marked = session.execute(
                update(SeatRow).where(SeatRow.token == token, SeatRow.questionnaire_done.is_(False)).values(questionnaire_done=True, completion_code=completion_code)
            )
            first = cast("CursorResult[Any]", marked).rowcount  # an UPDATE's result is a cursor result; the stubs say only Result
            row = session.scalar(select(SeatRow).where(SeatRow.token == token).execution_options(populate_existing=True))
            if row is None:
                raise KeyError("no such seat")
            if first:
                for rating in ratings:
                    session.add(RatingRow(dialogue_id=row.dialogue_id, rater_kind=rating.rater_kind, rater_id=rating.rater_id, created_at=time.time(), data=rating.model_dump_json()))
            return _seat(row)

    # ------------------------------------------------------------------ ratings

    def add_ratings(self, dialogue_id: str, ratings: list[Rating]) -> None:
        with self._session.begin() as session:
            for rating in ratings:
                session.add(RatingRow(dialogue_id=dialogue_id, rater_kind=rating.rater_kind, rater_id=rating.rater_id, created_at=time.time(), data=rating.model_dump_json()))

    def ratings(self, dialogue_id: str | None = None) -> list[Rating]:
        with self._read_session() as session:
            query = select(RatingRow.data).order_by(RatingRow.id)
            if dialogue_id is not None:
                query = query.where(RatingRow.dialogue_id == dialogue_id)
            return [Rating.model_validate_json(d) for d in session.scalars(query)]

    def assignments(self, study_id: str) -> list[dict[str, Any]]:
        """A study's rating-job assignments as plain records (`duologue.web.rating_jobs.Assignment` fields)."""
        with self._read_session() as session:
            rows = session.scalars(select(RatingJobRow).where(RatingJobRow.study_id == study_id).order_by(RatingJobRow.id))
            return [{"dialogue_id": r.dialogue_id, "rater_id": r.rater_id, "assigned_at": r.created_at, "status": r.status, "done_at": r.done_at} for r in rows]

    def ratable(self, study_id: str) -> list[dict[str, Any]]:
        """A study's finished dialogues with the people who took part (they may not rate them)."""
        with self._read_session() as session:
            rows = session.execute(
                select(DialogueRow.id, DialogueRow.finished_at, SeatRow.participant_id)
                .join(SeatRow, SeatRow.dialogue_id == DialogueRow.id)
                .where(DialogueRow.study_id == study_id, DialogueRow.status == "finished", _counted())
                .order_by(DialogueRow.finished_at, DialogueRow.id)
            ).all()
        found: dict[str, dict[str, Any]] = {}
        for dialogue_id, finished_at, participant in rows:
            record = found.setdefault(dialogue_id, {"dialogue_id": dialogue_id, "participants": [], "finished_at": finished_at or 0.0})
            if participant:
                record["participants"].append(participant)
        return list(found.values())

    def save_assignment(self, study_id: str, assignment: dict[str, Any], ratings: Iterable[Rating] = ()) -> None:
        """Insert or update one assignment (unique per dialogue and rater), with the ratings it brought."""
        with self._session.begin() as session:
            row = session.scalar(select(RatingJobRow).where(RatingJobRow.dialogue_id == assignment["dialogue_id"], RatingJobRow.rater_id == assignment["rater_id"]))
            if row is None:
                row = RatingJobRow(dialogue_id=assignment["dialogue_id"], study_id=study_id, rater_id=assignment["rater_id"], created_at=assignment["assigned_at"])
                session.add(row)
            row.status = assignment["status"]
            row.done_at = assignment.get("done_at")
            for rating in ratings:
                session.add(RatingRow(dialogue_id=assignment["dialogue_id"], rater_kind=rating.rater_kind, rater_id=rating.rater_id, created_at=time.time(), data=rating.model_dump_json()))

    # ------------------------------------------------------------------ studies

    def save_study(self, study_id: str, data: dict[str, Any]) -> None:
        with self._session.begin() as session:
            row = session.get(StudyRow, study_id)
            if row is None:
                session.add(StudyRow(id=study_id, data=json.dumps(data)))
            else:
                row.data = json.dumps(data)

    # ------------------------------------------------------------------ identities

    def bind_session(self, participant_id: str, session: str) -> str:
        """Bind a participant id to a browser session at its first arrival; returns the session it
        is bound to (the given one, or the one that came first)."""
        bound = self.session_of(participant_id)
        if bound is not None:
            return bound
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(IdentityRow).values(participant_id=participant_id, session=session, created_at=time.time()))
            return session
        except IntegrityError:  # another request bound it at the same moment: that one came first
            return self.session_of(participant_id) or session

    def session_of(self, participant_id: str) -> str | None:
        rows = self._plain.read(self._queries["session"], {"participant": participant_id})
        return rows[0][0] if rows else None

    def ids_of_session(self, session: str) -> set[str]:
        """Every id bound to this browser session (a keyed hash, as `bind_session` stores it): the
        identities one browser proved, a participant's and a rater's alike."""
        with self.reader.connect() as connection:
            return set(connection.execute(select(IdentityRow.participant_id).where(IdentityRow.session == session)).scalars())

    def unbind_session(self, participant_id: str, session: str) -> None:
        """Undo a binding to this session (a page that failed after binding never sent its cookie)."""
        with self._session.begin() as db:
            row = db.get(IdentityRow, participant_id)
            if row is not None and row.session == session:
                db.delete(row)

    def studies(self) -> list[dict[str, Any]]:
        with self._read_session() as session:
            return [json.loads(d) for d in session.scalars(select(StudyRow.data).order_by(StudyRow.id))]


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """Turn 'cannot reach the database' into `StorageUnavailable`, so callers need not know SQLAlchemy."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except IntegrityError:
            raise
        except DBAPIError as error:
            raise StorageUnavailable(f"the database is unavailable: {type(error.orig).__name__ if error.orig else error}") from error

    return call


for _name, _method in list(vars(Storage).items()):
    if callable(_method) and not _name.startswith("_") and _name not in ("close", "run"):
        setattr(Storage, _name, _guarded(_method))
