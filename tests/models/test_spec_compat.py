"""`olsdk._builders._spec_compat`: notes on what an event has that the generated models' spec version lacks."""

from __future__ import annotations

import json

import pytest

from olsdk import ValidationError
from olsdk._builders._spec_compat import check_event, parse_event_checked, spec_versions
from tests.support.spec_snapshots import SAMPLE_EVENT


def test_spec_compat_with_the_repository_models() -> None:
    mine = spec_versions()["core_version"]
    event = json.loads(json.dumps(SAMPLE_EVENT))
    event["schemaURL"] = "https://openlineage.io/spec/9-9-9/OpenLineage.json#/$defs/RunEvent"
    event["job"]["futureField"] = 1
    parsed, notes = parse_event_checked(event)
    assert parsed.job.name == "job"
    assert notes[0] == f"schemaURL names OpenLineage 9-9-9, models are {mine}"
    assert f"job.futureField: not a field of Job in OpenLineage {mine} (kept as extra data)" in notes
    assert check_event(json.dumps(event)) == notes

    del event["job"]["name"]
    with pytest.raises(ValidationError) as info:
        parse_event_checked(event)
    assert f"spec version: schemaURL names OpenLineage 9-9-9, models are {mine}" in info.value.__notes__
