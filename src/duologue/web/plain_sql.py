"""The platform's hottest writes and reads, run on the database driver's own connection.

A person's move stores its events and its move id: two inserts and a commit, hundreds of times a
second at a busy study. Through SQLAlchemy's `Connection` the statement bookkeeping (a cache key,
an execution context, a transaction object) cost about as much as SQLite's own work; here each
statement is compiled once for the engine's dialect and executed with the driver's `executemany`
on a pooled connection, which halves the cost of a move's write (`benchmarks/bench_storage.py`).
The reads that every arrival, page and move make (`PlainQuery`) are run the same way, which halves
their cost to the worker too.

Errors keep SQLAlchemy's types, so callers see the same `IntegrityError` (a repeated event number
or move id) and `DBAPIError` (the database cannot be reached) as from any other storage call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

from sqlalchemy import Table, bindparam, insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.selectable import SelectBase
from sqlalchemy.sql.compiler import SQLCompiler

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import DBAPIConnection

SHAPES_KEPT = 64
"""Compiled combined inserts kept per `CombinedInsert` (one per count of rows of each table)."""


class PlainStatement:
    """One statement compiled for `engine`'s driver; rows are given as dicts of its parameters (a
    value the statement itself holds, such as the 0 of `n != 0`, is filled in)."""

    def __init__(self, engine: Engine, statement: ClauseElement, keys: Sequence[str]) -> None:
        compiled = statement.compile(dialect=engine.dialect, column_keys=list(keys))
        assert isinstance(compiled, SQLCompiler)
        self.sql = compiled.string
        self.order = list(compiled.positiontup or [])
        """The bind names in the order of a positional driver's placeholders (empty: named ones)."""
        self.names = {name: bind.key for name, bind in compiled.binds.items() if bind.required}
        self.fixed = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}

    def parameters(self, row: dict[str, Any]) -> Any:
        """`row` in the form the driver takes for this statement (a tuple or a dict)."""
        if self.order:
            return tuple(row[self.names[name]] if name in self.names else self.fixed[name] for name in self.order)
        return {**self.fixed, **{name: row[key] for name, key in self.names.items()}}


class PlainQuery:
    """A read compiled once for `engine`'s driver, its rows as tuples of Python values (each
    column's own result processing applied, as SQLAlchemy would: SQLite's 0/1 become booleans)."""

    def __init__(self, engine: Engine, statement: SelectBase) -> None:
        self.statement = PlainStatement(engine, statement, ())
        self.processors = [column.type.result_processor(engine.dialect, None) for column in statement.selected_columns]
        self._plain = not any(self.processors)

    def rows(self, fetched: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
        if self._plain:
            return [tuple(row) for row in fetched]
        return [tuple(value if process is None else process(value) for process, value in zip(self.processors, row, strict=True)) for row in fetched]


class PlainWriter:
    """Runs a few `PlainStatement`s as one transaction, or a `PlainQuery`, on a pooled driver connection."""

    def __init__(self, engine: Engine, *, autocommit: bool = False) -> None:
        self.engine = engine
        self.dbapi = engine.dialect.loaded_dbapi
        self.autocommit = autocommit
        """Run on a connection in autocommit (for one statement that is its own transaction), put
        back to the pool's default afterwards."""

    def run(self, steps: Sequence[tuple[PlainStatement, list[dict[str, Any]]]]) -> None:
        """Each statement with its rows (skipped when it has none), all committed together, or
        none of them: any error rolls the transaction back and is raised as SQLAlchemy's own."""
        running = [""]  # the statement under way, for the error

        def write(cursor: Any) -> None:
            for statement, rows in steps:
                running[0] = statement.sql
                if len(rows) == 1:
                    cursor.execute(statement.sql, statement.parameters(rows[0]))
                elif rows:
                    cursor.executemany(statement.sql, [statement.parameters(row) for row in rows])

        self._on_connection(lambda: running[0], write, commit=True)

    def read(self, query: PlainQuery, parameters: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The rows of one read (in autocommit when this writer runs so: one round trip)."""
        fetched: list[Any] = []

        def fetch(cursor: Any) -> None:
            cursor.execute(query.statement.sql, query.statement.parameters(parameters))
            fetched.extend(cursor.fetchall())

        self._on_connection(lambda: query.statement.sql, fetch, commit=False)
        return query.rows(fetched)

    def _on_connection(self, sql: Callable[[], str], work: Callable[[Any], None], *, commit: bool) -> None:
        """`work(cursor)` on a pooled driver connection (then committed, if `commit`). Errors are
        raised as SQLAlchemy's own (`sql()` names the statement that failed); when the database dropped the
        connection, the pool is emptied, so the next call connects afresh."""
        try:
            connection = self.engine.raw_connection()
        except self.dbapi.Error as error:  # the database cannot be reached
            raise self._wrapped("connect", error) from error
        dialect = self.engine.dialect
        try:
            if self.autocommit:
                dialect.set_isolation_level(cast("DBAPIConnection", connection.dbapi_connection), "AUTOCOMMIT")
            cursor = connection.cursor()
            try:
                work(cursor)
                if commit:
                    connection.commit()
            finally:
                cursor.close()
        except self.dbapi.Error as error:
            try:
                connection.rollback()
                dropped = dialect.is_disconnect(error, connection.dbapi_connection, None)
            except self.dbapi.Error:
                dropped = True
            if dropped:  # the server went away: every pooled connection is dead too, as SQLAlchemy assumes
                connection.invalidate()
                self.engine.dispose()
            raise self._wrapped(sql(), error) from error
        finally:
            if self.autocommit and connection.is_valid:
                try:
                    dialect.reset_isolation_level(cast("DBAPIConnection", connection.dbapi_connection))
                except self.dbapi.Error:  # a connection that cannot be reset is not used again
                    connection.invalidate()
            connection.close()

    def _wrapped(self, sql: str, error: Exception) -> StatementError:
        return DBAPIError.instance(sql, None, error, self.dbapi.Error, dialect=self.engine.dialect)


class CombinedInsert:
    """Rows for several tables stored by one statement, on a database that takes inserts inside
    WITH (PostgreSQL): on a connection in autocommit that statement is its own transaction, all
    rows or none, and one round trip, where BEGIN, an insert per table and COMMIT take four (a
    move's write then costs the database server half the work and its worker a third).

    Compiled once per count of rows of each table (the cache keeps `SHAPES_KEPT` of them).
    """

    def __init__(self, engine: Engine, tables: Sequence[tuple[Table, Sequence[str]]]) -> None:
        self.engine = engine
        self.tables = list(tables)
        """Each table with the columns its rows give, in order."""
        self._compiled: dict[tuple[int, ...], PlainStatement] = {}

    def statement(self, rows: Sequence[list[dict[str, Any]]]) -> tuple[PlainStatement, list[dict[str, Any]]]:
        """The statement for these rows (one list per table, in order; at least one row in all) and
        its one row of parameters."""
        counts = tuple(len(table_rows) for table_rows in rows)
        compiled = self._compiled.get(counts)
        if compiled is None:
            if len(self._compiled) >= SHAPES_KEPT:
                self._compiled.clear()
            compiled = self._compiled[counts] = self._compile(counts)
        flat = {f"t{t}r{r}_{column}": row[column] for t, (table_rows, (_, columns)) in enumerate(zip(rows, self.tables, strict=True)) for r, row in enumerate(table_rows) for column in columns}
        return compiled, [flat]

    def _compile(self, counts: tuple[int, ...]) -> PlainStatement:
        inserts = [
            insert(table).values([{column: bindparam(f"t{t}r{r}_{column}") for column in columns} for r in range(count)])
            for t, ((table, columns), count) in enumerate(zip(self.tables, counts, strict=True))
            if count
        ]
        if not inserts:
            raise ValueError("a combined insert needs at least one row")
        last = inserts[-1]
        for n, earlier in enumerate(inserts[:-1]):
            last = last.add_cte(earlier.cte(f"stored_{n}"))
        return PlainStatement(self.engine, last, ())

