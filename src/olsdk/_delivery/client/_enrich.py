"""Enrichment: the official client's ``facets``, ``tags`` and ``dataset`` keys, applied.

Applied to every event before it is sent (after the filters have kept it), on the
event's JSON, with the official client's rules:

* ``facets.environment_variables``: the named variables that are set become the run
  facet ``environmentVariables``; variables the event already carries keep their
  value (a differing one is logged), missing variables are logged;
* ``facets.source_code_location`` (when ``disabled: false``): the job facet
  ``sourceCodeLocation`` of run events that lack one, from the keys given, else from
  the git repository around the working directory (origin URL, HEAD commit, branch,
  a tag pointing at HEAD) and the pull request number of the CI (GitHub Actions,
  GitLab, Bitbucket, Azure Pipelines);
* ``tags.job`` / ``tags.run``: tags with source ``USER`` merged into the ``tags``
  facets (job: run and job events; run: run events); a configured key replaces an
  event's tag of the same key compared case-insensitively, keeping the event's
  spelling of the key. olsdk adds no client-version tag (the official client adds
  ``openlineage_client_version``): the event's ``producer`` names the producer;
* ``dataset.reducing_enabled``: partition directories are trimmed off the names of
  run events' inputs and outputs (and of column lineage inputs); datasets that then
  coincide, facets included, are merged into one whose ``subset`` facet lists the
  original locations. ``disabled_trimmers`` and ``extra_trimmers`` name trimmers as
  the official client does.
"""

from __future__ import annotations

import configparser
import copy
import functools
import importlib
import logging
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from olsdk._builders.facets._base import key_of
from olsdk._builders.naming._partitions import DATASET_NAME_TRIMMERS
from olsdk._delivery.client._settings import ClientSettings
from olsdk._models._generated import _meta
from olsdk._models._generated import models as m
from olsdk._models._release import spec_class
from olsdk._models._spec import event_kind

__all__ = ["Enricher", "git_location"]

log = logging.getLogger("olsdk._delivery.client._enrich")

_OFFICIAL_TRIMMERS = "openlineage.client.dataset.trimmers."
_MAX_PASSES = 16


@functools.cache
def _key(cls: type[BaseModel]) -> str:
    """The facet key the spec gives ``cls`` (spec facets' keys never change: cached)."""
    return key_of(cls)


def _stamp(cls: type[Any], producer: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": _meta.SCHEMA_URLS[cls], **fields}


# -- git and CI ---------------------------------------------------------------------------


def _git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if candidate.is_dir():
            return candidate
        if candidate.is_file():  # a linked worktree: "gitdir: <path>"
            text = candidate.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text.removeprefix("gitdir:").strip())
                return target if target.is_absolute() else (folder / target).resolve()
    return None


def _packed_refs(git_dir: Path) -> list[tuple[str, str]]:
    """(sha, ref) lines of packed-refs; a ``^sha`` peel line becomes (sha, "^")."""
    common = _common_dir(git_dir)
    path = common / "packed-refs"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("^"):
            out.append((line[1:].strip(), "^"))
        else:
            sha, _, ref = line.partition(" ")
            out.append((sha, ref.strip()))
    return out


def _common_dir(git_dir: Path) -> Path:
    """A worktree's own git dir names the repository's in ``commondir``."""
    pointer = git_dir / "commondir"
    if pointer.is_file():
        target = Path(pointer.read_text().strip())
        return target if target.is_absolute() else (git_dir / target).resolve()
    return git_dir


def _resolve(git_dir: Path, ref: str) -> str | None:
    for base in (git_dir, _common_dir(git_dir)):
        loose = base / ref
        if loose.is_file():
            return loose.read_text().strip()
    return next((sha for sha, name in _packed_refs(git_dir) if name == ref), None)


def git_location(cwd: str | os.PathLike[str] | None = None) -> dict[str, str | None]:
    """url (origin), version (HEAD), branch and tag of the repository around ``cwd``."""
    git_dir = _git_dir(Path(cwd or os.getcwd()).resolve())
    found: dict[str, str | None] = {"url": None, "version": None, "branch": None, "tag": None}
    if git_dir is None:
        return found
    head_file = git_dir / "HEAD"
    head = head_file.read_text().strip() if head_file.is_file() else ""
    if head.startswith("ref:"):
        ref = head.removeprefix("ref:").strip()
        found["version"] = _resolve(git_dir, ref)
        found["branch"] = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    elif head:
        found["version"] = head
    config = configparser.RawConfigParser(strict=False)
    config.read(_common_dir(git_dir) / "config")
    found["url"] = config.get('remote "origin"', "url", fallback=None)
    sha = found["version"]
    if sha:
        tags = _common_dir(git_dir) / "refs" / "tags"
        if tags.is_dir():
            for tag_file in sorted(tags.rglob("*")):
                if tag_file.is_file() and tag_file.read_text().strip() == sha:
                    found["tag"] = tag_file.relative_to(tags).as_posix()
                    return found
        previous = None
        for value, ref in _packed_refs(git_dir):
            if ref == "^":  # the commit an annotated tag (the line before) points at
                if previous and value == sha:
                    found["tag"] = previous
                    return found
                previous = None
            elif ref.startswith("refs/tags/"):
                if value == sha:
                    found["tag"] = ref.removeprefix("refs/tags/")
                    return found
                previous = ref.removeprefix("refs/tags/")
            else:
                previous = None
    return found


def ci_pull_request(environ: Mapping[str, str]) -> str | None:
    for name in (
        "CI_MERGE_REQUEST_IID",  # GitLab
        "BITBUCKET_PR_ID",  # Bitbucket Pipelines
        "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER",  # Azure Pipelines, GitHub repository
        "SYSTEM_PULLREQUEST_PULLREQUESTID",  # Azure Pipelines, Azure Repos
    ):
        if environ.get(name):
            return environ[name]
    match = re.match(r"refs/pull/(\d+)/(?:merge|head)", environ.get("GITHUB_REF", ""))
    return match.group(1) if match else None


# -- the enricher -------------------------------------------------------------------------


class Enricher:
    """Applies the enrichment keys of ``settings`` to event JSON (see the module docstring)."""

    def __init__(
        self,
        settings: ClientSettings,
        producer: str,
        environ: Mapping[str, str],
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.settings = settings
        self.producer = producer
        self.environ = environ
        self.cwd = cwd
        self._location: dict[str, str | None] | None = None
        self._location_done = False
        self.trimmers = self._trimmers() if settings.dataset.reducing_enabled else []

    @property
    def active(self) -> bool:
        return self.settings.enriches

    def apply(self, event: dict[str, Any]) -> dict[str, Any]:
        kind = event_kind(event)
        if kind == "run":
            self._environment(event)
        if kind in ("run", "job"):
            self._tags(event, "job", self.settings.tags.job)
        if kind == "run":
            self._tags(event, "run", self.settings.tags.run)
            self._source_code_location(event)
            if self.settings.dataset.reducing_enabled:
                self._reduce(event)
        return event

    # environment variables
    def _environment(self, event: dict[str, Any]) -> None:
        wanted = self.settings.facets.environment_variables
        if not wanted:
            return
        found = {k: v for k, v in self.environ.items() if k in wanted}
        missing = sorted(set(wanted) - set(found))
        if missing:
            log.warning("environment variables for the OpenLineage event are not set: %s", ", ".join(missing))
        if not found:
            return
        cls = spec_class(
            "EnvironmentVariablesRunFacet",
            feature="facets.environment_variables: the environmentVariables run facet",
            logger=log,
        )
        if cls is None:
            return
        facets = _facets(event, "run")
        key = _key(cls)
        current = facets.get(key)
        given = list(current.get("environmentVariables") or []) if isinstance(current, dict) else []
        by_name = {str(v.get("name")): v for v in given if isinstance(v, dict)}
        added = []
        for name, value in found.items():
            if name in by_name:
                if by_name[name].get("value") != value:
                    log.warning("environment variable %s: keeping the value the event carries", name)
                continue
            added.append({"name": name, "value": value})
        facets[key] = _stamp(cls, self.producer, {"environmentVariables": given + added})

    # tags
    def _tags(self, event: dict[str, Any], entity: str, configured: dict[str, str]) -> None:
        if not configured:
            return
        if entity == "job":
            cls = spec_class("TagsJobFacet", feature="tags.job: the job's tags facet", logger=log)
        else:
            cls = spec_class("TagsRunFacet", feature="tags.run: the run's tags facet", logger=log)
        if cls is None:
            return
        facets = _facets(event, entity)
        key = _key(cls)
        current = facets.get(key) if isinstance(facets.get(key), dict) else None
        existing = [t for t in (current or {}).get("tags") or [] if isinstance(t, dict)]
        user_keys = {k.lower() for k in configured}
        kept = [t for t in existing if str(t.get("key", "")).lower() not in user_keys]
        spelling = {str(t.get("key", "")).lower(): t.get("key") for t in existing}
        user = [{"key": spelling.get(k.lower(), k), "value": v, "source": "USER"} for k, v in configured.items()]
        if current is None:
            facets[key] = _stamp(cls, self.producer, {"tags": kept + user})
        else:
            facets[key] = {**current, "tags": kept + user}

    # source code location
    def _source_code_location(self, event: dict[str, Any]) -> None:
        config = self.settings.facets.source_code_location
        if config.disabled:
            return
        location = self._location_facet()
        if location is None:
            return
        facets = _facets(event, "job")
        key = _key(m.SourceCodeLocationJobFacet)
        if key not in facets:
            facets[key] = _stamp(m.SourceCodeLocationJobFacet, self.producer, copy.deepcopy(location))

    def _location_facet(self) -> dict[str, str | None] | None:
        if self._location_done:
            return self._location
        self._location_done = True
        config = self.settings.facets.source_code_location
        try:
            git = git_location(self.cwd)
        except OSError:
            log.warning("cannot read git metadata for the sourceCodeLocation facet", exc_info=True)
            git = {"url": None, "version": None, "branch": None, "tag": None}
        url = config.repo_url or git["url"]
        if not url:
            return None
        self._location = {
            "type": "git",
            "url": url,
            "repoUrl": url,
            "version": config.version or git["version"],
            "branch": config.branch or git["branch"],
            "tag": config.tag or git["tag"],
            "pullRequestNumber": config.pull_request_number or ci_pull_request(self.environ),
        }
        self._location = {k: v for k, v in self._location.items() if v is not None}
        return self._location

    # dataset reducing
    def _trimmers(self) -> list[tuple[str, Callable[[str], str]]]:
        disabled = {d.removeprefix(_OFFICIAL_TRIMMERS) for d in self.settings.dataset.disabled_trimmers}
        for name in disabled - set(DATASET_NAME_TRIMMERS):
            log.warning(
                "dataset.disabled_trimmers: %r names no built-in trimmer (%s)", name, ", ".join(DATASET_NAME_TRIMMERS)
            )
        active = [(name, fn) for name, fn in DATASET_NAME_TRIMMERS.items() if name not in disabled]
        for dotted in self.settings.dataset.extra_trimmers:
            module_name, _, class_name = dotted.rpartition(".")
            try:
                target = getattr(importlib.import_module(module_name), class_name)
                trim = target().trim if isinstance(target, type) else target
                if not callable(trim):
                    raise TypeError("neither a class with trim(name) nor a function")
            except Exception as exc:
                log.warning("dataset.extra_trimmers: %r skipped: %s", dotted, exc)
                continue
            active.append((dotted, trim))
        return active

    def _trim(self, name: str) -> tuple[str, bool]:
        original, seen, trimmed = name, {name}, False
        for _ in range(_MAX_PASSES):
            after = name
            for label, trimmer in self.trimmers:
                try:
                    after = str(trimmer(after))
                except Exception as exc:
                    log.warning("trimmer %s failed on %r: %s", label, after, exc)
            if after == name:
                return name, trimmed
            if after in seen:
                log.warning("dataset name trimmers cycle on %r: name kept", original)
                return original, False
            seen.add(after)
            name, trimmed = after, True
        log.warning("dataset name trimmers did not settle on %r in %d passes: name kept", original, _MAX_PASSES)
        return original, False

    def _reduce(self, event: dict[str, Any]) -> None:
        for side, facets_key, condition_key in (
            ("inputs", "inputFacets", "inputCondition"),
            ("outputs", "outputFacets", "outputCondition"),
        ):
            datasets = event.get(side)
            if not isinstance(datasets, list) or not datasets:
                continue
            if side == "outputs":
                datasets = [self._trim_column_lineage(d) for d in datasets]
            merged: list[tuple[dict[str, Any], set[str]]] = []
            for dataset in datasets:
                if not isinstance(dataset, dict) or not isinstance(dataset.get("name"), str):
                    merged.append((dataset, set()))
                    continue
                name, was_trimmed = self._trim(dataset["name"])
                candidate = {**dataset, "name": name}
                twin = next((entry for entry in merged if _same_dataset(entry[0], candidate)), None)
                if twin is None:
                    merged.append((candidate, {dataset["name"]} if was_trimmed else set()))
                elif was_trimmed:
                    twin[1].add(dataset["name"])
            subset_cls = _subset_facet(side) if any(originals for _, originals in merged) else None
            if subset_cls is None:
                event[side] = [dataset for dataset, _ in merged]
                continue
            key = _key(subset_cls)
            out = []
            for dataset, originals in merged:
                if originals:
                    dataset = {**dataset, facets_key: dict(dataset.get(facets_key) or {})}
                    condition = {"type": "location", "locations": sorted(originals)}
                    dataset[facets_key][key] = _stamp(subset_cls, self.producer, {condition_key: condition})
                out.append(dataset)
            event[side] = out

    def _trim_column_lineage(self, dataset: Any) -> Any:
        if not isinstance(dataset, dict):
            return dataset
        facets = dataset.get("facets")
        key = _key(m.ColumnLineageDatasetFacet)
        lineage = facets.get(key) if isinstance(facets, dict) else None
        if not isinstance(lineage, dict):
            return dataset
        lineage = copy.deepcopy(lineage)
        for field in (lineage.get("fields") or {}).values():
            for item in field.get("inputFields") or [] if isinstance(field, dict) else []:
                if isinstance(item, dict) and isinstance(item.get("name"), str):
                    item["name"] = self._trim(item["name"])[0]
        for item in lineage.get("dataset") or []:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                item["name"] = self._trim(item["name"])[0]
        return {**dataset, "facets": {**dict(facets or {}), key: lineage}}


def _subset_facet(side: str) -> type[BaseModel] | None:
    """The subset facet recording the locations a reduced dataset stands for (spec 1.38.0 on)."""
    if side == "inputs":
        return spec_class(
            "InputSubsetInputDatasetFacet",
            feature="dataset.reducing_enabled: the subset facet naming the locations of a reduced input",
            logger=log,
        )
    return spec_class(
        "OutputSubsetOutputDatasetFacet",
        feature="dataset.reducing_enabled: the subset facet naming the locations of a reduced output",
        logger=log,
    )


def _facets(event: dict[str, Any], entity: str) -> dict[str, Any]:
    """The facets of ``event[entity]``, copied on the way (the caller's dicts stay as given)."""
    holder = event.get(entity)
    if holder is not None and not isinstance(holder, dict):
        return {}  # not an object: left as it is (the check says so)
    holder = event[entity] = dict(holder or {})
    facets = holder.get("facets")
    fresh: dict[str, Any] = dict(facets) if isinstance(facets, dict) else {}
    holder["facets"] = fresh
    return fresh


def _same_dataset(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("namespace", "name", "facets", "inputFacets", "outputFacets")
    return all((a.get(k) or None) == (b.get(k) or None) if k.endswith("acets") else a.get(k) == b.get(k) for k in keys)
