"""The hand-written layer asks before it names a generated class not every release has.

`tests.support.release_guards.scan` walks the layer's modules; the record of every release
(`spec/releases/history.json`, from `tests.support.spec_history`) says which classes every
release from 1.0.0 on has. A name outside that set must go through `olsdk._models._release`
(`spec_class`, `spec_field`), which answers from the generated metadata and warns once
where the release lacks it. The record itself is checked against the committed releases,
and the table of `docs/explanation/spec-versions.md` against the record and the guards.
"""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest

from olsdk import models
from olsdk._models import _release
from olsdk._models._generated import _meta
from tests.support.overlay import forget_release_warnings
from tests.support.release_guards import Guard, scan
from tests.support.spec_history import (
    BEGIN,
    DOCS,
    END,
    RECORD,
    History,
    current_snapshot,
    docs_table,
    snapshot_classes,
)

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ROOT / "spec" / "releases"
HISTORY = History.load()
CURRENT = frozenset(_meta.CLASS_NAMES)


def layer() -> tuple[list[str], list[Guard]]:
    uses, guards = scan(CURRENT | frozenset(HISTORY.classes))
    every = HISTORY.in_every_release() & CURRENT
    return [str(use) for use in uses if use.name not in every], guards


def test_the_layer_names_only_classes_every_release_has_unless_it_asks() -> None:
    unguarded, _ = layer()
    assert unguarded == [], (
        "these generated names are not in every release from "
        f"{HISTORY.releases[0]} on; ask olsdk._models._release.spec_class(name, feature=..., logger=...) "
        "(or spec_field) and leave the feature out where it returns None:\n" + "\n".join(unguarded)
    )


def test_every_guard_names_a_class_or_field_of_some_release() -> None:
    _, guards = layer()
    assert guards, "the scan found no guards at all"
    for guard in guards:
        assert guard.name != "<not a literal>", f"{guard.path}:{guard.line}: name the class as a string literal"
        known = guard.class_name in CURRENT or guard.class_name in HISTORY.classes
        assert known, f"{guard.path}:{guard.line}: no release has a class {guard.class_name}"
        if guard.field:
            in_current = guard.class_name in CURRENT and guard.field in getattr(models, guard.class_name).model_fields
            assert in_current or guard.field in HISTORY.classes[guard.class_name]["fields"], guard


def test_guards_that_leave_something_out_say_what() -> None:
    _, guards = layer()
    for guard in guards:
        if guard.function in ("spec_class", "spec_field"):
            assert guard.feature.strip(), f"{guard.path}:{guard.line}: give feature= (what is left out without it)"


def test_the_scan_finds_each_form_of_use(tmp_path: Path) -> None:
    package = tmp_path / "olsdk"
    package.mkdir()
    (package / "_generated").mkdir()
    (package / "_generated" / "models.py").write_text("class TagsJobFacet: ...\n")  # not the layer's
    (package / "module.py").write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING, cast
            import olsdk.models as m
            from olsdk import models
            from olsdk.models import RunEvent, TagsJobFacet
            from olsdk._models._release import spec_class, has_field

            if TYPE_CHECKING:
                from olsdk.models import JobTypeJobFacet  # annotations only: fine

            def f(x):
                a = m.TagsRunFacet
                b = getattr(models, "CatalogDatasetFacet", None)
                c = "EnvironmentVariablesRunFacet"
                d = spec_class("InputSubsetInputDatasetFacet", feature="the subset facet", logger=None)
                e = cast("JobTypeJobFacet", x)
                g = has_field("ParentRunFacet", "root")
                return "not a class name", models.RunEvent
            """
        )
    )
    names = frozenset({"RunEvent", "TagsJobFacet", "TagsRunFacet", "EnvironmentVariablesRunFacet", "JobTypeJobFacet"})
    uses, guards = scan(names | {"CatalogDatasetFacet", "InputSubsetInputDatasetFacet", "ParentRunFacet"}, package)
    assert [(u.how, u.name) for u in uses] == [
        ("import", "RunEvent"),
        ("import", "TagsJobFacet"),
        ("attribute", "TagsRunFacet"),
        ("getattr", "'CatalogDatasetFacet'"),
        ("string", "CatalogDatasetFacet"),
        ("string", "EnvironmentVariablesRunFacet"),
        ("attribute", "RunEvent"),
    ]
    assert [(g.function, g.name, g.feature) for g in guards] == [
        ("spec_class", "InputSubsetInputDatasetFacet", "the subset facet"),
        ("has_field", "ParentRunFacet.root", ""),
    ]


def test_the_record_covers_every_release_from_1_0_0() -> None:
    assert HISTORY.releases[0] == "1.0.0" and HISTORY.failed == {}
    assert RECORD.read_text(encoding="utf-8") == HISTORY.dumps()  # as written, so a rewrite diffs cleanly


@pytest.mark.parametrize(
    "release", sorted((p.name for p in RELEASES.iterdir() if (p / "OpenLineage.json").is_file()), key=str)
)
def test_the_record_agrees_with_a_committed_release(release: str) -> None:
    assert snapshot_classes(RELEASES / release, release) == HISTORY.classes_of(release)


def test_the_docs_table_is_the_one_the_record_and_the_guards_give() -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = text[text.index(BEGIN) : text.index(END) + len(END)]
    release, classes = current_snapshot()
    expected = docs_table(HISTORY, layer()[1], {f"the pinned snapshot ({release})": classes})
    assert block == expected, "run: .venv/bin/python -m tests.support.spec_history --docs"


# -- olsdk._models._release itself ----------------------------------------------------------------------


def test_spec_class_gives_the_class_or_warns_once_naming_release_and_class(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_release_warnings(monkeypatch)
    log = logging.getLogger("olsdk.tests")
    caplog.set_level(logging.WARNING, logger="olsdk.tests")
    assert _release.spec_class("RunEvent", feature="events", logger=log) is models.RunEvent
    assert _release.RELEASE == models.SPEC_RELEASE
    for _ in range(3):
        assert _release.spec_class("NoSuchRunFacet", feature="tags.x: the x facet", logger=log) is None
    assert not _release.spec_field("ParentRunFacet", "nope", feature="parent: nope", logger=log)
    assert _release.spec_field("ParentRunFacet", "run", feature="parent: run", logger=log)
    messages = [r.getMessage() for r in caplog.records if r.name == "olsdk.tests"]
    assert messages == [
        f"tags.x: the x facet: left out: these models (spec {models.SPEC_RELEASE}) have no NoSuchRunFacet; "
        "regenerate the models from a newer spec release to get it",
        f"parent: nope: left out: ParentRunFacet of these models (spec {models.SPEC_RELEASE}) has no 'nope' field; "
        "regenerate the models from a newer spec release to get it",
    ]


def test_has_class_and_has_field_read_the_generated_metadata() -> None:
    assert _release.has_class("ParentRunFacet") and not _release.has_class("NoSuchRunFacet")
    assert _release.has_field("ParentRunFacet", "run") and not _release.has_field("NoSuchRunFacet", "run")
    from olsdk._models._generated import models as generated

    defined = {n for n, v in vars(generated).items() if isinstance(v, type) and v.__module__ == generated.__name__}
    defined = {n for n in defined if n.isidentifier()}  # not the parametrised RootModel[...] helpers
    assert defined == _meta.CLASS_NAMES
    with pytest.raises(TypeError, match="EventType is a generated"):
        _release.spec_class("EventType", feature="x", logger=logging.getLogger("olsdk.tests"))
