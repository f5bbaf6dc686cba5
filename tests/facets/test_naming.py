"""The naming convention: class names, keys, prefixes, versions (pure functions)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olsdk._builders.facets import _naming

# class name, prefix, entity -> key
VALID = [
    ("BigQueryStatisticsJobFacet", "bigQuery", "job", "bigQuery_statistics"),
    ("MyCompanyStatisticsRunFacet", "myCompany", "run", "myCompany_statistics"),
    # acronyms: spelled in capitals in the class name, lower-cased as the key's first word
    ("AWSGlueJobRunFacet", "awsGlue", "run", "awsGlue_job"),
    ("AwsGlueJobRunFacet", "awsGlue", "run", "awsGlue_job"),
    ("AWSS3CopyRunFacet", "aws", "run", "aws_s3Copy"),
    ("MyCompanySQLStatsJobFacet", "myCompany", "job", "myCompany_sqlStats"),
    ("MyCompanySQLJobFacet", "myCompany", "job", "myCompany_sql"),
    ("DbtHTTPAPIRunFacet", "dbt", "run", "dbt_httpapi"),
    # digits
    ("MyCompanyStatisticsV2RunFacet", "myCompany", "run", "myCompany_statisticsV2"),
    ("MyCompanyS3LocationDatasetFacet", "myCompany", "dataset", "myCompany_s3Location"),
    ("S3ScanInputDatasetFacet", "s3", "inputDataset", "s3_scan"),
    ("Gcp2DataprocRunFacet", "gcp2", "run", "gcp2_dataproc"),
    # one-letter names and prefixes
    ("MyCompanyXRunFacet", "myCompany", "run", "myCompany_x"),
    ("XYJobFacet", "x", "job", "x_y"),
    ("AStatsOutputDatasetFacet", "a", "outputDataset", "a_stats"),
    # a name that contains an entity word is fine as long as the suffix is right
    ("MyCompanyJobRunRunFacet", "myCompany", "run", "myCompany_jobRun"),
]


@pytest.mark.parametrize(("class_name", "prefix", "entity", "key"), VALID)
def test_valid_names_give_their_key(class_name: str, prefix: str, entity: str, key: str) -> None:
    name = _naming.split_class_name(class_name, prefix, entity)
    assert _naming.facet_key(prefix, name) == key


# class name, prefix, entity -> a part of the message (which names the right name)
INVALID = [
    ("StatisticsRunFacet", "myCompany", "run", "should be named 'MyCompanyStatisticsRunFacet'"),
    ("MyCompanyStatisticsJobFacet", "myCompany", "run", "reads as a job facet"),
    ("MyCompanyStatisticsJobFacet", "myCompany", "run", "'MyCompanyStatisticsRunFacet'"),
    ("MyCompanyStatistics", "myCompany", "run", "should be named 'MyCompanyStatisticsRunFacet'"),
    ("MyCompanyStatsRunFacet2", "myCompany", "run", "must end with 'RunFacet'"),
    ("MyCompanyRunFacet", "myCompany", "run", "no name between its prefix"),
    ("MyCompany2FARunFacet", "myCompany", "run", "must start with an upper-case letter"),
    ("MyCompany_StatsRunFacet", "myCompany", "run", "'MyCompanyStatsRunFacet'"),
    # prefix case: words must agree (bigQuery is two words, Bigquery one)
    ("BigqueryStatsJobFacet", "bigQuery", "job", "use prefix='bigquery'"),
    ("AWSGlueJobRunFacet", "awsglue", "run", "use prefix='awsGlue'"),
    # dataset facets that read as input/output dataset facets
    ("MyCompanyScanInputDatasetFacet", "myCompany", "dataset", "subclass CustomInputDatasetFacet"),
    ("MyCompanyWriteOutputDatasetFacet", "myCompany", "dataset", "CustomOutputDatasetFacet"),
    ("MyCompanyScanDatasetFacet", "myCompany", "inputDataset", "'MyCompanyScanInputDatasetFacet'"),
]


@pytest.mark.parametrize(("class_name", "prefix", "entity", "message"), INVALID)
def test_invalid_names_say_what_the_name_should_be(class_name: str, prefix: str, entity: str, message: str) -> None:
    with pytest.raises(TypeError, match="custom facet class") as info:
        _naming.split_class_name(class_name, prefix, entity)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("prefix", "hint"),
    [
        ("MyCompany", "myCompany"),
        ("my_company", "myCompany"),
        ("AWS", "aws"),
        ("", None),
        ("1abc", None),
        ("my-company", "myCompany"),
    ],
)
def test_prefix_must_be_camel_case(prefix: str, hint: str | None) -> None:
    with pytest.raises(TypeError, match="camelCase") as info:
        _naming.check_prefix(prefix)
    if hint is not None:
        assert f"did you mean prefix={hint!r}" in str(info.value)


@pytest.mark.parametrize("version", ["1-0-0", "0-1-12", "10-20-30"])
def test_versions(version: str) -> None:
    assert _naming.check_version(version) == version


@pytest.mark.parametrize("version", ["1.0.0", "1-0", "v1-0-0", "01-0-0", "", "1-0-0-rc1"])
def test_bad_versions(version: str) -> None:
    with pytest.raises(TypeError, match="MAJOR-MINOR-PATCH"):
        _naming.check_version(version)


def test_bad_version_suggests_dashes() -> None:
    with pytest.raises(TypeError, match="did you mean '1-2-3'"):
        _naming.check_version("1.2.3")


@pytest.mark.parametrize("url", ["schemas.example.com", "https://x.org/a#frag", "https://x.org/?q=1", ""])
def test_bad_base_urls(url: str) -> None:
    with pytest.raises(TypeError, match="schema_base_url"):
        _naming.check_base_url(url)


def test_schema_url_layout() -> None:
    assert _naming.schema_url(_naming.check_base_url("https://x.org/f/"), "1-0-0", "ACRunFacet") == (
        "https://x.org/f/1-0-0/ACRunFacet.json#/$defs/ACRunFacet"
    )


# Words as the convention composes them: capitalised words, acronyms, digit runs.
_lower_word = st.from_regex(r"[a-z]{1,6}", fullmatch=True)
_cap_word = st.from_regex(r"[A-Z][a-z]{1,6}", fullmatch=True)
_acronym = st.from_regex(r"[A-Z]{2,4}", fullmatch=True)
_digits = st.from_regex(r"[1-9][0-9]{0,2}", fullmatch=True)
_prefixes = st.builds(lambda first, rest: first + "".join(rest), _lower_word, st.lists(_cap_word, max_size=2))


@st.composite
def _names(draw: st.DrawFn) -> str:
    """A PascalCase name part: a capitalised word or acronym, then more words or digits."""
    first = draw(st.one_of(_cap_word, _acronym, st.from_regex(r"[A-Z]", fullmatch=True)))
    parts = [first]
    for _ in range(draw(st.integers(0, 3))):
        last = parts[-1]
        options = [_cap_word]
        if not last.isdigit():
            options.append(_digits)
        parts.append(draw(st.one_of(options)))
    return "".join(parts)


@settings(max_examples=150, deadline=None)
@given(prefix=_prefixes, name=_names(), entity=st.sampled_from(sorted(_naming.ENTITY_SUFFIXES)))
def test_canonical_names_round_trip(prefix: str, name: str, entity: str) -> None:
    class_name = _naming.pascal(prefix) + name + _naming.ENTITY_SUFFIXES[entity]
    if entity == "dataset" and name.endswith(("Input", "Output")):
        return  # reads as an input/output dataset facet: refused, tested above
    assert _naming.split_class_name(class_name, prefix, entity) == name
    key = _naming.facet_key(prefix, name)
    key_prefix, key_name = key.split("_")
    assert key_prefix == prefix
    assert key_name[:1].islower() and key_name.isalnum()
    # The key's name part and the class's name part spell the same words, ignoring case.
    assert [w.lower() for w in _naming.words(key_name)] == [w.lower() for w in _naming.words(name)]


@settings(max_examples=100, deadline=None)
@given(prefix=_prefixes, name=_names())
def test_prefix_in_capitals_still_matches(prefix: str, name: str) -> None:
    # The prefix's first word written as an acronym (awsGlue -> AWSGlue, aws -> AWS) is the
    # same prefix: the prefix is cut from the class name by its length, then compared by words.
    words = _naming.words(prefix)
    shouted = words[0].upper() + "".join(words[1:])
    class_name = shouted + name + "RunFacet"
    assert _naming.split_class_name(class_name, prefix, "run") == name
