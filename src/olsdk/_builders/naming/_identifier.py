"""``DatasetId``: the (namespace, name) pair every builder and parser returns; ``Form``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from olsdk._models import InputDataset, OutputDataset

__all__ = ["DatasetId", "Form"]

#: Which spelling a parser gives where sources differ: the Java agent's (``"agent"``,
#: so identifiers link with Spark events) or the current naming conventions'.
Form = Literal["agent", "conventions"]


@dataclass(frozen=True, slots=True)
class DatasetId:
    """A dataset identifier as the naming conventions define it.

    ``namespace`` is ``scheme:[//authority]`` (the data source) and ``name`` the dataset
    inside it; ``uri`` joins the two. Two identifiers are equal when both parts are.
    """

    namespace: str
    name: str

    def __post_init__(self) -> None:
        for field in ("namespace", "name"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"DatasetId: {field} must be a non-empty string, got {value!r}")

    @property
    def uri(self) -> str:
        """``scheme:[//authority]path``: the namespace followed by the name.

        With an authority (``s3://bucket``) the name becomes the path (one ``/``
        between them); without one (``bigquery``, ``file``, ``arn:aws:glue:...``) the
        name follows a ``:``, which gives ``bigquery:p.d.t`` as the seeds spell it and
        a real Glue table ARN.
        """
        if "://" in self.namespace:
            separator = "" if self.name.startswith("/") else "/"
            return f"{self.namespace}{separator}{self.name}"
        return f"{self.namespace}:{self.name}"

    def __str__(self) -> str:
        return self.uri

    def as_input(self, **facets: Any) -> InputDataset:
        """This dataset as an ``InputDataset``; keyword arguments are dataset facets by key."""
        from olsdk._models import InputDataset

        return InputDataset(namespace=self.namespace, name=self.name, **_facets(facets))

    def as_output(self, **facets: Any) -> OutputDataset:
        """This dataset as an ``OutputDataset``; keyword arguments are dataset facets by key."""
        from olsdk._models import OutputDataset

        return OutputDataset(namespace=self.namespace, name=self.name, **_facets(facets))


def _facets(facets: dict[str, Any]) -> dict[str, Any]:
    # No facets: leave the field unset so the dumped event stays minimal.
    return {"facets": facets} if facets else {}
