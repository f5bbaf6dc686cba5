"""The store: every event not yet delivered, in one SQLite database (WAL mode) per spool path.

One table holds each record, whatever its state:

* ``pending``: written before its first attempt (``emit`` commits it before it returns);
* ``retrying``: an attempt failed and the relay tries again at ``next_try``;
* ``given_up``: retrying cannot help (or the retries are spent): ``olsdk replay`` resends
  it; ``reason`` says why. Input that is no event is kept the same way, as text.

Delivered records are deleted. Every process of a host opens its own connection (after a
fork, a fresh one: a connection is never used across a fork), and SQLite's transactions
and ``busy_timeout`` are the one locking story. A record is *owned* by the process that
delivers it (``owner``: its pid and start time); when that process is gone, or released
its records at ``close()``, another process takes them over (:meth:`Store.adopt`).

Durability: with ``fsync: never`` (the default, SQLite's ``synchronous=NORMAL``) a record is
in the operating system's hands when ``emit`` returns: it survives the process being killed
or ending with ``os._exit``, not a power loss. ``fsync: always`` (``synchronous=FULL``)
survives power loss too, for a disk flush per commit.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["Liveness", "Row", "Store", "owner_token", "process_alive"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    run_key TEXT NOT NULL,
    target TEXT,
    kind TEXT NOT NULL DEFAULT 'event',
    body BLOB NOT NULL,
    state TEXT NOT NULL,
    owner TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_try REAL NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    failed_by TEXT,
    retriable INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS records_run ON records (run_key, id);
CREATE TABLE IF NOT EXISTS breakers (
    identity TEXT PRIMARY KEY, until REAL NOT NULL, cooldown REAL NOT NULL, reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS roles (name TEXT PRIMARY KEY, owner TEXT NOT NULL);
"""
_FIELDS = "run_key, target, kind, body, state, owner, attempts, next_try, reason, failed_by, retriable, created"
_COLUMNS = f"id, {_FIELDS}"
_BUSY_MS = 10_000
_INSERT = f"INSERT INTO records ({_FIELDS}) VALUES ({', '.join('?' for _ in _FIELDS.split(','))})"
_CHECKPOINT_INLINE = 20_000  # commits after which a committing thread checkpoints (no relay did)
# a retrying record of the owner that no earlier record of its run (and target) waits before
_HEADS = (
    "owner = ? AND state = 'retrying' AND NOT EXISTS (SELECT 1 FROM records p WHERE p.run_key = r.run_key"
    " AND p.id < r.id AND p.owner = r.owner AND p.state != 'given_up' AND p.target IS r.target)"
)


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def owner_token() -> str:
    """This process (its pid and start time) and one store object of it (two clients of one
    process own their records apart)."""
    pid = os.getpid()
    return f"{pid}:{_start_time(pid)}:{secrets.token_hex(4)}"


def process_alive(token: str) -> bool:
    """Whether the process that wrote ``token`` (see :func:`owner_token`) still runs."""
    pid_text, _, rest = token.partition(":")
    started = rest.split(":", 1)[0]
    if not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not started or _start_time(int(pid_text)) == started


class Liveness(dict[str, bool]):
    """Whether the process of each owner token runs, asked once per token (see :func:`process_alive`)."""

    def __missing__(self, token: str) -> bool:
        alive = self[token] = process_alive(token)
        return alive


@dataclass
class Row:
    """One record as read back."""

    id: int
    run_key: str
    target: str | None
    kind: str  # "event", "raw" (input that is no event) or "unreadable" (a damaged legacy line)
    body: bytes
    state: str
    owner: str | None
    attempts: int
    next_try: float
    reason: str
    failed_by: str | None
    retriable: bool
    created: float


def _row(values: Sequence[Any]) -> Row:
    row = Row(*values)
    row.body = bytes(row.body)
    row.retriable = bool(row.retriable)
    return row


# The database files this process has prepared (path -> device and inode). A file is opened
# with a descriptor of olsdk's own once, before SQLite opens it here: closing any descriptor of
# a file drops every POSIX lock the process holds on it, SQLite's connections' locks included,
# and another process closing its connection would then take itself for the last one and
# delete the write-ahead log in use. A file replaced since (another inode) is prepared again.
_PREPARED: dict[Path, tuple[int, int]] = {}


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _prepare_file(path: Path) -> None:
    """The folder (0700) and the file (0600): records may hold anything a lineage holds."""
    if path in _PREPARED and _PREPARED[path] == _identity(path):
        return
    folder = path.parent
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
    from olsdk._delivery.client._legacy import set_aside

    set_aside(path)  # an NDJSON spool of an earlier olsdk at this path: migrated on open
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    if (identity := _identity(path)) is not None:
        _PREPARED[path] = identity


class Store:
    """The database at ``path`` (``":memory:"``: this process only, when no spool is kept).
    Thread-safe; reopened in a forked child on first use there."""

    def __init__(self, path: str | os.PathLike[str], fsync: Literal["never", "always"] = "never") -> None:
        self.memory = os.fspath(path) == ":memory:"
        self.path = Path(path) if self.memory else Path(path).expanduser().absolute()
        self.fsync = fsync
        self._pid = -1
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.owner = ""
        self.unchecked = 0  # commits since the last checkpoint
        self._checkpointer: tuple[int, sqlite3.Connection] | None = None

    # -- the connection -----------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self._lock = threading.Lock()  # one another thread held at fork time is never released
        self._pid = os.getpid()
        self.owner = owner_token()
        if not self.memory:
            _prepare_file(self.path)
        conn = sqlite3.connect(
            ":memory:" if self.memory else str(self.path),
            isolation_level=None,
            check_same_thread=False,
            timeout=_BUSY_MS / 1000,
        )
        conn.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
        conn.execute("PRAGMA page_size=1024")  # a new database: a record is a few hundred bytes
        if not self.memory:
            conn.execute("PRAGMA journal_mode=WAL")
            # no checkpoint in a committing thread (an emit): the relay's thread makes them, on
            # a connection of its own (see checkpoint), so an emit never waits for a disk flush
            conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute(f"PRAGMA synchronous={'FULL' if self.fsync == 'always' else 'NORMAL'}")
        conn.executescript(_SCHEMA)
        self._conn = conn
        if not self.memory:
            from olsdk._delivery.client._legacy import migrate

            if migrate(self):
                self.checkpoint()  # the one-time import, into the database now
        return conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): committed on exit, rolled back on error."""
        conn = self._connect()
        with self._lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self._committed()

    def _committed(self) -> None:
        self.unchecked += 1
        if self.unchecked >= _CHECKPOINT_INLINE:  # no relay made one for that long: this thread does
            self.checkpoint()

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database (SQLite's PASSIVE checkpoint: writers
        never wait for it), on a connection of the calling thread's own."""
        if self.memory or self._conn is None:
            return
        self.unchecked = 0
        found = self._checkpointer
        if found is None or found[0] != os.getpid():
            conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=1.0)
            found = self._checkpointer = (os.getpid(), conn)
        with contextlib.suppress(sqlite3.Error):
            found[1].execute("PRAGMA wal_checkpoint(PASSIVE)")

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        conn = self._connect()
        with self._lock:
            return conn.execute(sql, args).fetchall()

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self.checkpoint()
            with self._lock:
                self._conn.close()
        if self._checkpointer is not None and self._checkpointer[0] == os.getpid():
            self._checkpointer[1].close()
        self._conn = self._checkpointer = None

    # -- writing --------------------------------------------------------------------------

    def add(
        self,
        body: bytes,
        run_key: str,
        targets: Sequence[str | None] = (None,),
        *,
        state: str = "pending",
        kind: str = "event",
        reason: str = "",
        attempts: int = 0,
        failed_by: str | None = None,
        retriable: bool = True,
        owner: str | Literal[True] | None = True,
    ) -> list[int]:
        """Insert one record per target, committed before this returns; their ids."""
        now = time.time()
        conn = self._connect()  # first: it names this process's owner
        who = self.owner if owner is True else owner
        rows = [(run_key, t, kind, body, state, who, attempts, now, reason, failed_by, retriable, now) for t in targets]
        if len(rows) == 1:  # one statement: its own transaction (the commit per event of emit)
            with self._lock:
                found = conn.execute(_INSERT, rows[0]).lastrowid
            self._committed()
            return [int(found or 0)]
        with self.transaction() as conn:
            return [int(conn.execute(_INSERT, row).lastrowid or 0) for row in rows]

    def delete(self, ids: Sequence[int]) -> None:
        if len(ids) == 1:  # one statement: its own transaction
            conn = self._connect()
            with self._lock:
                conn.execute("DELETE FROM records WHERE id = ?", (ids[0],))
            self._committed()
        elif ids:
            with self.transaction() as conn:
                conn.executemany("DELETE FROM records WHERE id = ?", [(i,) for i in ids])

    def failed(
        self,
        record_id: int,
        *,
        state: str,
        reason: str,
        attempts: int,
        next_try: float = 0.0,
        failed_by: str | None = None,
        retriable: bool = True,
        target: str | Literal[False] | None = False,
    ) -> None:
        """Record a failed attempt: ``attempts`` more, the reason, the new state."""
        sets = "state = ?, reason = ?, attempts = attempts + ?, next_try = ?, failed_by = ?, retriable = ?"
        args: list[Any] = [state, reason, max(attempts, 0), next_try, failed_by, retriable]
        if target is not False:
            sets += ", target = ?"
            args.append(target)
        if state == "given_up":
            sets += ", owner = NULL"
        with self.transaction() as conn:
            conn.execute(f"UPDATE records SET {sets} WHERE id = ?", (*args, record_id))

    def copy_for(self, record_id: int, target: str | None) -> int:
        """A copy of a record for one more target (a composite's children each owe a delivery)."""
        with self.transaction() as conn:
            copied = _FIELDS.replace("target", "?")  # the same values, for ``target``
            cursor = conn.execute(
                f"INSERT INTO records ({_FIELDS}) SELECT {copied} FROM records WHERE id = ?", (target, record_id)
            )
            return int(cursor.lastrowid or 0)

    def release(self) -> int:
        """Give up ownership of this process's records still owed (at close): another process may
        take them over at once. Returns how many."""
        if self._conn is None or self._pid != os.getpid():
            return 0
        with self.transaction() as conn:
            count = conn.execute(
                "UPDATE records SET owner = NULL, state = 'retrying', reason = CASE WHEN reason = '' AND state ="
                " 'pending' THEN 'not answered before close' ELSE reason END WHERE owner = ? AND state != 'given_up'",
                (self.owner,),
            ).rowcount
            conn.execute("DELETE FROM roles WHERE owner = ?", (self.owner,))
            return int(count)

    # -- reading --------------------------------------------------------------------------

    def due(self, now: float, limit: int = 64) -> list[Row]:
        """This process's records to retry now, oldest first, each the first owed of its run."""
        where = f"{_HEADS} AND next_try <= ? ORDER BY id LIMIT ?"
        return [
            _row(v) for v in self.query(f"SELECT {_COLUMNS} FROM records r WHERE {where}", (self.owner, now, limit))
        ]

    def next_due(self) -> dict[str | None, float]:
        """Target -> when the first of this process's records for it that heads its run is due."""
        query = f"SELECT target, MIN(next_try) FROM records r WHERE {_HEADS} GROUP BY target"
        return {target: due for target, due in self.query(query, (self._owner_now(),)) if due is not None}

    def owed(self) -> int:
        """Records this process still owes a delivery (pending or retrying)."""
        found = self.query("SELECT COUNT(*) FROM records WHERE owner = ? AND state != 'given_up'", (self._owner_now(),))
        return int(found[0][0])

    def _owner_now(self) -> str:
        self._connect()
        return self.owner

    def rows(self, where: str = "1", args: Sequence[Any] = ()) -> list[Row]:
        return [_row(v) for v in self.query(f"SELECT {_COLUMNS} FROM records WHERE {where} ORDER BY id", args)]

    def unpark(self, keep: Sequence[int]) -> None:
        """A destination is back: this process's retries that waited for it are due now
        (those waiting out a backoff, ``keep``, excepted)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE records SET next_try = 0 WHERE owner = ? AND state = 'retrying'"
                f" AND id NOT IN ({','.join('?' * len(keep))})",
                (self.owner, *keep),
            )

    # -- taking over what processes that are gone left ------------------------------------

    def claim_role(self, conn: sqlite3.Connection, name: str) -> bool:
        """Hold the role ``name`` (one process at a time, while it lives): within a transaction."""
        found = conn.execute("SELECT owner FROM roles WHERE name = ?", (name,)).fetchone()
        if found is not None and found[0] != self.owner and process_alive(found[0]):
            return False
        conn.execute("INSERT OR REPLACE INTO roles (name, owner) VALUES (?, ?)", (name, self.owner))
        return True

    def adopt(self, role: str = "finisher") -> tuple[int, set[str]]:
        """Take over the records owed by processes that are gone (or that released them),
        holding ``role`` so that one process at a time does it (a run's events left by several
        processes stay in order). Returns how many, and the owners they came from."""
        with self.transaction() as conn:
            if not self.claim_role(conn, role):
                return 0, set()
            owners = {
                owner
                for (owner,) in conn.execute("SELECT DISTINCT owner FROM records WHERE state != 'given_up'")
                if owner != self.owner
            }
            gone = sorted((o for o in owners if o is None or not process_alive(o)), key=lambda o: o or "")
            taken = 0
            for owner in gone:
                taken += conn.execute(
                    "UPDATE records SET owner = ?, state = 'retrying', next_try = 0 WHERE owner IS ?"
                    " AND state != 'given_up'",
                    (self.owner, owner),
                ).rowcount
            return taken, {o or "released" for o in gone}


class SharedBreakers:
    """The breakers' state shared by the processes of a host: a row per destination (its hash)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def breaker_state(self, identity: str) -> tuple[float, float, str] | None:
        found = self.store.query("SELECT until, cooldown, reason FROM breakers WHERE identity = ?", (identity,))
        return (float(found[0][0]), float(found[0][1]), str(found[0][2])) if found else None

    def set_breaker(self, identity: str, until: float, cooldown: float, reason: str) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO breakers (identity, until, cooldown, reason) VALUES (?, ?, ?, ?)",
                (identity, until, cooldown, reason[:300]),
            )

    def clear_breaker(self, identity: str | None = None) -> None:
        with self.store.transaction() as conn:
            if identity is None:
                conn.execute("DELETE FROM breakers")
            else:
                conn.execute("DELETE FROM breakers WHERE identity = ?", (identity,))

    def claim_probe(self, identity: str, cooldown: float) -> bool:
        """Move the shared probe time on by ``cooldown``; False when another process holds it."""
        with self.store.transaction() as conn:
            found = conn.execute("SELECT until FROM breakers WHERE identity = ?", (identity,)).fetchone()
            if found is None:
                return True  # gone: someone delivered
            if float(found[0]) > time.time():
                return False
            conn.execute("UPDATE breakers SET until = ? WHERE identity = ?", (time.time() + cooldown, identity))
            return True
