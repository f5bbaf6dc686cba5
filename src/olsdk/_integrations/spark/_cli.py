"""``olsdk spark run``: run an unmodified PySpark script with lineage on.

    olsdk spark run [--conf KEY=VALUE ...] SCRIPT.py [ARGS ...]

In the manner of ``opentelemetry-instrument``: the script runs in this process as
``__main__``, with ``sys.argv`` set to ``SCRIPT.py ARGS``. ``--conf`` settings reach
the JVM the way ``spark-submit --conf`` does (through ``PYSPARK_SUBMIT_ARGS``), so a
setting the script makes in its own ``SparkSession.builder`` wins over them. Every
SparkSession the script creates gets ``olsdk.spark.install``, which reads the agent's
``spark.openlineage.*`` keys from either place. If lineage cannot be set up (a bad
transport setting, say) the error is logged and the script runs without lineage.
Importing this module needs no pyspark: ``olsdk --help`` stays fast.
"""

from __future__ import annotations

import argparse
import logging
import os
import runpy
import shlex
import sys
from typing import Any

from olsdk._foundation._exceptions import ConfigError

__all__ = ["activate", "parse_confs", "register"]

log = logging.getLogger("olsdk.spark")


def parse_confs(values: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict; a malformed one is a ConfigError naming it."""
    confs: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--conf: expected KEY=VALUE, got {item!r}", "--conf")
        confs[key.strip()] = value
    return confs


def _submit_args(confs: dict[str, str], existing: str | None) -> str:
    """``PYSPARK_SUBMIT_ARGS`` with ``--conf`` pairs added before the final ``pyspark-shell``."""
    words = shlex.split(existing) if existing else []
    if words and words[-1] == "pyspark-shell":
        words = words[:-1]
    for key, value in confs.items():
        words += ["--conf", f"{key}={value}"]
    return " ".join(shlex.quote(w) for w in [*words, "pyspark-shell"])


def activate(confs: dict[str, str]) -> None:
    """Make every SparkSession created from now on install lineage; ``confs`` go to the JVM."""
    if confs:
        os.environ["PYSPARK_SUBMIT_ARGS"] = _submit_args(confs, os.environ.get("PYSPARK_SUBMIT_ARGS"))
    from pyspark.sql import SparkSession

    original = SparkSession.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        try:
            from olsdk._integrations.spark._listener import install

            install(self)
        except Exception as error:  # lineage must not stop the user's job
            log.error("olsdk spark run: lineage is off for this session: %s: %s", type(error).__name__, error)

    SparkSession.__init__ = init  # type: ignore[method-assign]


def _run(args: argparse.Namespace) -> int:
    try:
        confs = parse_confs(args.conf)
    except ConfigError as error:
        print(f"olsdk spark run: {error}", file=sys.stderr)
        return 2
    if not os.path.isfile(args.script):
        print(f"olsdk spark run: script: no such file: {args.script!r}", file=sys.stderr)
        return 2
    try:
        activate(confs)
    except ImportError as error:
        print(f"olsdk spark run: needs the 'spark' extra (pyspark): {error}", file=sys.stderr)
        return 2
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))  # as `python SCRIPT.py` does
    try:
        runpy.run_path(args.script, run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def register(subparsers: Any) -> None:
    spark = subparsers.add_parser("spark", help="PySpark lineage")
    commands = spark.add_subparsers(dest="spark_command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run a PySpark script with lineage on, configured by spark.openlineage.* settings",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    run.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, as spark-submit --conf (e.g. spark.openlineage.transport.type=http)",
    )
    run.add_argument("script", help="the PySpark script to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    run.set_defaults(handler=_run)
