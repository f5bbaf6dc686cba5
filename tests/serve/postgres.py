"""A throwaway PostgreSQL cluster from Debian's packages: initdb, pg_ctl, a free port, a temp dir.

Used by the `olsdk serve` tests and by ``bench/serve.py``. The binaries are found on
PATH or in ``/usr/lib/postgresql/<version>/bin`` (where Debian puts them; ``.ci/run``
installs the ``postgresql`` package). PostgreSQL refuses to run as root, so as root the
cluster runs as the ``postgres`` user the package creates. The cluster listens on
127.0.0.1 only, with a password (scram-sha-256), and is stopped by ``pg_ctl stop``
(its postmaster killed by PID if that fails) and removed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresCluster", "postgres_bin"]

USER = "olsdk"
PASSWORD = "pg-test-secret-7d2f"


def postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl (the newest Debian version), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class PostgresCluster:
    """A running cluster; `url(database)` gives a ``postgresql://`` URL with the password."""

    def __init__(self, bin_dir: Path, *, fsync: bool = True, timeout: float = 120) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="olsdk-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.timeout = timeout
        self._as: str | None = None
        if os.geteuid() == 0:
            self._as = "postgres"
            entry = pwd.getpwnam(self._as)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        password_file = self.root / "password"
        password_file.write_text(PASSWORD)
        if self._as:
            os.chown(password_file, pwd.getpwnam(self._as).pw_uid, -1)
        try:
            self._run(
                "initdb", "-D", str(self.data), "-U", USER, "--auth=scram-sha-256", f"--pwfile={password_file}",
                "--no-locale", "--encoding=UTF8",
            )  # fmt: skip
            options = (
                f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories='{self.root}' "
                f"-c fsync={'on' if fsync else 'off'} -c max_connections=100"
            )
            self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        except BaseException:
            self.stop()
            raise

    def _run(self, tool: str, *args: str) -> None:
        result = subprocess.run(
            [str(self.bin / tool), *args],
            user=self._as,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=self.timeout,
        )
        if result.returncode != 0:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"{tool} failed ({result.returncode}): {result.stderr[-2000:]} {log[-2000:]}")

    def url(self, database: str = "postgres", *, password: bool = True) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # names come from the tests, not from users
        return self.url(name)

    def stop(self) -> None:
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
