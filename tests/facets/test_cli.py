"""``olsdk facets export`` from any module: several prefixes, a file path."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from olsdk._integrations._cli import main

TWO_PREFIXES = textwrap.dedent(
    """
    from olsdk.facets import CustomJobFacet, CustomRunFacet

    ACME = {"prefix": "acme", "schema_base_url": "https://acme.example/facets", "version": "1-0-0"}
    BQ = {"prefix": "bigQuery", "schema_base_url": "https://bq.example/f", "version": "1-0-0"}

    class AcmeOwnerJobFacet(CustomJobFacet, **ACME):
        team: str

    class BigQueryStatisticsRunFacet(CustomRunFacet, **BQ):
        billedBytes: int
    """
)


@pytest.fixture
def facets_file(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "my_facets_two.py"
    path.parent.mkdir()
    path.write_text(TWO_PREFIXES)
    return path


def test_two_prefixes_export_one_registry_each_from_a_file_path(
    facets_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["facets", "export", str(facets_file), "--out", str(out)]) == 0
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.json"))
    assert written == [
        "acme/facets/AcmeOwnerJobFacet.json",
        "acme/registry.json",
        "bigQuery/facets/BigQueryStatisticsRunFacet.json",
        "bigQuery/registry.json",
    ]
    acme = json.loads((out / "acme" / "registry.json").read_text())["producer"]
    assert acme == {
        "root_doc_URL": "https://acme.example/facets",
        "produced_facets": ["ol:acme:AcmeOwnerJobFacet.json"],
    }
    schema = json.loads((out / "bigQuery" / "facets" / "BigQueryStatisticsRunFacet.json").read_text())
    assert "billedBytes" in json.dumps(schema)
    assert "registry.json" in capsys.readouterr().out


def test_one_name_for_all_and_errors_speak_command_line(
    facets_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "named"
    assert main(["facets", "export", str(facets_file), "--out", str(out), "--name", "acme:all"]) == 2
    err = capsys.readouterr().err
    assert (
        "do not share one schema base URL" in err and "pass --root-doc-url" in err and "=" not in err.split("pass")[1]
    )
    args = [
        "facets",
        "export",
        str(facets_file),
        "--out",
        str(out),
        "--name",
        "acme:all",
        "--root-doc-url",
        "https://d",
    ]
    assert main(args) == 0
    registry = json.loads((out / "registry.json").read_text())["producer"]
    assert registry["produced_facets"] == [
        "ol:acme:all:AcmeOwnerJobFacet.json",
        "ol:acme:all:BigQueryStatisticsRunFacet.json",
    ]
    assert main(["facets", "export", str(tmp_path / "missing.py"), "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
