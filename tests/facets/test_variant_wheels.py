"""Each generated variant is its own wheel version, and a consumer uses both the models
generated from a producer's exported schemas and the producer's own facet module.

The version is olsdk's with a local label naming the spec variant (`0.1.0+spec.1.40.0`,
`...+spec.main.8f02abfb7a25.facets.<digest>`), written by the generator into the
generated package and read by the build. The models are generated into copies of the
package (`tests.support.overlay`); the repository's own stay untouched.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

from packaging.version import Version

import olsdk
from olsdk._models._generated import DIST_VERSION, SPEC_RELEASE
from olsdk.facets import export_schemas
from tests.support.overlay import sdk_copy

from .conftest import ROOT

RELEASE_1_40 = ROOT / "spec" / "releases" / "1.40.0"


def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False, **kwargs)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def generate(out: Path, spec: Path = ROOT / "spec", *extra: Path) -> str:
    """Generate models from `spec` (and extra facet folders) into a package copy; its DIST_VERSION."""
    src = sdk_copy(out)
    work = out.parent / f"{out.name}-spec"
    if spec != ROOT / "spec":  # another release: pin it in a project of its own
        run([sys.executable, "-m", "codegen", "--manifest", str(work / "manifest.json"), "--spec-dir", str(work),
             "upgrade", "--src", str(spec), "--out", str(src / "olsdk")], cwd=ROOT)  # fmt: skip
        manifest = ["--manifest", str(work / "manifest.json"), "--spec-dir", str(work)]
    else:
        manifest = []
    extras = [arg for folder in extra for arg in ("--extra-facets", str(folder))]
    run([sys.executable, "-m", "codegen", *manifest, "generate", *extras, "--out", str(src / "olsdk")], cwd=ROOT)
    text = (src / "olsdk" / "_models" / "_generated" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^DIST_VERSION = "([^"]+)"$', text, flags=re.MULTILINE)
    assert found is not None
    return found[1]


def test_the_committed_models_name_their_variant() -> None:
    assert f"{olsdk.__version__}+spec.{SPEC_RELEASE.replace('-', '.')}" == DIST_VERSION
    assert Version(DIST_VERSION).local == f"spec.{SPEC_RELEASE.replace('-', '.')}"


def test_every_variant_has_its_own_version(sample: Any, tmp_path: Path) -> None:
    schemas = export_schemas(sample, tmp_path / "schemas")
    assert schemas
    moved = tmp_path / "elsewhere" / "facet-schemas"  # the same schemas read from another folder
    shutil.copytree(tmp_path / "schemas", moved)
    versions = {
        "pinned": generate(tmp_path / "pinned"),
        "facets": generate(tmp_path / "facets", ROOT / "spec", tmp_path / "schemas"),
        "facets, moved": generate(tmp_path / "moved", ROOT / "spec", moved),
    }
    if (RELEASE_1_40 / "OpenLineage.json").exists():
        versions["1.40.0"] = generate(tmp_path / "old", RELEASE_1_40)
        versions["1.40.0, facets"] = generate(tmp_path / "old-facets", RELEASE_1_40, tmp_path / "schemas")
    base = olsdk.__version__
    assert versions["pinned"] == DIST_VERSION  # the same as the committed models
    facets = re.fullmatch(rf"{re.escape(DIST_VERSION)}\.facets\.([0-9a-f]{{8}})", versions["facets"])
    assert facets is not None, versions["facets"]
    assert versions["facets, moved"] == versions["facets"]  # the schemas decide, not their folder
    if "1.40.0" in versions:
        assert versions["1.40.0"] == f"{base}+spec.1.40.0"
        assert versions["1.40.0, facets"] == f"{base}+spec.1.40.0.facets.{facets[1]}"
    for version in versions.values():
        assert Version(version).public == base  # PEP 440, one release with a local label each
    distinct = {v for k, v in versions.items() if k != "facets, moved"}
    assert len(distinct) == len(versions) - 1


CONSUMER = textwrap.dedent(
    """
    import json, sys
    from importlib.metadata import version
    import olsdk, olsdk.models as m
    from olsdk.facets import attach
    from tests.facets import sample_facets as producer   # the producer's own facet module

    assert olsdk.__file__.startswith(sys.argv[1]), olsdk.__file__
    run = m.Run(runId="3b452093-782c-4ef2-9c0c-aafe2aa6f34d")
    job = m.Job(namespace="n", name="j")
    theirs = producer.MyCompanyStatisticsRunFacet(rows=3)           # the producer's class
    ours = m.MyCompanyStatisticsRunFacet(rows=4)                    # generated from its schema
    sent = [m.RunEvent(eventType="START", run=attach(run, facet), job=job) for facet in (theirs, ours)]
    parsed = [olsdk.parse_event(olsdk.to_json(event)) for event in sent]
    print(json.dumps({
        "version": version("olsdk"),
        "written": [json.loads(olsdk.to_json(e))["run"]["facets"]["myCompany_statistics"]["rows"] for e in sent],
        "parsed": [type(p.run.facets["myCompany_statistics"]).__name__ for p in parsed],
        "parsed_module": [type(p.run.facets["myCompany_statistics"]).__module__ for p in parsed],
        "rows": [p.run.facets["myCompany_statistics"].rows for p in parsed],
        "same_url": theirs.schemaURL == ours.schemaURL,
    }))
    """
)


def test_a_consumer_wheel_with_a_producers_facets_takes_the_producers_module(sample: Any, tmp_path: Path) -> None:
    export_schemas(sample, tmp_path / "schemas")
    project = tmp_path / "project"
    for name in ("pyproject.toml", "README.md", "LICENSE", "spec/LICENSE"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, project / name)
    version = generate(project / "src", ROOT / "spec", tmp_path / "schemas")
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(project)])
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"olsdk-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert f"Version: {version}" in archive.read(f"olsdk-{version}.dist-info/METADATA").decode().splitlines()

    site = tmp_path / "site"
    run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)])
    env = {"PYTHONPATH": f"{site}:{ROOT}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = run([sys.executable, "-c", CONSUMER, str(site)], env=env, cwd=tmp_path)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["version"] == version
    assert seen["written"] == [3, 4]
    assert seen["parsed"] == ["MyCompanyStatisticsRunFacet"] * 2
    assert seen["parsed_module"] == ["olsdk._models._generated.models"] * 2  # typed by the generated class
    assert seen["rows"] == [3, 4] and seen["same_url"] is True
