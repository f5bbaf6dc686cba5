"""The snippet collector itself (`tests/docs/snippets.py`): a block that is wrong fails,
a skip says why, and every command the docs show is in a block that runs or is skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.snippets import ROOT, SNIPPETS, is_documentation

RUN_LANGUAGES = {"python", "sh", "bash", "console", "yaml", "yml"}


def evaluate(markdown: str, tmp_path: Path) -> None:
    """Run every block of `markdown` as the collector does (one document)."""
    path = tmp_path / "doc.md"
    path.write_text(markdown, encoding="utf-8")
    document = SNIPPETS.parse(path)
    assert SNIPPETS.setup is not None and SNIPPETS.teardown is not None
    SNIPPETS.setup(document.namespace)
    try:
        for example in document.examples():
            example.evaluate()
    finally:
        SNIPPETS.teardown(document.namespace)


def test_python_blocks_share_a_namespace_and_a_failure_fails(tmp_path: Path) -> None:
    evaluate("```python\nx = 40\n```\n\ntext\n\n```python\nassert x + 2 == 42\n```\n", tmp_path)
    with pytest.raises(NameError, match="undefined_name"):
        evaluate("```python\nprint(undefined_name)\n```\n", tmp_path)


def test_a_shell_block_fails_on_a_failing_command(tmp_path: Path) -> None:
    evaluate("```sh\nolsdk --version\npython -c 'import olsdk'\n```\n", tmp_path)
    with pytest.raises(AssertionError, match="exit status 2"):
        evaluate("```sh\nolsdk inspect missing.ndjson\necho never\n```\n", tmp_path)


def test_a_console_block_checks_the_output_shown(tmp_path: Path) -> None:
    evaluate("```console\n$ olsdk --version\nolsdk 0.1.0...\n...\nsnapshot: main-...\n```\n", tmp_path)
    with pytest.raises(AssertionError, match=re.escape("did not print 'olsdk 9.9.9'")):
        evaluate("```console\n$ olsdk --version\nolsdk 9.9.9\n```\n", tmp_path)
    with pytest.raises(AssertionError, match="did not print"):  # the order counts
        evaluate("```console\n$ olsdk --version\nsnapshot: ...\nolsdk 0.1.0\n```\n", tmp_path)


def test_a_yaml_block_is_an_openlineage_yml_the_client_must_accept(tmp_path: Path) -> None:
    import olsdk

    evaluate("```yaml\ntransport:\n  type: console\n```\n\n```sh\nolsdk config show | grep console\n```\n", tmp_path)
    with pytest.raises(olsdk.ConfigError, match=r"transport\.timout: unknown key; did you mean 'timeout'\?"):
        evaluate("```yaml\ntransport:\n  type: http\n  url: http://127.0.0.1:9\n  timout: 3\n```\n", tmp_path)


def test_a_skip_needs_a_reason_and_skips_only_the_next_block(tmp_path: Path) -> None:
    from unittest import SkipTest

    with pytest.raises(SkipTest, match="no server here"):
        evaluate('<!-- skip: next "no server here" -->\n```sh\nexit 1\n```\n', tmp_path)
    with pytest.raises(ValueError, match="needs a reason"):
        evaluate("<!-- skip: next -->\n```sh\nexit 1\n```\n", tmp_path)


def test_each_document_runs_in_its_own_folder_with_a_clean_environment(tmp_path: Path) -> None:
    import os

    before = (os.getcwd(), os.environ.get("HOME"))
    evaluate(
        "```python\nimport os\nassert os.getcwd() == str(workdir)\n"
        "assert not [n for n in os.environ if n.startswith('OPENLINEAGE')]\n"
        "assert lineage_server.url.startswith('http://127.0.0.1:')\n```\n",
        tmp_path,
    )
    assert (os.getcwd(), os.environ.get("HOME")) == before


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_collector_takes_the_readme_and_every_doc() -> None:
    assert all(is_documentation(path) for path in documents())
    assert not is_documentation(ROOT / "tests" / "README.md")
    counted = {name(path): len(list(SNIPPETS.parse(path).examples())) for path in documents()}
    assert counted["README.md"] >= 6 and counted["docs/how-to/client.md"] >= 6 and counted["docs/how-to/naming.md"] >= 1
    assert counted["docs/reference/configuration.md"] >= 5 and counted["docs/tutorials/first-events.md"] >= 6


def test_a_block_of_commands_run_elsewhere_is_skipped_with_the_reasons(tmp_path: Path) -> None:
    from unittest import SkipTest

    with pytest.raises(SkipTest, match="make test is what runs this very block"):
        evaluate("```sh\nmake test   # every test\n```\n", tmp_path)
    with pytest.raises(AssertionError, match="exit status 3"):  # one command not listed: the block runs
        evaluate("```sh\nexit 3\nmake test\n```\n", tmp_path)


def test_the_readme_keeps_no_test_directive() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!--" not in text
    assert text.startswith("# olsdk\n\n```sh\nmake demo ")


@pytest.mark.parametrize("path", documents(), ids=name)
def test_no_command_hides_in_a_block_that_does_not_run(path: Path) -> None:
    """A block in another language (text, json, ...) shows no `make`, `olsdk`, `python -m`
    or `$ ` command line: commands are in blocks the collector runs (or skips with a reason)."""
    text = path.read_text(encoding="utf-8")
    for language, body in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S):
        if language in RUN_LANGUAGES:
            continue
        for line in body.splitlines():
            assert not re.match(r"\s*(\$ |make |olsdk |python3? -m |\.venv/bin/)", line), (path.name, line)
    assert not re.search(r"^(    )+(make|olsdk|python -m) ", text, flags=re.M), f"{path.name}: an indented code block"


def test_spark_blocks_and_what_depends_on_them_are_marked(tmp_path: Path) -> None:
    from tests.docs.snippets import spark_flags

    path = tmp_path / "doc.md"
    path.write_text(
        "```yaml\n# the spark job's client\ntransport: {type: console}\n```\n\n"
        "```yaml\ntransport: {type: console}\n```\n\n"
        "```python\nspark = None\n```\n\n```console\n$ olsdk inspect lineage.ndjson\n```\n\n"
        "```python\nx = 1\n```\n\n```sh\nolsdk --version\n```\n",
        encoding="utf-8",
    )
    examples = list(SNIPPETS.parse(path).examples())
    assert spark_flags(examples) == [True, False, True, True, False, False]
