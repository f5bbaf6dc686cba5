"""The custom facet naming convention, as pure functions.

The spec (OpenLineage.md, "Custom Facet Naming"): a facet class reads
`<Prefix><Name><Entity>Facet` in PascalCase and its key is `<prefix>_<name>`, both parts
in camelCase: `BigQueryStatisticsJobFacet` -> `bigQuery_statistics`.

Rules as implemented here:

- A prefix is camelCase: a lower-case letter, then letters and digits
  (`myCompany`, `bigQuery`, `awsGlue`, `s3`). No `_` (it separates prefix and name in
  the key).
- The class name starts with the prefix, compared word by word without regard to case,
  so acronyms may be spelled in capitals: prefix `awsGlue` matches `AWSGlue...` and
  `AwsGlue...`; prefix `bigQuery` matches `BigQuery...` but not `Bigquery...`
  (`bigQuery` has two words, `Bigquery` one).
- The name part follows the prefix, starts with an upper-case letter (a digit right
  after the prefix would read as part of it) and holds only letters and digits.
- The entity suffix is the one of the base class: `RunFacet`, `JobFacet`,
  `DatasetFacet`, `InputDatasetFacet`, `OutputDatasetFacet`. A dataset facet whose name
  ends in `InputDatasetFacet` or `OutputDatasetFacet` is refused: it reads as the other
  kind.
- The key's name part is the name with its first word lower-cased, where a word is a
  run of capitals (an acronym), a capitalised word or a run of digits: `Statistics` ->
  `statistics`, `SQLStats` -> `sqlStats`, `S3Location` -> `s3Location`, `X` -> `x`,
  `StatisticsV2` -> `statisticsV2`, `HTTPAPI` -> `httpapi` (one acronym word).
"""

from __future__ import annotations

import re
from typing import Final

from olsdk._foundation import _registry
from olsdk._models._spec import ENTITIES

# Entity -> how its facet class names end (`inputDataset` -> `InputDatasetFacet`): the
# name of the spec's base facet of that entity, from the generated entity table.
ENTITY_SUFFIXES: Final = {e.name: e.suffix for e in ENTITIES}
# Entity -> the custom facet base users subclass (`olsdk.facets.CustomRunFacet`, ...).
ENTITY_BASE_CLASS: Final = {e.name: f"Custom{e.suffix}" for e in ENTITIES}

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PREFIX = re.compile(r"[a-z][A-Za-z0-9]*")
_NAME = re.compile(r"[A-Z][A-Za-z0-9]*")
_VERSION = re.compile(r"(0|[1-9][0-9]*)-(0|[1-9][0-9]*)-(0|[1-9][0-9]*)")
_BASE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s#?]+")


def words(text: str) -> list[str]:
    """Split a camelCase or PascalCase identifier into words; acronyms stay whole.

    `AWSGlue` -> `AWS`, `Glue`; `bigQuery` -> `big`, `Query`; `S3Location` -> `S`, `3`,
    `Location`. Characters other than ASCII letters and digits separate words.
    """
    return _WORD.findall(text)


def camel(text: str) -> str:
    """camelCase of an identifier or phrase: its first word lower-cased, the others capitalised
    where they start lower-case (`my_company` -> `myCompany`, `AWSGlue` -> `awsGlue`)."""
    parts = words(text)
    if not parts:
        return ""
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def pascal(text: str) -> str:
    """PascalCase of a camelCase identifier: only the first letter changes."""
    return text[:1].upper() + text[1:]


def name_key(name: str) -> str:
    """The key's name part for the class name's name part (`SQLStats` -> `sqlStats`)."""
    parts = words(name)
    return parts[0].lower() + "".join(parts[1:])


def check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
        hint = camel(prefix) if isinstance(prefix, str) else ""
        suggestion = f" (did you mean prefix={hint!r}?)" if hint and _PREFIX.fullmatch(hint) else ""
        raise TypeError(
            f"prefix={prefix!r}: a custom facet prefix is camelCase, a lower-case letter then "
            f"letters and digits, e.g. 'myCompany' or 'bigQuery'{suggestion}"
        )
    return prefix


def check_version(version: object) -> str:
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        hint = version.replace(".", "-") if isinstance(version, str) else ""
        suggestion = f" (did you mean {hint!r}?)" if _VERSION.fullmatch(hint) else ""
        raise TypeError(
            f"version={version!r}: a facet schema version reads MAJOR-MINOR-PATCH with dashes, "
            f"as in the spec's own URLs, e.g. '1-0-0'{suggestion}"
        )
    return version


def check_base_url(url: object) -> str:
    if not isinstance(url, str) or not _BASE_URL.fullmatch(url.rstrip("/")):
        raise TypeError(
            f"schema_base_url={url!r}: must be an absolute URL without query or fragment, "
            "e.g. 'https://schemas.example.com/olfacets'"
        )
    return url.rstrip("/")


check_key = _registry.check_key


def schema_url(base_url: str, version: str, class_name: str) -> str:
    """`<base>/<version>/<ClassName>.json#/$defs/<ClassName>`."""
    return f"{base_url}/{version}/{class_name}.json#/$defs/{class_name}"


def check_schema_url(url: object, class_name: str) -> str:
    fragment = f"#/$defs/{class_name}"
    if not isinstance(url, str) or not url.endswith(fragment) or not _BASE_URL.fullmatch(url[: -len(fragment)]):
        raise TypeError(
            f"schema_url={url!r}: must be an absolute URL of a schema file followed by "
            f"{fragment!r}, e.g. 'https://schemas.example.com/1-0-0/{class_name}.json{fragment}'"
        )
    return url


def _suggest(class_name: str, prefix: str, entity: str) -> str:
    """The name a class should have had, keeping the part that looks like its name."""
    stem = class_name.removesuffix("Facet")
    for suffix in sorted(ENTITY_SUFFIXES.values(), key=len, reverse=True):
        word = suffix.removesuffix("Facet")
        if stem.endswith(word) and stem != word:
            stem = stem.removesuffix(word)
            break
    if stem[: len(prefix)].lower() == prefix.lower():
        stem = stem[len(prefix) :]
    name = "".join(pascal(w) for w in words(stem)) or "<Name>"
    return f"{pascal(prefix)}{name}{ENTITY_SUFFIXES[entity]}"


def split_class_name(class_name: str, prefix: str, entity: str) -> str:
    """Check `class_name` against `<Prefix><Name><Entity>Facet`; return `<Name>`.

    Raises `TypeError` saying what the name should be.
    """
    suffix = ENTITY_SUFFIXES[entity]
    should = _suggest(class_name, prefix, entity)
    base = ENTITY_BASE_CLASS[entity]
    if not class_name.endswith(suffix):
        other = [e for e, s in ENTITY_SUFFIXES.items() if class_name.endswith(s)]
        why = (
            f"it reads as a {max(other, key=lambda e: len(ENTITY_SUFFIXES[e]))} facet "
            "(subclass the matching Custom...Facet base instead, or rename it)"
            if other
            else f"a {base} subclass's name must end with {suffix!r}"
        )
        raise TypeError(f"custom facet class {class_name!r}: {why}; it should be named {should!r}")
    # A longer suffix ending in this one (`InputDatasetFacet` for `DatasetFacet`) is another entity.
    for other_entity, other_suffix in ENTITY_SUFFIXES.items():
        if other_suffix != suffix and other_suffix.endswith(suffix) and class_name.endswith(other_suffix):
            raise TypeError(
                f"custom facet class {class_name!r} reads as an {other_entity} facet: "
                f"subclass {ENTITY_BASE_CLASS[other_entity]}, or rename it to {should!r}"
            )
    stem = class_name[: -len(suffix)]
    head = stem[: len(prefix)]
    if [w.lower() for w in words(head)] != [w.lower() for w in words(prefix)]:
        if head.lower() == prefix.lower():
            raise TypeError(
                f"custom facet class {class_name!r}: its prefix {head!r} and prefix={prefix!r} "
                f"split into different words ({'/'.join(words(head))} vs "
                f"{'/'.join(words(prefix))}); use prefix={camel(head)!r} or name the class "
                f"{should!r}"
            )
        raise TypeError(
            f"custom facet class {class_name!r} does not start with its prefix "
            f"{pascal(prefix)!r} (prefix={prefix!r}); it should be named {should!r}"
        )
    name = stem[len(prefix) :]
    if not name:
        raise TypeError(
            f"custom facet class {class_name!r} has no name between its prefix and "
            f"{suffix!r}; it should read {pascal(prefix)}<Name>{suffix}, e.g. "
            f"{pascal(prefix)}Statistics{suffix}"
        )
    if not _NAME.fullmatch(name):
        hint = f"; it should be named {should!r}" if should != class_name else ""
        raise TypeError(
            f"custom facet class {class_name!r}: its name part {name!r} must start with an "
            "upper-case letter right after the prefix (a digit there reads as part of the "
            f"prefix) and hold only letters and digits{hint}"
        )
    return name


def facet_key(prefix: str, name: str) -> str:
    """`<prefix>_<name>` in camelCase parts."""
    return f"{prefix}_{name_key(name)}"
