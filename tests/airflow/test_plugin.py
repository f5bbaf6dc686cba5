"""The ``olsdk`` Airflow plugin loads olsdk in the task process, ahead of the provider's forks,
where (and only where) the provider's transport is olsdk's.

Each scenario runs Airflow's own plugin loading (``ensure_plugins_loaded``, as a task process
does before its listeners run) in .venv-airflow, then says which plugins it registered and
whether the modules a forked child needs to emit through olsdk are already there.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

from tests.airflow.harness import Sites, compat, venv_bin

PROBE = textwrap.dedent(
    """
    import json, sys
    from airflow import plugins_manager
    plugins_manager.ensure_plugins_loaded()
    from olsdk._readers import _events
    print("PROBE " + json.dumps({
        "plugins": sorted(plugin.name for plugin in plugins_manager.plugins),
        "compat": "olsdk.compat" in sys.modules,
        "client": "olsdk._delivery.client._client" in sys.modules,
        "reader built": _events._RUN_EVENT_VALIDATOR is not None,
    }))
    """
)

HTTP = {"type": "http", "url": "http://127.0.0.1:9"}


def probe(sites: Sites, **variables: str) -> dict[str, object]:
    site = sites.new()
    done = subprocess.run(
        [str(venv_bin("python")), "-c", PROBE],
        cwd=site.root,
        env=site.env(**variables),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("PROBE ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-3000:]
    result: dict[str, object] = json.loads(lines[-1].removeprefix("PROBE "))
    return result


@pytest.mark.airflow
def test_olsdk_is_loaded_before_the_forks_where_the_provider_delivers_through_it(sites: Sites) -> None:
    loaded = probe(sites, AIRFLOW__OPENLINEAGE__TRANSPORT=json.dumps(compat(HTTP)))
    assert "olsdk" in loaded["plugins"]  # type: ignore[operator]
    assert loaded["compat"] and loaded["client"] and loaded["reader built"], loaded


@pytest.mark.airflow
def test_a_composite_child_counts_and_the_official_lookup_is_read(sites: Sites) -> None:
    composite = {"type": "composite", "transports": {"lineage": compat(HTTP), "debug": {"type": "console"}}}
    loaded = probe(sites, AIRFLOW__OPENLINEAGE__TRANSPORT=json.dumps(composite))
    assert loaded["compat"] and loaded["reader built"], loaded
    # no Airflow option: the official client's own variables name the transport
    loaded = probe(
        sites,
        OPENLINEAGE__TRANSPORT__TYPE="olsdk.compat.OlsdkTransport",
        OPENLINEAGE__TRANSPORT__TRANSPORT__TYPE="console",
    )
    assert loaded["compat"] and loaded["reader built"], loaded


@pytest.mark.airflow
def test_other_transports_leave_olsdk_unloaded(sites: Sites) -> None:
    loaded = probe(sites, AIRFLOW__OPENLINEAGE__TRANSPORT=json.dumps(HTTP))
    assert "olsdk" in loaded["plugins"]  # type: ignore[operator]
    assert not loaded["compat"] and not loaded["client"] and not loaded["reader built"], loaded
