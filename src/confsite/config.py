"""The site configuration (`site.yaml`), validated into frozen settings with located messages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostics
from .readers.base import MAPPABLE_FIELDS, ReadOptions
from .readers.plugins import site_registry
from .readers.registry import Registry
from .yamlfile import KeyPath, YamlDocument, format_key_path, load_yaml

ATTENDANCE_VALUES = ("in person", "virtual")


@dataclass(frozen=True)
class SourceDefaults:
    """Facts applied to every record of a source whose dump does not state them."""

    presentation: str | None = None
    decision: str | None = None
    attendance: str | None = None


@dataclass(frozen=True)
class SourceConfig:
    path: str
    format: str | None = None
    conference: str | None = None
    year: int | None = None
    session: str | None = None
    room: str | None = None
    defaults: SourceDefaults = SourceDefaults()
    # record field -> the export's own column or key name, for names that cannot be guessed
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def read_options(self) -> ReadOptions:
        return ReadOptions(fields=self.fields)


@dataclass(frozen=True)
class SiteConfig:
    config_path: str
    root: Path
    title: str
    sources: tuple[SourceConfig, ...]
    base_url: str | None = None
    output: str = "_site"
    overrides: str | None = None
    content: str = "content"
    theme_dir: str | None = None
    # conference (as sources name it) -> the full name of its proceedings, for citations
    proceedings: tuple[tuple[str, str], ...] = ()

    def resolve(self, relative: str) -> Path:
        return self.root / relative


# --- value checkers: each returns the clean value or raises ValueError with "expected ..." ---


def _text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("expected text")
    text = str(value).strip()
    if not text:
        raise ValueError("expected non-empty text")
    return text


def _optional(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else check(value)


def _year(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1900 <= value <= 2999:
        raise ValueError("expected a year such as 2024")
    return value


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return value

    return check


def parse_base_url(value: Any) -> str:
    """An absolute http(s) URL ending in "/"; ValueError says what was expected."""
    text = _text(value)
    if not text.startswith(("http://", "https://")):
        raise ValueError(
            "expected an absolute http(s) URL such as https://example.org/proceedings/"
        )
    return text if text.endswith("/") else text + "/"


def _field_names(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError(
            "expected a mapping of record fields to column or key names, e.g. {title: Paper}"
        )
    for field_name in value:
        if field_name not in MAPPABLE_FIELDS:
            raise ValueError(
                f"{field_name!r} is not a record field (one of {', '.join(MAPPABLE_FIELDS)})"
            )
    return tuple(sorted((str(k), _text(v)) for k, v in value.items()))


def _proceedings_names(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError(
            "expected a mapping of conferences to full names, e.g. "
            "{ICLR: International Conference on Learning Representations}"
        )
    return tuple(sorted((_text(k), _text(v)) for k, v in value.items()))


def _relative_path(value: Any) -> str:
    text = _text(value)
    if "\0" in text:
        raise ValueError("expected a file path")
    return text


SITE_FIELDS: dict[str, Callable[[Any], Any]] = {
    "title": _text,
    "base_url": _optional(parse_base_url),
    "output": _relative_path,
    "overrides": _optional(_relative_path),
    "content": _relative_path,
    "theme_dir": _optional(_relative_path),
    "proceedings": _optional(_proceedings_names),
}
SOURCE_FIELDS: dict[str, Callable[[Any], Any]] = {
    "path": _relative_path,
    "format": _optional(_text),  # checked against the build's readers (see `source_fields`)
    "conference": _optional(_text),
    "year": _optional(_year),
    "session": _optional(_text),
    "room": _optional(_text),
    "fields": _optional(_field_names),
}
DEFAULT_FIELDS: dict[str, Callable[[Any], Any]] = {
    "presentation": _optional(_text),
    "decision": _optional(_text),
    "attendance": _optional(_choice(ATTENDANCE_VALUES)),
}


def source_fields(format_names: tuple[str, ...]) -> dict[str, Callable[[Any], Any]]:
    """The schema of a source, whose `format` names one of the build's readers: the built-in
    ones and the site's own (see readers/plugins.py)."""
    return {**SOURCE_FIELDS, "format": _optional(_choice(format_names))}


def _mapping(doc: YamlDocument, value: Any, key_path: KeyPath) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise doc.error(key_path, "expected a mapping of keys to values")
    return value


def _fields(
    doc: YamlDocument,
    mapping: dict[str, Any],
    key_path: KeyPath,
    schema: dict[str, Callable[[Any], Any]],
    diagnostics: Diagnostics,
    skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for key, value in mapping.items():
        if key in skip:
            continue
        if key not in schema:
            where = format_key_path((*key_path, key))
            diagnostics.warn(
                "config",
                doc.loc((*key_path, key)),
                f"{where}: unknown key (known: {', '.join([*schema, *skip])})",
            )
            continue
        try:
            clean[key] = schema[key](value)
        except ValueError as err:
            raise doc.error((*key_path, key), f"{err}; got {value!r}") from None
    return clean


def _source(
    doc: YamlDocument,
    value: Any,
    index: int,
    schema: dict[str, Callable[[Any], Any]],
    diagnostics: Diagnostics,
) -> SourceConfig:
    key_path: KeyPath = ("sources", index)
    mapping = _mapping(doc, value, key_path)
    if "path" not in mapping:
        raise doc.error(key_path, "missing required key 'path'")
    clean = _fields(doc, mapping, key_path, schema, diagnostics, skip=("defaults",))
    defaults = SourceDefaults()
    if mapping.get("defaults") is not None:
        defaults_path = (*key_path, "defaults")
        raw_defaults = _mapping(doc, mapping["defaults"], defaults_path)
        defaults = SourceDefaults(
            **_fields(doc, raw_defaults, defaults_path, DEFAULT_FIELDS, diagnostics)
        )
    return SourceConfig(defaults=defaults, **{k: v for k, v in clean.items() if v is not None})


def parse_config(
    doc: YamlDocument, root: Path, diagnostics: Diagnostics, readers: Registry | None = None
) -> SiteConfig:
    mapping = _mapping(doc, doc.data, ())
    for required in ("title", "sources"):
        if required not in mapping:
            raise doc.error((), f"missing required key '{required}'")
    clean = _fields(doc, mapping, (), SITE_FIELDS, diagnostics, skip=("sources",))
    raw_sources = mapping["sources"]
    if not isinstance(raw_sources, list) or not raw_sources:
        raise doc.error(("sources",), "expected a non-empty list of sources")
    schema = source_fields((readers or Registry()).names())
    sources = tuple(
        _source(doc, value, index, schema, diagnostics) for index, value in enumerate(raw_sources)
    )
    seen: dict[str, int] = {}
    for index, source in enumerate(sources):
        if source.path in seen:
            raise doc.error(
                ("sources", index, "path"), f"same file as sources[{seen[source.path]}]"
            )
        seen[source.path] = index
    return SiteConfig(config_path=doc.path, root=root, sources=sources, **clean)


def load_config(
    path: Path, diagnostics: Diagnostics, readers: Registry | None = None
) -> SiteConfig:
    """The validated config; `format:` may name any of `readers` (by default the built-in
    readers and the site's own, found beside the config)."""
    doc = load_yaml(path, str(path))
    root = path.resolve().parent
    return parse_config(doc, root, diagnostics, readers or site_registry(root))
