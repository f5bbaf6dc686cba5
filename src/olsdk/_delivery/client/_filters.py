"""Job-name filters, as the official client has them.

``exact`` drops run events whose job name equals ``match``; ``regex`` drops those
whose job name matches ``regex`` at its start (``re.match``). Only run events are
filtered, as in the official client.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from olsdk._delivery.client._settings import FilterSettings
from olsdk._delivery.transports._base import Payload

__all__ = ["JobNameFilter"]


class JobNameFilter:
    def __init__(self, settings: FilterSettings) -> None:
        self.settings = settings
        self._pattern = re.compile(settings.regex) if settings.type == "regex" and settings.regex else None

    def drops(self, job_name: str) -> bool:
        if self._pattern is not None:
            return self._pattern.match(job_name) is not None
        return job_name == self.settings.match

    @staticmethod
    def any_drops(filters: Iterable[JobNameFilter], payload: Payload) -> bool:
        if payload.kind != "run" or payload.job_name is None:
            return False
        return any(f.drops(payload.job_name) for f in filters)
