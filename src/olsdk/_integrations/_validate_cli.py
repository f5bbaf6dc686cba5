"""`olsdk validate PATH... | -`: check files of OpenLineage events against the spec.

Reads NDJSON files (one event a line), `.json` files holding one event or a list of
events, folders of `.json`/`.ndjson`/`.jsonl` files (recursively, in name order) and
`-` for standard input. NDJSON is streamed a line at a time, so memory stays flat on
files of any size. Each problem is printed as `file:line: path: rule`; a summary by
producer and by rule ends the report. `--format json` writes the same as JSON lines (one
object per invalid event, then one `{"summary": ...}` object). `--lenient` also counts
which invalid events `parse_event(..., strict=False)` still reads. A progress bar goes
to standard error when that is a terminal. An empty (or whitespace-only) file is a
problem. Only the spec's facets are checked unless `--facets MODULE` (a dotted name,
importable from the current folder, or a .py file) imports custom facet classes, which
then check their keys as `olsdk.validate_event` does with a registry holding them (the
classes the module defines, and any facet registry it holds); facets under keys no class
checks are named at the end. Exit status: 0 when every event is valid (with `--lenient`:
readable), 1 otherwise, 2 for a path or module that does not exist.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

from olsdk._builders.facets._cli import import_module_or_file
from olsdk._foundation._documents import event_files
from olsdk._foundation._exceptions import Problem
from olsdk._foundation._progress import Progress
from olsdk._foundation._registry import DEFAULT, FacetRegistry
from olsdk._readers._wire import JSONProblem, decode, decode_exact, exact_numbers

__all__ = ["register", "run_validate"]

STDIN = "-"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check files of OpenLineage events against the spec",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "sources", nargs="+", metavar="PATH", help="NDJSON or JSON files, folders of them, or - for stdin"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="also count the invalid events the tolerant reader still reads; exit 1 only for unreadable ones",
    )
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    parser.add_argument(
        "--facets",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE (a dotted name or a .py file; the current folder is importable) first: "
        "the custom facet classes it defines check their keys (repeatable)",
    )
    parser.set_defaults(handler=run_validate)


@dataclass
class Tally:
    events: int = 0
    invalid: int = 0
    unreadable: int = 0  # with --lenient: not even the tolerant reader reads it
    by_producer: dict[str, list[int]] = field(default_factory=dict)  # producer -> [events, invalid]
    by_rule: Counter[str] = field(default_factory=Counter)
    unchecked: Counter[str] = field(default_factory=Counter)  # custom facet key -> events carrying it

    def count(self, producer: str, problems: list[Problem], unreadable: bool) -> None:
        self.events += 1
        row = self.by_producer.setdefault(producer, [0, 0])
        row[0] += 1
        if problems:
            self.invalid += 1
            row[1] += 1
            self.unreadable += unreadable
            self.by_rule.update({p.rule for p in problems})


@dataclass
class Item:
    location: str
    data: bytes | None  # one event's JSON text, or None with `document` already decoded
    document: Any = None


# An empty file (or stdin) is no event file: reported, so that a truncated or never
# written file does not pass as "0 events, all valid".
EMPTY = "empty: no JSON in it (an event file holds one event, a list of events, or one event a line)"


def _lines(label: str, stream: IO[bytes], progress: Progress) -> Iterator[Item]:
    empty = True
    for number, raw in enumerate(stream, start=1):
        progress.advance(len(raw))
        if raw.strip():
            empty = False
            yield Item(f"{label}:{number}", raw)
    if empty:
        yield Item(label, None, JSONProblem(Problem("", EMPTY)))


def _file_items(path: Path, progress: Progress) -> Iterator[Item]:
    with open(path, "rb") as stream:
        if path.suffix.lower() != ".json":
            yield from _lines(str(path), stream, progress)
            return
        # A .json file: NDJSON, or one (pretty-printed) event or list of events.
        head = stream.read(1 << 16)
        stream.seek(0)
        first = head.lstrip()[:1]
        first_line = head.split(b"\n", 1)[0]
        try:
            decode(first_line)
            one_line_documents = True
        except JSONProblem:
            one_line_documents = False
        if one_line_documents or first not in (b"{", b"["):
            yield from _lines(str(path), stream, progress)
            return
        text = stream.read()
        progress.advance(len(text))
        try:
            whole = decode_exact(text)
        except JSONProblem as exc:
            yield Item(f"{path}:1", text, exc)
            return
        if isinstance(whole, list):
            for index, event in enumerate(whole):
                yield Item(f"{path}[{index}]", None, event)
        else:
            yield Item(f"{path}:1", None, whole)


def _sources(sources: list[str]) -> list[Path | str]:
    out: list[Path | str] = []
    for source in sources:
        if source == STDIN:
            out.append(STDIN)
            continue
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"{source}: no such file or folder")
        out.extend(event_files(path))
    return out


def _facet_registry(modules: list[str]) -> FacetRegistry:
    """The registry `--facets` makes: the default registry (where the custom facet classes
    a module defines register themselves) plus every facet registry the modules hold."""
    registry = FacetRegistry(parent=DEFAULT)
    for name in modules:
        try:
            module = import_module_or_file(name)
        except ImportError as exc:
            raise ImportError(f"--facets {name}: {exc}") from exc
        for value in list(vars(module).values()):
            if isinstance(value, FacetRegistry) and value is not DEFAULT:
                for (entity, key), facet_class in value.custom().items():
                    if registry.lookup(entity, key) is not facet_class:
                        registry.register(entity, key, facet_class)
    return registry


def run_validate(args: argparse.Namespace, stdin: IO[bytes] | None = None, out: TextIO | None = None) -> int:
    from olsdk._readers._validate import unchecked_facet_keys, validate_document

    out = out if out is not None else sys.stdout
    try:
        sources = _sources(list(args.sources))
    except FileNotFoundError as exc:
        print(f"olsdk validate: error: {exc}", file=sys.stderr)
        return 2
    modules = list(getattr(args, "facets", None) or ())
    try:
        registry = _facet_registry(modules)
    except ImportError as exc:
        print(f"olsdk validate: error: {exc}", file=sys.stderr)
        return 2
    total = sum(p.stat().st_size for p in sources if isinstance(p, Path))
    progress = Progress(0 if STDIN in sources else total)
    tally = Tally()
    as_json = args.format == "json"
    for source in sources:
        if isinstance(source, Path):
            items = _file_items(source, progress)
        else:
            items = _lines("<stdin>", stdin if stdin is not None else sys.stdin.buffer, progress)
        for item in progress.count(items):
            problems, producer, document = _check(item, validate_document, registry)
            tally.unchecked.update(f"{key} ({entity})" for entity, key in unchecked_facet_keys(document, registry))
            unreadable = bool(problems) and args.lenient and not _reads_leniently(item, document, registry)
            tally.count(producer, problems, unreadable)
            if problems and not args.quiet:
                _report(out, item.location, producer, problems, unreadable if args.lenient else None, as_json)
    progress.close()
    _summary(out, tally, args.lenient, as_json)
    failed = tally.unreadable if args.lenient else tally.invalid
    return 1 if failed else 0


def _check(item: Item, validate_document: Any, registry: FacetRegistry) -> tuple[list[Problem], str, Any]:
    if isinstance(item.document, JSONProblem):
        return [item.document.problem], "(not JSON)", None
    document = item.document
    if item.data is not None:
        try:
            document = decode_exact(item.data)  # numbers as written, as validate_event reads them
        except JSONProblem as exc:
            return [exc.problem], "(not JSON)", None
    producer = document.get("producer") if isinstance(document, dict) else None
    return validate_document(document, registry), producer if isinstance(producer, str) else "(no producer)", document


def _reads_leniently(item: Item, document: Any, registry: FacetRegistry) -> bool:
    from olsdk import ValidationError, parse_event

    if not isinstance(document, dict):
        return False
    try:
        parse_event(exact_numbers(copy.deepcopy(document)), strict=False, registry=registry)
    except ValidationError:
        return False
    return True


def _report(
    out: TextIO, location: str, producer: str, problems: list[Problem], unreadable: bool | None, as_json: bool
) -> None:
    if as_json:
        record: dict[str, Any] = {
            "location": location,
            "producer": producer,
            "problems": [_problem_record(p) for p in problems],
        }
        if unreadable is not None:
            record["readable_leniently"] = not unreadable
        out.write(json.dumps(record) + "\n")
        return
    for problem in problems:
        out.write(f"{location}: {problem}\n")


def _problem_record(problem: Problem) -> dict[str, str]:
    record = {"path": problem.path, "rule": problem.rule}
    shown = problem.shown_value()
    if shown is not None:
        record["got"] = shown  # the value as printed: cut, secrets masked
    return record


def _summary(out: TextIO, tally: Tally, lenient: bool, as_json: bool) -> None:
    if as_json:
        summary: dict[str, Any] = {
            "events": tally.events,
            "valid": tally.events - tally.invalid,
            "invalid": tally.invalid,
            "by_producer": {k: {"events": v[0], "invalid": v[1]} for k, v in sorted(tally.by_producer.items())},
            "by_rule": dict(tally.by_rule.most_common()),
        }
        if lenient:
            summary["readable_leniently"] = tally.events - tally.unreadable
            summary["unreadable"] = tally.unreadable
        if tally.unchecked:
            summary["unchecked_facet_keys"] = dict(tally.unchecked.most_common())
        out.write(json.dumps({"summary": summary}) + "\n")
        return
    lines = ["", f"{tally.events:,} events: {tally.events - tally.invalid:,} valid, {tally.invalid:,} invalid"]
    if lenient:
        lines.append(
            f"leniently: {tally.events - tally.unreadable:,} readable "
            f"({tally.invalid - tally.unreadable:,} of them with problems), {tally.unreadable:,} unreadable"
        )
    if tally.by_producer:
        width = max(len("producer"), *(len(k) for k in tally.by_producer))
        lines += ["", f"{'producer':<{width}}  {'events':>9}  {'invalid':>9}"]
        for name, (events, invalid) in sorted(tally.by_producer.items(), key=lambda kv: (-kv[1][1], kv[0])):
            lines.append(f"{name:<{width}}  {events:>9,}  {invalid:>9,}")
    if tally.by_rule:
        lines += ["", f"{'events':>9}  rule"]
        lines += [f"{count:>9,}  {rule}" for rule, count in tally.by_rule.most_common()]
    if tally.unchecked:
        keys = ", ".join(key for key, _count in tally.unchecked.most_common())
        lines += [
            "",
            f"hint: no facet class checks these custom facet keys, so their facets were checked as the "
            f"spec's base facet only: {keys}. To check them with their classes, pass --facets MODULE "
            "(the module defining those classes; a dotted name from the current folder, or a .py file).",
        ]
    out.write("\n".join(lines) + "\n")
