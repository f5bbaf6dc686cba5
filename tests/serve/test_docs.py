"""docs/how-to/serve.md: its options exist, and its Python examples run against a real server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.serve.harness import ServeProcess, dumps, run_event
from tests.support.processes import run_cli, run_script

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "serve.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_every_option_in_the_table_is_an_option(tmp_path: Path) -> None:
    documented = set(re.findall(r"^\| `(--[a-z-]+)` \|", DOC.read_text(encoding="utf-8"), re.M))
    assert len(documented) == 13
    helped = run_cli("serve", "--help", home=tmp_path)
    assert helped.returncode == 0
    offered = set(re.findall(r"(--[a-z-]+)", helped.stdout)) - {"--help"}
    assert documented == offered


def test_the_marquez_client_example_runs(sqlite_served: ServeProcess, capsys: Any) -> None:
    event = run_event(
        "daily_orders",
        "0190d3a4-7b5c-7a3e-9f00-0000000000d1",
        "COMPLETE",
        outputs=[("postgres://db:5432", "shop.orders")],
        fields=[("id", "INTEGER")],
    )
    assert sqlite_served.post("/api/v1/lineage", dumps(event))[0] == 200
    code = python_blocks()[0].replace("http://127.0.0.1:5000", sqlite_served.url)
    exec(compile(code, "docs/how-to/serve.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "COMPLETED ['shop.orders']"
    assert "'name': 'id', 'type': 'INTEGER'" in printed[1]


def test_the_library_example_builds_the_application(tmp_path: Path) -> None:
    from starlette.applications import Starlette

    code = python_blocks()[1].replace("run(settings)", "pass").replace('"lineage.db"', repr(str(tmp_path / "l.db")))
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/how-to/serve.md", "exec"), namespace)
    assert isinstance(namespace["app"], Starlette)
    assert (tmp_path / "l.db").exists()


def test_the_tutorial_block_runs(tmp_path: Path) -> None:
    """The first-events tutorial, "Serve lineage": `olsdk serve` (default store) and a pipeline sending to it by
    OPENLINEAGE_URL."""
    readme = (DOC.parents[2] / "docs" / "tutorials" / "first-events.md").read_text(encoding="utf-8")
    block = readme.split("## Serve lineage: `olsdk serve`", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert block.splitlines()[0].startswith("olsdk serve  ")
    assert block.splitlines()[1].startswith("OPENLINEAGE_URL=http://127.0.0.1:5000 python my_pipeline.py")
    pipeline = tmp_path / "my_pipeline.py"
    pipeline.write_text(
        "from olsdk import OpenLineageClient\n"
        "with OpenLineageClient() as client, client.run('etl', 'my_pipeline'):\n"
        "    pass\n"
    )
    with ServeProcess(tmp_path, None) as server:  # the default store, under the child's XDG_STATE_HOME
        done = run_script(pipeline.read_text(), tmp_path, OPENLINEAGE_URL=server.url)
        assert done.returncode == 0, done.stderr
        assert server.get("/api/v1/namespaces/etl/jobs/my_pipeline")["latestRun"]["state"] == "COMPLETED"
    assert (tmp_path / "state" / "olsdk" / "lineage.db").exists()


def test_the_key_file_title_and_body_limit_options(tmp_path: Path, sqlite_db: str) -> None:
    key_file = tmp_path / "key.txt"
    key_file.write_text("file-key-93b1\n")
    options = ("--api-key-file", str(key_file), "--title", "Team lineage", "--max-body-mb", "0.01")
    with ServeProcess(tmp_path, sqlite_db, *options) as server:
        bearer = {"Authorization": "Bearer file-key-93b1"}
        assert (
            server.post("/api/v1/lineage", dumps(run_event("keyed", "0190d3a4-7b5c-7a3e-9f00-0000000000d2")))[0] == 401
        )
        assert (
            server.post("/api/v1/lineage", dumps(run_event("keyed", "0190d3a4-7b5c-7a3e-9f00-0000000000d2")), bearer)[0]
            == 200
        )
        big = dumps(run_event("keyed", "0190d3a4-7b5c-7a3e-9f00-0000000000d3", padding="x" * 20_000))
        assert server.post("/api/v1/lineage", big, bearer)[0] == 413  # 0.01 MB, and no less than 1 KiB
        assert server.get("/api/olsdk/graph", bearer)["title"] == "Team lineage"
    assert "file-key-93b1" not in server.output()
