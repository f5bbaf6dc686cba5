"""Settings on pydantic: key spellings, coercion, and errors that name key and source."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field

from olsdk import ConfigError
from olsdk._delivery._config import Settings, build, norm, suggest


class Inner(Settings):
    depth: int = 1


class Sample(Settings):
    url: str
    api_key: str | None = Field(None, validation_alias="apiKey")
    ratio: float = 1.0
    on: bool = False
    mode: Literal["fast", "safe"] = "safe"
    codes: list[int] = Field(default_factory=list)
    headers: dict[str, str] = Field(default_factory=dict)
    inner: Inner = Inner()
    either: int | str | None = Field(None, union_mode="left_to_right")


def test_keys_match_in_any_spelling() -> None:
    assert norm("API-Key") == norm("api_key") == norm("apikey") == "apikey"
    for key in ("apiKey", "api_key", "APIKEY", "api-key"):
        assert build(Sample, {"url": "u", key: "k"}, ()).api_key == "k"


def test_values_are_coerced_to_the_declared_type_and_text_stays_text() -> None:
    got = build(
        Sample,
        {
            "url": 8080,
            "apiKey": "007",
            "ratio": "0.5",
            "on": "Yes",
            "mode": "FAST",
            "codes": "500; 503",
            "headers": '{"X-A": "1"}',
            "inner": {"depth": " 3 "},
            "either": "7",
        },
        (),
    )
    assert got == Sample(
        url="8080",
        api_key="007",
        ratio=0.5,
        on=True,
        mode="fast",
        codes=[500, 503],
        headers={"X-A": "1"},
        inner=Inner(depth=3),
        either=7,
    )
    assert build(Sample, {"url": "u", "codes": "[1, 2]", "on": False}, ()).codes == [1, 2]
    assert build(Sample, '{"url": "from json"}', ()).url == "from json"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, r"^t\.url: required key is missing$"),
        ({"url": "u", "ratoi": 1}, r"^t\.ratoi: unknown key; did you mean 'ratio'\? \(valid keys: .*apiKey.*\)$"),
        ({"url": "u", "ratio": "half"}, r"^t\.ratio: expected a number, got 'half'$"),
        ({"url": "u", "on": "maybe"}, r"^t\.on: expected true or false, got 'maybe'$"),
        ({"url": "u", "mode": "slow"}, r"^t\.mode: must be one of 'fast', 'safe', got 'slow'$"),
        ({"url": "u", "codes": ["x"]}, r"^t\.codes\.0: expected an integer, got 'x'$"),
        ({"url": "u", "inner": {"depth": True}}, r"^t\.inner\.depth: expected an integer, got True$"),
        ({"url": None}, r"^t\.url: a value is required here, got null$"),
        ({"url": ["a"]}, r"^t\.url: expected text, got list$"),
        # JSON text is never echoed: it may hold secrets (issue 13)
        ({"url": "u", "headers": "{nope"}, r"^t\.headers: expected a mapping or JSON text; the text is not valid JSON"),
        ([1], r"^t: expected a mapping, got list$"),
    ],
)
def test_errors_name_the_key_and_the_rule(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        build(Sample, data, ("t",))
    assert err.value.key is not None and err.value.key.startswith("t")


def test_errors_say_where_the_value_came_from() -> None:
    origins: dict[tuple[str, ...], str] = {("t",): "environment variable OPENLINEAGE__T"}
    with pytest.raises(
        ConfigError, match=r"t\.ratio: expected a number, got 'x' \(from environment variable OPENLINEAGE__T\)"
    ):
        build(Sample, {"url": "u", "ratio": "x"}, ("t",), origins)


def test_suggest_only_near_misses() -> None:
    assert suggest("timout", ["timeout", "url"]) == "timeout"
    assert suggest("API_KEY", ["apiKey"]) == "apiKey"
    assert suggest("zzz", ["timeout", "url"]) is None
