"""Every code block of README.md and docs/**/*.md runs as a test, so the docs cannot drift.

Collected by sybil (the root ``conftest.py`` hands its ``pytest_collect_file`` to pytest;
``testpaths`` names README.md and docs/). What each fenced block does:

* ``python``: executed, in order, in one namespace per document (a later block sees the
  names of an earlier one, as a reader does).
* ``sh`` / ``bash``: run with ``bash -e`` (every command must succeed). A line that starts
  with ``make`` runs in the repository (where the Makefile is); everything else runs in
  the document's working folder. ``olsdk`` and ``python`` are the test environment's.
  A block made only of commands that ``RUN_ELSEWHERE`` lists (building environments,
  installing, rewriting the repository: what a test cannot do in place) is skipped with
  the reason listed there, which names the test that covers the command.
* ``console``: ``$ command`` lines are run the same way; the lines shown under a command
  must appear in its output, in order (``...`` in a line matches anything); the exit
  status is not checked, the output is.
* ``yaml`` / ``yml``: an ``openlineage.yml``: written to the working folder as
  ``openlineage.yml`` (where the client and ``olsdk config show`` look) and loaded with the
  client's own loader, so a misspelt key fails the test.
* other languages (``text``, ``json``) are shown, not run.

In the markdown, before a block:

* ``<!-- skip: next "why" -->`` does not run the next block and says why (pytest shows the
  reason). A skip without a reason is an error. The README keeps no such directive:
  its blocks that cannot run here are the ``RUN_ELSEWHERE`` ones.
* ``<!-- invisible-code-block: python ... -->`` is code the reader does not see: the
  stand-ins a fragment needs (the ``line`` of a user's file, a real HTTP server instead of
  ``lineage.example.com``) and the checks that the block did what its text says.

Each document runs in a fresh working folder with HOME, XDG_STATE_HOME (the spool) inside
it, the test environment's ``bin`` first on PATH (as in an activated virtual environment)
and no ``OPENLINEAGE*`` variables; a real HTTP lineage server on 127.0.0.1 is started
for it (``lineage_server`` in the namespace) and stopped after it, as are the working
folder, the environment, the process-wide producer and the custom facets it registered.
Spark runs in ``local[2]`` with two shuffle partitions, as the tests run it, its tables
and relative paths in the working folder (``prepare_spark`` says how, also when the
Spark tests' JVM is up). Python blocks that name ``spark`` (a session, or the word in a
comment of the checks after a Spark block) carry the ``spark`` marker (``-m "not spark"``
leaves them out); a document with one is run on the Spark tests' worker, after them.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from sybil import Example, Sybil
from sybil.evaluators.python import PythonEvaluator
from sybil.evaluators.skip import Skipper
from sybil.parsers.markdown import ClearNamespaceParser, CodeBlockParser, PythonCodeBlockParser, SkipParser

from olsdk._foundation import _registry

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
COMMAND_TIMEOUT = 600  # seconds for one shell block
_SAVED = "__snippets_saved__"
# Commands a block may hold that a test cannot run in place, each with the test that
# covers it: a sh/bash block made only of these is skipped with the reasons.
RUN_ELSEWHERE = {
    "make test": "make test is what runs this very block",
    "make demo": "a Spark run of minutes: tests/spark/test_spark_demo.py runs its pipeline and "
    "tests/docs/test_makefile.py its make target",
    "make dist": "builds the development environment: tests/compat/test_readme.py builds the wheel "
    "with make dist's command",
    "pip install": "installs into your environment: tests/compat/test_readme.py installs the wheel in an empty folder",
    "make docs": "builds the whole site: .ci/run runs make docs after make lint",
    "make generate": "rewrites the committed models: CI's make check-generated runs it",
    "make spec-upgrade": "rewrites spec/ and the models: tests/codegen/test_upgrade.py runs the upgrade on a copy",
}
SPARK_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.catalogImplementation": "in-memory",  # the tests' JVM has Hive's, and its warehouse
}


def run_elsewhere(script: str) -> str | None:
    """The reasons a block is not run here, when every command in it is in RUN_ELSEWHERE."""
    commands = [line.split("#", 1)[0].strip() for line in script.splitlines()]
    reasons: list[str] = []
    for command in filter(None, commands):
        reason = next((r for c, r in RUN_ELSEWHERE.items() if command == c or command.startswith(c + " ")), None)
        if reason is None:
            return None
        reasons.append(reason)
    return "; ".join(dict.fromkeys(reasons)) or None


class ShellBlockParser(CodeBlockParser):
    """``sh``/``bash`` blocks: one bash script, every command must succeed."""

    def evaluate(self, example: Example) -> None:
        elsewhere = run_elsewhere(str(example.parsed))
        if elsewhere is not None:
            raise unittest.SkipTest(elsewhere)
        script = "\n".join(_in_repository(line) for line in str(example.parsed).splitlines())
        done = run_shell(script, example.namespace)
        if done.returncode != 0:
            raise AssertionError(
                f"{example.path}:{example.line}: exit status {done.returncode}\n{done.stdout}{done.stderr}"
            )


class ConsoleBlockParser(CodeBlockParser):
    """``console`` blocks: ``$ command`` then the output it shows."""

    language = "console"

    def evaluate(self, example: Example) -> None:
        for command, shown in console_steps(str(example.parsed)):
            done = run_shell(_in_repository(command), example.namespace)
            missing = missing_lines(shown, (done.stdout + done.stderr).splitlines())
            if missing is not None:
                raise AssertionError(
                    f"{example.path}:{example.line}: `{command}` did not print {missing!r}; it printed:\n"
                    f"{done.stdout}{done.stderr}"
                )


class ConfigBlockParser(CodeBlockParser):
    """``yaml``/``yml`` blocks: an openlineage.yml the client must accept."""

    def evaluate(self, example: Example) -> None:
        from olsdk.client import load_config

        path = Path(example.namespace["workdir"]) / "openlineage.yml"
        path.write_text(str(example.parsed), encoding="utf-8")
        load_config(environ={"OPENLINEAGE_CONFIG": str(path)})


class ReasonedSkipParser(SkipParser):
    """sybil's ``skip`` directive, with a reason required."""

    def __call__(self, document: Any) -> Iterable[Any]:
        for region in super().__call__(document):
            action, reason = region.parsed
            if action in ("next", "start") and not (reason or "").strip():
                line = document.text.count("\n", 0, region.start) + 1
                raise ValueError(f"{document.path}:{line}: 'skip: {action}' needs a reason in quotes")
            yield region


def _in_repository(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith("make ") or stripped == "make":
        return line.replace("make", f"make -C {shlex.quote(str(ROOT))}", 1)
    return line


def run_shell(script: str, namespace: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=namespace["workdir"],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, lines shown under it) of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"a console block starts with a `$ command` line, not {line!r}")
    return steps


def missing_lines(shown: list[str], printed: list[str]) -> str | None:
    """The first shown line not found in `printed` (in order), or None when all are."""
    position = 0
    for want in (line.rstrip() for line in shown):
        if not want.strip() or want.strip() == "...":
            continue
        matcher = re.compile(".*".join(re.escape(part) for part in want.split("...")) + r"\Z", re.S)
        while position < len(printed) and not matcher.match(printed[position].rstrip()):
            position += 1
        if position == len(printed):
            return want
        position += 1
    return None


def setup_document(namespace: dict[str, Any]) -> None:
    """A working folder, a clean environment and a lineage server for one document."""
    import olsdk
    from tests.support.client_testkit import LineageServer

    workdir = Path(tempfile.mkdtemp(prefix="olsdk-docs-"))
    namespace[_SAVED] = (os.getcwd(), dict(os.environ), olsdk.get_default_producer(), set(_registry.DEFAULT.custom()))
    for name in [n for n in os.environ if n.upper().startswith("OPENLINEAGE")]:
        del os.environ[name]
    # the environment of a reader whose virtual environment is active: `python`, `olsdk`
    # (and Spark's Python workers, which run `python3`) are the ones that have olsdk
    os.environ["PATH"] = os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "/usr/bin:/bin")])
    os.environ.update(HOME=str(workdir), XDG_STATE_HOME=str(workdir / "state"))
    os.chdir(workdir)
    prepare_spark(workdir)
    namespace["workdir"] = workdir
    namespace["lineage_server"] = LineageServer()


def prepare_spark(workdir: Path) -> None:
    """Spark for one document: local[2], two shuffle partitions (not 200 tasks a shuffle on
    two cores), no web UI, tables and relative paths in the document's working folder.

    A JVM this document starts gets that from PYSPARK_SUBMIT_ARGS (and starts in the
    working folder). One that is already up (the Spark tests', which run first in `make
    test`, or an earlier document's) gets it as the system properties a new SparkContext
    reads, and its local file system's working directory; the session left running there
    (with the tests' listener on it) is stopped, so that a snippet's getOrCreate() makes
    the session the snippet describes. No later test uses it: the docs run last.
    """
    conf = {**SPARK_CONF, "spark.sql.warehouse.dir": str(workdir / "spark-warehouse")}
    os.environ["PYSPARK_SUBMIT_ARGS"] = " ".join(
        ["--master local[2]", *(f"--conf {key}={value}" for key, value in conf.items()), "pyspark-shell"]
    )
    if "pyspark" not in sys.modules:
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    left = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    if left is not None and left.sparkContext._jsc is not None:
        left.stop()
    jvm = SparkContext._jvm
    if jvm is None:
        return
    for key, value in {"spark.master": "local[2]", **conf}.items():
        jvm.java.lang.System.setProperty(key, value)
    hadoop = jvm.org.apache.hadoop
    local = hadoop.fs.FileSystem.getLocal(hadoop.conf.Configuration())
    local.setWorkingDirectory(hadoop.fs.Path(str(workdir)))


def teardown_document(namespace: dict[str, Any]) -> None:
    import olsdk

    namespace["lineage_server"].stop()
    cwd, environ, producer, facet_keys = namespace.pop(_SAVED)
    for entity, key in set(_registry.DEFAULT.custom()) - facet_keys:  # the document's own facets
        _registry.DEFAULT.unregister(entity, key)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(environ)
    olsdk.set_default_producer(producer)
    shutil.rmtree(namespace["workdir"], ignore_errors=True)


def uses_spark(example: Example) -> bool:
    """A python block that names ``spark`` (a session, or the word in a comment of the
    checks that follow a Spark block), ``pyspark`` or ``olsdk.spark``; or an
    ``openlineage.yml`` block that names it (in a comment: the configuration of the Spark
    job that follows, which must be written in a ``-m spark`` run too)."""
    parser = getattr(example.region.evaluator, "__self__", None)
    if not isinstance(example.region.evaluator, PythonEvaluator) and not isinstance(parser, ConfigBlockParser):
        return False
    return re.search(r"\b(spark|pyspark|olsdk\.spark)\b", str(example.parsed)) is not None


def spark_flags(examples: list[Example]) -> list[bool]:
    """Which examples need Spark: the blocks `uses_spark` names, and a shell or
    console block that comes after one of them with no other python block between (it
    reads what the Spark job wrote, e.g. `olsdk inspect` of its lineage file)."""
    flags: list[bool] = []
    after_spark: dict[int, bool] = {}
    for example in examples:
        document = id(example.document)
        if isinstance(example.region.evaluator, PythonEvaluator):
            after_spark[document] = uses_spark(example)
            flags.append(after_spark[document])
        else:
            parser = getattr(example.region.evaluator, "__self__", None)
            is_command = isinstance(parser, (ShellBlockParser, ConsoleBlockParser))
            flags.append(uses_spark(example) or (is_command and after_spark.get(document, False)))
    return flags


def mark_spark_examples(items: list[pytest.Item]) -> None:
    """The spark marker on Spark blocks, and on a skip directive whose next block is one
    (so that `-m "not spark"` never hands a Spark block's skip to the block after it)."""
    examples = [(item, item.example) for item in items if isinstance(getattr(item, "example", None), Example)]
    spark = spark_flags([example for _, example in examples])
    for index, (item, example) in enumerate(examples):
        following = next(
            (
                spark[later]
                for later in range(index + 1, len(examples))
                if examples[later][1].document is example.document
            ),
            False,
        )
        is_skip = isinstance(example.region.evaluator, Skipper)
        if spark[index] or (is_skip and following):
            item.add_marker(pytest.mark.spark)


SNIPPETS = Sybil(
    parsers=[
        ReasonedSkipParser(),
        ClearNamespaceParser(),
        PythonCodeBlockParser(),
        ShellBlockParser(language="sh"),
        ShellBlockParser(language="bash"),
        ConsoleBlockParser(),
        ConfigBlockParser(language="yaml"),
        ConfigBlockParser(language="yml"),
    ],
    patterns=["*.md"],
    path=str(ROOT),
    setup=setup_document,
    teardown=teardown_document,
    name="snippets",
)
_collect = SNIPPETS.pytest()


def is_documentation(path: Path) -> bool:
    """README.md and docs/**/*.md of the repository (not a README a test's data holds)."""
    return path == ROOT / "README.md" or (path.is_relative_to(ROOT / "docs") and path.suffix == ".md")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    collector: pytest.Collector | None = _collect(file_path, parent) if is_documentation(file_path) else None
    return collector


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_spark_examples(items)
