"""Quota counters: how many dialogues of a study count toward its quotas, kept as rows.

A dialogue counts toward its study's quotas from the moment it is created (live or finished,
interrupted included) unless it is set aside as too short to use. The lobby asks for these counts
at every pairing; counting them with a GROUP BY over every dialogue of the study made a join cost
grow with the study. Here they are kept instead, per (study, scenario, pairing) in `quota_counts`
and per (study, pairing) in `quota_totals`, and changed in the very transaction that creates a
dialogue (+1) or sets one aside (-1), so they cannot drift from the dialogues: a failed write
leaves neither changed. Reading a study's totals costs one row per pairing, its per-scenario counts
one row per (scenario, pairing) of its pool: nothing grows with the dialogues stored.

The rows are built from the dialogues table once, when a database first meets this code (its
`counter_builds` mark is missing), and again for any study that has dialogues but no counters
(written by something that bypassed `Storage`); `rebuild` does it on request, `differences` checks
them against the GROUP BY truth. On PostgreSQL a rebuild locks both tables against writers for its
few statements, so a dialogue created meanwhile by another worker is counted exactly once.

The dialogues and set-aside tables are named here as plain tables (not imported from `storage`, which
imports this module).
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Union, cast

from sqlalchemy import Float, Integer, String, bindparam, column, delete, func, insert, select, table, text, update
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

Executor = Union[Session, Connection]
"""Where counters are read or written: a session or a connection, inside the caller's transaction."""

BUILT = "quota"
"""The `counter_builds` mark of a database whose quota counters were built from its dialogues."""
STARTUP_LOCK = 0x64756F6C
"""PostgreSQL advisory lock key held while a worker prepares the counters."""

_dialogues = table("dialogues", column("id"), column("study_id"), column("scenario_key"), column("pairing"))
_set_aside = table("set_aside", column("dialogue_id"))


class CounterBase(DeclarativeBase):
    pass


class QuotaCountRow(CounterBase):
    """Counted dialogues of a study per scenario and pairing (the per-scenario quota)."""

    __tablename__ = "quota_counts"
    study_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    scenario_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    pairing: Mapped[str] = mapped_column(String(80), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, default=0)


class QuotaTotalRow(CounterBase):
    """Counted dialogues of a study per pairing (the quota per partner type)."""

    __tablename__ = "quota_totals"
    study_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    pairing: Mapped[str] = mapped_column(String(80), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, default=0)


class CounterBuildRow(CounterBase):
    __tablename__ = "counter_builds"
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    built_at: Mapped[float] = mapped_column(Float)


def _upsert(dialect: str) -> Any:
    """The dialect's INSERT that can say ON CONFLICT (SQLite and PostgreSQL both can)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert
    return None


def _dialect(session: Executor) -> str:
    return session.get_bind().dialect.name if isinstance(session, Session) else session.dialect.name


def _add(session: Executor, row: type[QuotaCountRow] | type[QuotaTotalRow], keys: dict[str, str], delta: int) -> None:
    upsert = _upsert(_dialect(session))
    if upsert is not None:
        statement = upsert(row).values(**keys, n=delta)
        session.execute(statement.on_conflict_do_update(index_elements=list(keys), set_={"n": row.n + delta}))
        return
    changed = session.execute(update(row).filter_by(**keys).values(n=row.n + delta))  # another database: no concurrent first rows
    if not cast("CursorResult[Any]", changed).rowcount:
        session.execute(insert(row).values(**keys, n=delta))


def bump(session: Executor, study_id: str, scenario_key: str, pairing: str, delta: int) -> None:
    """Change one dialogue's counts by `delta` (+1 created, -1 set aside), in the caller's transaction.
    Always the per-scenario row first, then the total: every writer locks them in one order."""
    _add(session, QuotaCountRow, {"study_id": study_id, "scenario_key": scenario_key, "pairing": pairing}, delta)
    _add(session, QuotaTotalRow, {"study_id": study_id, "pairing": pairing}, delta)


TOTALS = select(QuotaTotalRow.pairing, QuotaTotalRow.n).where(QuotaTotalRow.study_id == bindparam("study"), QuotaTotalRow.n != 0)
"""A study's (pairing, count) rows; the parameter is `study`."""
PAIRS = select(QuotaCountRow.scenario_key, QuotaCountRow.pairing, QuotaCountRow.n).where(QuotaCountRow.study_id == bindparam("study"), QuotaCountRow.n != 0)
"""A study's (scenario_key, pairing, count) rows; the parameter is `study`."""


def totals(session: Executor, study_id: str) -> dict[str, int]:
    """Counted dialogues per pairing (pairings with none left out, as a GROUP BY would)."""
    return totals_of(session.execute(TOTALS, {"study": study_id}))


def totals_of(rows: Iterable[Any]) -> dict[str, int]:
    return {pairing: n for pairing, n in rows}


def pairs(session: Executor, study_id: str) -> dict[tuple[str, str], int]:
    """Counted dialogues per (scenario_key, pairing)."""
    return pairs_of(session.execute(PAIRS, {"study": study_id}))


def pairs_of(rows: Iterable[Any]) -> dict[tuple[str, str], int]:
    return {(scenario, pairing): n for scenario, pairing, n in rows}


def per_scenario_of(counted: dict[tuple[str, str], int]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for (scenario, _), n in counted.items():
        counts[scenario] = counts.get(scenario, 0) + n
    return counts


# ---------------------------------------------------------------------- the truth, and rebuilding from it


def _truth_query(study_id: str | None) -> Any:
    """(study, scenario, pairing, counted) over the dialogues themselves: every combination that has a
    dialogue, with how many are not set aside (0 when all are)."""
    counted = func.count() - func.count(_set_aside.c.dialogue_id)
    query = (
        select(_dialogues.c.study_id, _dialogues.c.scenario_key, _dialogues.c.pairing, counted)
        .select_from(_dialogues.outerjoin(_set_aside, _set_aside.c.dialogue_id == _dialogues.c.id))
        .group_by(_dialogues.c.study_id, _dialogues.c.scenario_key, _dialogues.c.pairing)
    )
    return query if study_id is None else query.where(_dialogues.c.study_id == study_id)


def truth(session: Executor, study_id: str) -> dict[tuple[str, str], int]:
    """Counted dialogues per (scenario_key, pairing) by a GROUP BY over the study's dialogues."""
    return {(scenario, pairing): n for _, scenario, pairing, n in session.execute(_truth_query(study_id)) if n}


def differences(session: Executor, study_id: str) -> dict[str, dict[Any, tuple[int, int]]]:
    """Where the study's counters and the truth disagree: {"pairs"|"totals": {key: (counter, truth)}}; empty when they agree."""
    true_pairs = truth(session, study_id)
    true_totals: dict[str, int] = {}
    for (_, pairing), n in true_pairs.items():
        true_totals[pairing] = true_totals.get(pairing, 0) + n
    found = {"pairs": _disagree(pairs(session, study_id), true_pairs), "totals": _disagree(totals(session, study_id), true_totals)}
    return {name: wrong for name, wrong in found.items() if wrong}


def _disagree(kept: dict[Any, int], real: dict[Any, int]) -> dict[Any, tuple[int, int]]:
    return {key: (kept.get(key, 0), real.get(key, 0)) for key in set(kept) | set(real) if kept.get(key, 0) != real.get(key, 0)}


def _lock(connection: Connection) -> None:
    """Keep writers out of the counters until this transaction ends (PostgreSQL; SQLite has one writer)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("LOCK TABLE quota_counts, quota_totals IN SHARE ROW EXCLUSIVE MODE"))


def _rebuild(connection: Connection, study_id: str | None) -> None:
    for row in (QuotaCountRow, QuotaTotalRow):
        query = delete(row)
        connection.execute(query if study_id is None else query.where(row.study_id == study_id))
    built = _truth_query(study_id)
    connection.execute(insert(QuotaCountRow).from_select(["study_id", "scenario_key", "pairing", "n"], built))
    sums = select(QuotaCountRow.study_id, QuotaCountRow.pairing, func.sum(QuotaCountRow.n)).group_by(QuotaCountRow.study_id, QuotaCountRow.pairing)
    connection.execute(insert(QuotaTotalRow).from_select(["study_id", "pairing", "n"], sums if study_id is None else sums.where(QuotaCountRow.study_id == study_id)))


def rebuild(connection: Connection, study_id: str | None = None) -> None:
    """Count again from the dialogues (one study, or all), in the caller's transaction."""
    _lock(connection)
    _rebuild(connection, study_id)
    _mark(connection)


def _mark(connection: Connection) -> bool:
    """Set the built mark; whether it was new."""
    upsert = _upsert(connection.dialect.name)
    if upsert is not None:
        result = connection.execute(upsert(CounterBuildRow).values(name=BUILT, built_at=time.time()).on_conflict_do_nothing())
        return bool(cast("CursorResult[Any]", result).rowcount)
    if connection.execute(select(CounterBuildRow.name).where(CounterBuildRow.name == BUILT)).first() is not None:
        return False
    connection.execute(insert(CounterBuildRow).values(name=BUILT, built_at=time.time()))
    return True


def prepare(engine: Engine) -> list[str] | None:
    """Create the counter tables if missing and `ensure` they are built, in one transaction. On
    PostgreSQL, workers starting together take turns (a transaction-scoped advisory lock), so only
    the first creates and builds, and the others find it done."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": STARTUP_LOCK})
        CounterBase.metadata.create_all(connection)
        return ensure(connection)


def ensure(connection: Connection) -> list[str] | None:
    """Build the counters of a database that has none yet, and of any study found without them.
    Returns None when nothing was built, [] after a first build of everything, else the studies rebuilt.

    On SQLite the first statement writes, so this holds the one write lock from its start.
    """
    _lock(connection)
    if _mark(connection):
        _rebuild(connection, None)
        return []
    counted = select(QuotaTotalRow.study_id).distinct()
    missing = [s for (s,) in connection.execute(select(_dialogues.c.study_id).distinct().where(_dialogues.c.study_id.not_in(counted)))]
    for study_id in missing:
        _rebuild(connection, study_id)
    return missing or None
