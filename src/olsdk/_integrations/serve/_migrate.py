"""Bringing a store made by an earlier olsdk up to date when it is opened (`Store._open_schema`).

- **Indexes** added since are created (by name: reflection does not see expression
  indexes), and those replaced since are dropped: they held whole names and run ids, longer
  than PostgreSQL's index rows allow.
- **Event numbers never given twice** (SQLite): the ``events`` table numbers its rows with
  ``AUTOINCREMENT``, so that a number stays used after its event is deleted (retention
  deletes them all, the newest too). Without it SQLite numbers a new row one past the
  highest left, and an event numbered at or below the last one derived would never be
  derived. An ``events`` table made without it is rebuilt with it, its rows and their
  numbers kept, when the store is opened: once, taking about as long as copying the table.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.schema import CreateIndex

from olsdk._integrations.serve import _schema as t

__all__ = ["migrate"]

_LEGACY_EVENTS = "events_before_autoincrement"


def migrate(conn: Connection) -> None:
    """Bring the store on `conn` (its tables created when missing) up to date, in its transaction."""
    if conn.dialect.name == "sqlite":
        _number_events_once(conn)
    _migrate_indexes(conn)


def _migrate_indexes(conn: Connection) -> None:
    for table in t.metadata.sorted_tables:
        for index in table.indexes:
            conn.execute(CreateIndex(index, if_not_exists=True))
    for retired in t.RETIRED_INDEXES:
        conn.execute(text(f"DROP INDEX IF EXISTS {retired}"))


def _sql_of(conn: Connection, table: str) -> str | None:
    found = conn.execute(text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :name"), {"name": table})
    sql = found.scalar()
    return None if sql is None else str(sql)


def _number_events_once(conn: Connection) -> None:
    """SQLite's ``events`` table made again with ``AUTOINCREMENT``, with every row and its number
    (SQLite's way of changing a table: a new one, the rows copied, the old one dropped).

    SQLite's driver runs the renaming and the new table's creation each on its own, and the
    copy with the old table's dropping in one transaction: a rebuild cut short at any point
    is taken up again by the next (the old table, while it is there, holds every row)."""
    if _sql_of(conn, _LEGACY_EVENTS) is None:
        if "AUTOINCREMENT" in (_sql_of(conn, "events") or "").upper():
            return
        for index in t.events.indexes:  # their names are the new table's
            conn.execute(text(f"DROP INDEX IF EXISTS {index.name}"))
        conn.execute(text(f"ALTER TABLE events RENAME TO {_LEGACY_EVENTS}"))
    t.events.create(conn, checkfirst=True)  # with its indexes
    columns = ", ".join(f'"{column.name}"' for column in t.events.c)
    conn.execute(text(f"INSERT INTO events ({columns}) SELECT {columns} FROM {_LEGACY_EVENTS} ORDER BY seq"))
    conn.execute(text(f"DROP TABLE {_LEGACY_EVENTS}"))
