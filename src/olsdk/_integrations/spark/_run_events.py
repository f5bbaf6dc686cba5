"""The events of the listener's runs: the application run and one run per write.

Everything goes through ``olsdk._builders._build.run_event``; this module only decides what the
Java agent puts in each event (job names, facets, the parent chain). Model classes are
imported where they are used, so a spec version that lacks one costs the events that
need it (logged by the listener), not the import of ``olsdk.spark``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olsdk._builders._build import RunRef, parent_facet, run_event
from olsdk._integrations.spark import _ids
from olsdk._integrations.spark._build import job_type, processing_engine
from olsdk._integrations.spark._settings import SparkSettings, Tag
from olsdk._integrations.spark.agent_facets import spark_properties_facet

if TYPE_CHECKING:
    from olsdk._integrations.spark._plan import PlanFacts
    from olsdk._models import InputDataset, OutputDataset, RunEvent

__all__ = ["Application", "QueryRun", "new_run_id"]


def new_run_id() -> str:
    from olsdk._delivery.client._uuid7 import uuid7

    return str(uuid7())


@dataclass
class QueryRun:
    """One run the listener reports: a write (or a read, with ``emit_reads``) and what it did."""

    run_id: str
    job_name: str
    start: dt.datetime
    facts: PlanFacts
    processing: str = "BATCH"
    job_kind: str = "SQL_JOB"
    parent: RunRef | None = None  # default: the application run
    end: dt.datetime | None = None
    stats: dict[str, int] = field(default_factory=dict)
    error: dict[str, str] | None = None  # message, stackTrace, class
    column_lineage: Any = None
    errors: list[str] = field(default_factory=list)  # what could not be read
    started: bool = False  # its START was emitted


@dataclass(frozen=True)
class Application:
    """The Spark application: its run is the parent of every write run."""

    namespace: str
    app_name: str  # spark.openlineage.appName, else spark.app.name
    spark_version: str
    run: RunRef
    parent: RunRef | None = None  # the orchestrator's run (spark.openlineage.parent*)
    root: RunRef | None = None  # the orchestrator's root run (spark.openlineage.rootParent*)
    parent_context: Any = None  # the parent facet of a context payload (forwarded facets included)
    properties: dict[str, str] = field(default_factory=dict)  # the spark_properties facet
    producer: str | None = None
    settings: SparkSettings = field(default_factory=SparkSettings)

    @property
    def root_run(self) -> RunRef:
        """The root of the run chain: the orchestrator's root run, else the application run."""
        return self.root or self.parent or self.run

    def job_name(self, command: str, suffix: str | None) -> str:
        """``{appName}.{command}.{table}`` with the agent's ``jobName.*`` switches applied."""
        name = _ids.job_name(self.app_name, command, suffix if self.settings.append_dataset_name else None)
        return name.replace(".", "_") if self.settings.replace_dot_with_underscore else name

    # -- facets ----------------------------------------------------------------------

    def _enabled(self, facets: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in facets.items() if v is not None and self.settings.facet_enabled(k)}

    def _run_facets(self, parent: Any | None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        facets: dict[str, Any] = {"parent": parent, "processing_engine": processing_engine(self.spark_version)}
        facets["spark_properties"] = spark_properties_facet(self.properties)
        if self.settings.run_tags:
            facets["tags"] = _tags("run", self.settings.run_tags)
        return self._enabled({**facets, **(extra or {})})

    def _job_facets(self, kind: str, processing: str) -> dict[str, Any]:
        facets: dict[str, Any] = {"jobType": job_type(kind, processing)}
        if self.settings.job_tags:
            facets["tags"] = _tags("job", self.settings.job_tags)
        if self.settings.job_owners:
            from olsdk._models import OwnershipJobFacet, OwnershipJobFacetOwner

            facets["ownership"] = OwnershipJobFacet(
                owners=[OwnershipJobFacetOwner(name=name, type=kind) for kind, name in self.settings.job_owners]
            )
        return self._enabled(facets)

    # -- events ----------------------------------------------------------------------

    def event(self, event_type: str, when: dt.datetime | None = None, message: str | None = None) -> RunEvent:
        """An event of the application run itself (START at install, COMPLETE at stop, ABORT on SIGTERM)."""
        parent = self.parent_context
        if parent is None and self.parent is not None:
            parent = parent_facet(self.parent, self.root)
        extra = {"errorMessage": _error({"message": message}, "PYTHON")} if message else None
        return run_event(
            event_type,
            when,
            self.run.run_id,
            (self.namespace, self.run.name),
            run_facets=self._run_facets(parent, extra),
            job_facets=self._job_facets("APPLICATION", "NONE"),
            producer=self.producer,
        )

    def query_event(self, run: QueryRun, event_type: str, when: dt.datetime | None = None) -> RunEvent:
        """An event of one query's run (a child of the application run, or of ``run.parent``)."""
        final = event_type != "START"
        parent_run = run.parent or self.run
        extra = _end_facets(run) if final else {}
        return run_event(
            event_type,
            when or (run.end if final and run.end else run.start),
            run.run_id,
            (self.namespace, run.job_name),
            run_facets=self._run_facets(parent_facet(parent_run, self.root_run), extra),
            job_facets=self._job_facets(run.job_kind, run.processing),
            inputs=self._inputs(run),
            outputs=self._outputs(run, final=final and event_type == "COMPLETE"),
            producer=self.producer,
        )

    def _inputs(self, run: QueryRun) -> list[InputDataset]:
        return [d.as_input() for d in run.facts.inputs]

    def _outputs(self, run: QueryRun, *, final: bool) -> list[OutputDataset]:
        """The written dataset; the final event of a successful write adds its statistics."""
        target = run.facts.target
        if target is None or target.dataset is None:
            return []
        facets: dict[str, Any] = {}
        if target.lifecycle:
            facets["lifecycleStateChange"] = _lifecycle(target.lifecycle, target.previous)
        if run.column_lineage is not None:
            facets["columnLineage"] = run.column_lineage
        facets = self._enabled(facets)
        output_facets: dict[str, Any] = {}
        if final and run.stats and self.settings.facet_enabled("outputStatistics"):
            output_facets["outputStatistics"] = _statistics(run.stats)
        return [target.dataset.as_output(output_facets=output_facets or None, **facets)]


def _tags(entity: str, tags: tuple[Tag, ...]) -> Any:
    """The tags facet of ``entity`` (run, job); None (after one warning) on a release without it."""
    from olsdk._integrations.spark._jvm import log
    from olsdk._models._release import spec_class

    if entity == "job":
        cls = spec_class("TagsJobFacet", feature="spark.openlineage.job.tags: the job's tags facet", logger=log)
    else:
        cls = spec_class("TagsRunFacet", feature="spark.openlineage.run.tags: the run's tags facet", logger=log)
    return None if cls is None else cls(tags=[{"key": t.key, "value": t.value, "source": t.source} for t in tags])


def _lifecycle(state: str, previous: Any) -> Any:
    from olsdk._models import LifecycleStateChangeDatasetFacet

    facet: dict[str, Any] = {"lifecycleStateChange": state}
    if previous is not None:
        facet["previousIdentifier"] = {"namespace": previous.namespace, "name": previous.name}
    return LifecycleStateChangeDatasetFacet(**facet)


def _statistics(stats: dict[str, int]) -> Any:
    from olsdk._models import OutputStatisticsOutputDatasetFacet

    return OutputStatisticsOutputDatasetFacet(
        rowCount=stats.get("rowCount"), size=stats.get("size"), fileCount=stats.get("fileCount")
    )


def _error(error: dict[str, str], language: str) -> Any:
    from olsdk._models import ErrorMessageRunFacet

    stack = error.get("stackTrace") or None
    return ErrorMessageRunFacet(message=error.get("message") or "", programmingLanguage=language, stackTrace=stack)


def _end_facets(run: QueryRun) -> dict[str, Any]:
    """Run facets only the final event carries: what could not be read, and the failure."""
    from olsdk._models import ExtractionErrorRunFacet, ExtractionErrorRunFacetError

    facets: dict[str, Any] = {}
    if run.errors:
        facets["extractionError"] = ExtractionErrorRunFacet(
            totalTasks=len(run.errors),
            failedTasks=len(run.errors),
            errors=[ExtractionErrorRunFacetError(errorMessage=e, task="plan") for e in run.errors],
        )
    if run.error is not None:
        facets["errorMessage"] = _error(run.error, "JAVA" if run.error.get("stackTrace") else "PYTHON")
    return facets
