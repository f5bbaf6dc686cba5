"""Where configuration comes from: file lookup, environment variables, precedence, origins.

These use ``olsdk._delivery._config`` alone (no transport is parsed here: the ``transport``
section stays a mapping); ``tests/client/test_config.py`` covers the whole of it.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

import pytest

from olsdk import ConfigError
from olsdk._delivery._config import env_layer, find_config_file
from olsdk._delivery.client._config import load_config
from tests.support.client_testkit import http_config as http
from tests.support.client_testkit import write_yml
from tests.support.processes import run_cli, run_script


def test_file_lookup_order(tmp_path: Path) -> None:
    cwd, home = tmp_path / "cwd", tmp_path / "home"
    explicit = write_yml(tmp_path / "elsewhere" / "ol.yml", http("http://explicit"))
    in_cwd = write_yml(cwd / "openlineage.yml", http("http://cwd"))
    in_home = write_yml(home / ".openlineage" / "openlineage.yml", http("http://home"))
    env = {"OPENLINEAGE_CONFIG": str(explicit)}
    assert find_config_file(env, str(cwd), str(home)) == explicit
    assert find_config_file({}, str(cwd), str(home)) == in_cwd
    in_cwd.unlink()
    assert find_config_file({}, str(cwd), str(home)) == in_home
    loaded = load_config(environ={}, cwd=str(cwd), home=str(home))
    assert loaded.settings.transport == {"type": "http", "url": "http://home"}


def test_precedence_code_over_file_over_env(tmp_path: Path) -> None:
    """The official client's order: code > file > environment variables."""
    yml = write_yml(tmp_path / "ol.yml", http("http://file", timeout=1, endpoint="from/file"))
    env = {
        "OPENLINEAGE_CONFIG": str(yml),
        "OPENLINEAGE__TRANSPORT__TIMEOUT": "2",
        "OPENLINEAGE__TRANSPORT__ENDPOINT": "from/env",
        "OPENLINEAGE__TRANSPORT__COMPRESSION": "gzip",
    }
    loaded = load_config({"transport": {"timeout": 3}}, environ=env, cwd=str(tmp_path), home=str(tmp_path))
    t = loaded.settings.transport
    assert t == {"type": "http", "url": "http://file", "timeout": 3, "endpoint": "from/file", "compression": "gzip"}
    assert loaded.origin("transport", "timeout") == "code"
    assert loaded.origin("transport", "endpoint") == str(yml)
    assert loaded.origin("transport", "compression") == ("environment variable OPENLINEAGE__TRANSPORT__COMPRESSION")
    assert loaded.origin("transport", "url") == str(yml)


def test_a_json_section_in_one_variable_wins_over_its_leaves() -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__URL": "http://leaf",
        "OPENLINEAGE__TRANSPORT": '{"type": "http", "url": "http://blob"}',
    }
    loaded = load_config(environ=env, cwd="/nonexistent", home="/nonexistent")
    assert loaded.settings.transport == {"type": "http", "url": "http://blob"}
    assert loaded.origin("transport", "url") == "environment variable OPENLINEAGE__TRANSPORT"
    tree, origins = env_layer({"OPENLINEAGE__SPOOL__PATH": "/x", "OTHER": "1"})
    assert tree == {"spool": {"path": "/x"}}
    assert origins == {("spool", "path"): "environment variable OPENLINEAGE__SPOOL__PATH"}
    with pytest.raises(ConfigError, match="OPENLINEAGE__TRANSPORT____URL: empty key segment"):
        env_layer({"OPENLINEAGE__TRANSPORT____URL": "x"})


def test_url_shorthand_is_the_fallback_and_joins_a_composite(tmp_path: Path) -> None:
    yml = write_yml(tmp_path / "ol.yml", {"transport": {"type": "console"}})
    short = {"OPENLINEAGE_URL": "http://u", "OPENLINEAGE_API_KEY": "k"}
    fallback = load_config(
        environ={**short, "OPENLINEAGE__TRANSPORT__TIMEOUT": "9"}, cwd=str(tmp_path), home=str(tmp_path)
    )
    assert fallback.settings.transport == {
        "timeout": "9",
        "type": "http",
        "url": "http://u",
        "auth": {"type": "api_key", "apiKey": "k"},
    }
    assert fallback.origin("transport", "auth", "apiKey") == "environment variable OPENLINEAGE_API_KEY"
    with_file = load_config(environ={**short, "OPENLINEAGE_CONFIG": str(yml)}, cwd=str(tmp_path), home=str(tmp_path))
    assert with_file.settings.transport == {"type": "console"}  # the file names a type: it wins
    explicit = load_config(
        environ={**short, "OPENLINEAGE__TRANSPORT__TYPE": "console"}, cwd=str(tmp_path), home=str(tmp_path)
    )
    assert explicit.settings.transport == {"type": "console"}
    composite = {"transport": {"type": "composite", "transports": {"f": {"type": "console"}}}}
    joined = load_config(composite, environ={"OPENLINEAGE_URL": "http://u"}, cwd=str(tmp_path), home=str(tmp_path))
    assert joined.settings.transport is not None
    assert joined.settings.transport["transports"]["default_http"] == {"type": "http", "url": "http://u"}
    assert joined.origin("transport", "transports", "default_http", "url") == "environment variable OPENLINEAGE_URL"
    switched = load_config(environ={**short, "OPENLINEAGE__TRANSPORT__TYPE": "async_http"}, cwd="/nonexistent")
    assert switched.settings.transport == {
        "type": "async_http",
        "url": "http://u",
        "auth": {"type": "api_key", "apiKey": "k"},
    }


def test_keys_differing_in_spelling_are_one_key_across_layers(tmp_path: Path) -> None:
    yml = write_yml(tmp_path / "ol.yml", http("http://x", auth={"type": "api_key", "apiKey": "from-file"}))
    env = {"OPENLINEAGE_CONFIG": str(yml), "OPENLINEAGE__TRANSPORT__AUTH__API_KEY": "from-env"}
    loaded = load_config(environ=env, cwd=str(tmp_path), home=str(tmp_path))
    assert loaded.settings.transport is not None
    assert loaded.settings.transport["auth"] == {"type": "api_key", "apiKey": "from-file"}  # file > env
    assert "from-file" not in repr(loaded) and "from-env" not in repr(loaded)


def test_unreadable_files_are_errors_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "ol.yml"
    bad.write_text("transport: [unclosed")
    with pytest.raises(ConfigError, match=f"cannot read OpenLineage config file {bad}"):
        load_config(environ={"OPENLINEAGE_CONFIG": str(bad)})
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="the top level must be a mapping, got list"):
        load_config(environ={"OPENLINEAGE_CONFIG": str(bad)})
    bad.write_text("")
    assert load_config(environ={"OPENLINEAGE_CONFIG": str(bad)}).data == {}


def test_client_keys_are_checked_here() -> None:
    with pytest.raises(ConfigError, match=r"^error_policy: must be one of 'log', 'raise', got 'ignore'"):
        load_config({"error_policy": "ignore"}, environ={})
    with pytest.raises(ConfigError, match=r"filters\.regex: invalid regular expression"):
        load_config({"filters": [{"type": "regex", "regex": "("}]}, environ={})
    loaded = load_config({"spool": {"enabled": "no"}, "error_policy": "RAISE"}, environ={})
    assert (loaded.settings.spool.enabled, loaded.settings.error_policy) == (False, "raise")


# -- hostile configuration fails fast with ConfigError (issue 13) ------------------------------

ALIAS_BOMB = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
tags:
  job: *g
"""


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """Loaded in a child process: on a loader that expands it, it would hang, not fail."""
    yml = tmp_path / "openlineage.yml"
    yml.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 1300
    client = run_script(
        "from olsdk.client import OpenLineageClient\nOpenLineageClient()",
        tmp_path,
        timeout=60,
        OPENLINEAGE_CONFIG=str(yml),
    )
    show = run_cli("config", "show", home=tmp_path, timeout=60, OPENLINEAGE_CONFIG=str(yml))
    for done in (client, show):
        assert "[killed after" not in done.stderr
        assert "expands to more than 10000 values" in done.stderr and str(yml) in done.stderr
    assert show.returncode == 2 and "Traceback" not in show.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: " + "[" * 5000 + "]" * 5000, r"nested deeper than 32 levels \(line 1\)"),
        ("".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "x: 1\n", "nested deeper than 32 levels"),
        ("a: &a [*a]\n", r"alias \*a refers to a node that contains it"),
        ("a: &a {b: *a}\n", r"alias \*a refers to a node that contains it"),
        (
            "".join(f"k{i}: &a{i} x\n" for i in range(50))
            + "l: ["
            + ", ".join(f"*a{i % 50}" for i in range(101))
            + "]\n",
            "more than 100 aliases",
        ),
        ("x" * 1_100_000, "larger than 1048576 bytes"),
        ("transport: [unclosed", "cannot read OpenLineage config file"),
    ],
)
def test_hostile_yaml_fails_with_a_config_error_naming_the_file(text: str, message: str, tmp_path: Path) -> None:
    yml = tmp_path / "ol.yml"
    yml.write_text(text)
    with pytest.raises(ConfigError, match=message) as err:
        load_config(environ={"OPENLINEAGE_CONFIG": str(yml)}, cwd=str(tmp_path), home=str(tmp_path))
    assert str(yml) in str(err.value)


def test_invalid_utf8_names_the_file_and_the_byte(tmp_path: Path) -> None:
    yml = tmp_path / "openlineage.yml"
    yml.write_bytes(b"transport:\n  type: http\n  url: http://h\xe9\n")
    with pytest.raises(ConfigError, match=r"openlineage\.yml: not valid UTF-8 \(byte 39: b'\\xe9'\)") as err:
        load_config(environ={}, cwd=str(tmp_path), home=str(tmp_path))
    assert str(yml) in str(err.value)


def test_json_in_a_variable_nested_30000_deep_is_refused() -> None:
    env = {"OPENLINEAGE__TRANSPORT": "[" * 30_000 + "]" * 30_000}
    with pytest.raises(ConfigError, match=r"transport: JSON text nested deeper than 32 levels \(from environment"):
        load_config(environ=env, cwd="/nonexistent", home="/nonexistent")
    from olsdk.client import OpenLineageClient

    with pytest.raises(ConfigError):
        OpenLineageClient(environ={"OPENLINEAGE__TRANSPORT": '{"type": "http", "url": ' + "[" * 30_000})


def test_an_explicit_config_file_must_exist_and_be_readable(tmp_path: Path) -> None:
    write_yml(tmp_path / "openlineage.yml", http("http://cwd"))  # never a silent fallback to this one
    cases = {
        str(tmp_path / "nonexistent.yml"): "does not exist",
        str(tmp_path): "is not a file",
        "/etc/hostname/x.yml": "does not exist",
    }
    broken = tmp_path / "broken.yml"
    broken.symlink_to(tmp_path / "gone.yml")
    cases[str(broken)] = "is a broken symbolic link"
    for named, why in cases.items():
        with pytest.raises(ConfigError, match=f"from OPENLINEAGE_CONFIG={named}\\) {why}"):
            load_config(environ={"OPENLINEAGE_CONFIG": named}, cwd=str(tmp_path), home=str(tmp_path))


def test_an_unreadable_config_file_is_an_error_not_a_fallback() -> None:
    """chmod 000 stops anyone but root: as root, the check runs in a child that drops to nobody."""
    tmp_path = Path(tempfile.mkdtemp(prefix="olsdk-unreadable-"))
    try:
        tmp_path.chmod(0o755)  # pytest's own tmp_path is private to root: nobody could not even look
        home = tmp_path / "home"
        write_yml(home / ".openlineage" / "openlineage.yml", http("http://home"))
        explicit = write_yml(tmp_path / "secret.yml", http("http://explicit"))
        in_cwd = write_yml(tmp_path / "openlineage.yml", http("http://cwd"))
        for path in (explicit, in_cwd):
            path.chmod(0o000)
        script = f"""
            import os
            from olsdk import ConfigError
            from olsdk._delivery.client._config import load_config
            if os.getuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            for env in ({{"OPENLINEAGE_CONFIG": {str(explicit)!r}}}, {{}}):
                try:
                    load_config(environ=env, cwd={str(tmp_path)!r}, home={str(home)!r})
                    print("loaded")
                except ConfigError as exc:
                    print(exc)
            """
        done = run_script(script, tmp_path, timeout=60)
    finally:
        shutil.rmtree(tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert f"{explicit} (from OPENLINEAGE_CONFIG={explicit}) cannot be read: Permission denied" in first
    assert f"{in_cwd} (from {in_cwd}) cannot be read: Permission denied" in second


def test_near_misses_of_variable_names_are_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    env = {
        "OPENLINEAGE_ULR": "http://h",
        "OPENLINEAGE_TRANSPORT__TYPE": "http",
        "openlineage_url": "http://h",
        "OPENLINEAGE_PARENT_ID": "ns/job/run",  # read by other integrations: no warning
        "OPENLINEAGE_NAMESPACE": "team",
        "OPENLINEAGE_URL": "http://h",
    }
    with caplog.at_level(logging.WARNING, logger="olsdk"):
        loaded = load_config(environ=env, cwd="/nonexistent", home="/nonexistent")
    assert sorted(loaded.warnings) == [
        "environment variable OPENLINEAGE_TRANSPORT__TYPE is not read by OpenLineage; "
        "did you mean OPENLINEAGE__TRANSPORT__TYPE?",
        "environment variable OPENLINEAGE_ULR is not read by OpenLineage; did you mean OPENLINEAGE_URL?",
        "environment variable openlineage_url is not read by OpenLineage; did you mean OPENLINEAGE_URL?",
    ]
    assert caplog.text.count("is not read by OpenLineage") == 3
