"""Which column or key of a structured export holds each record field (by name, with synonyms,
or as a source's `fields` setting says), and rows or objects made into records through it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..diagnostics import ConfsiteError, SourceLoc
from .author_lists import parse_authors
from .base import MAPPABLE_FIELDS, RawRecord, ReadOptions
from .values import (
    KEYWORD_SEPARATORS,
    LABEL_SEPARATORS,
    http_links,
    key_of,
    labels,
    paragraphs,
    scalar_text,
)

# Names each field goes by, as `key_of` spells them, best first: a table with both "title" and
# "name" columns has its titles under "title".
SYNONYMS: dict[str, tuple[str, ...]] = {
    "title": ("title", "papertitle", "name", "paper"),
    "authors": ("authors", "author", "authorslist", "authorlist", "authornames", "creators"),
    "affiliations": ("affiliations", "affiliation", "institutions", "institution"),
    "abstract": ("abstract", "summary", "tldr", "description"),
    "keywords": ("keywords", "keyword", "tags", "topics", "subjectareas"),
    "session": ("session", "sessionname", "track"),
    "presentation": ("presentation", "type", "format"),
    "decision": ("decision", "status"),
    "attendance": ("attendance",),
    "awards": ("awards", "award"),
    "room": ("room", "location"),
}
# Every one of these columns may hold a link; only http(s) values become links.
LINK_KEYS = frozenset(
    (
        "url",
        "urls",
        "link",
        "links",
        "pdf",
        "pdfurl",
        "paperurl",
        "forum",
        "openreview",
        "arxiv",
        "code",
        "site",
        "video",
    )
)
ATTENDANCE = {
    "inperson": "in person",
    "onsite": "in person",
    "virtual": "virtual",
    "online": "virtual",
    "remote": "virtual",
}


@dataclass(frozen=True)
class FieldMap:
    """Record field -> the columns that may hold it, the first non-empty one winning (links
    are taken from all of them)."""

    columns: tuple[tuple[str, tuple[str, ...]], ...]

    def of(self, record_field: str) -> tuple[str, ...]:
        return dict(self.columns).get(record_field, ())


def map_fields(names: Iterable[str], options: ReadOptions, loc: SourceLoc) -> FieldMap:
    """Each field's column: the one `fields` names, else the best synonym not yet taken."""
    names = list(dict.fromkeys(names))
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(key_of(name), name)
    chosen: dict[str, tuple[str, ...]] = {}
    for record_field in MAPPABLE_FIELDS:
        wanted = options.field_name(record_field)
        if wanted is not None:
            column = wanted if wanted in names else by_key.get(key_of(wanted))
            if column is None:
                raise ConfsiteError(
                    loc,
                    f"fields: {record_field}: no column or key named {wanted!r} "
                    f"(found: {_listing(names)})",
                )
            chosen[record_field] = (column,)
    taken = {column for columns in chosen.values() for column in columns}
    for record_field, synonyms in SYNONYMS.items():
        free = [by_key[key] for key in synonyms if key in by_key and by_key[key] not in taken]
        if record_field in chosen or not free:
            continue
        # Rows of JSON Lines may each spell a field differently, so every spelling present is
        # kept, best first; but a title is never taken from a "name" beside a "title".
        chosen[record_field] = tuple(free[:1] if record_field == "title" else free)
        taken.update(chosen[record_field])
    if "links" not in chosen:
        chosen["links"] = tuple(n for n in names if key_of(n) in LINK_KEYS and n not in taken)
    return FieldMap(tuple(chosen.items()))


def require_title(fields: FieldMap, names: Sequence[str], loc: SourceLoc) -> None:
    if not fields.of("title"):
        raise ConfsiteError(
            loc,
            f"no title column found (columns: {_listing(names)}); name the one holding "
            "titles in site.yaml, e.g. `fields: {title: Paper}` under this source",
        )


def record_from_mapping(
    row: Mapping[str, Any], fields: FieldMap, loc: SourceLoc
) -> RawRecord | None:
    """The record a row or object states, or None when it states nothing (a blank row)."""

    def value(record_field: str) -> Any:
        present = (row.get(column) for column in fields.of(record_field))
        return next((item for item in present if item not in (None, "", [])), None)

    authors = parse_authors(value("authors"))
    affiliations = authors.affiliations or _affiliation_column(value("affiliations"), authors.names)
    record = RawRecord(
        loc=loc,
        title=scalar_text(value("title")),
        authors=authors.names,
        affiliations=affiliations,
        abstract=paragraphs(value("abstract")),
        links=tuple(dict.fromkeys(_links(row, fields))),
        keywords=tuple(dict.fromkeys(labels(value("keywords"), KEYWORD_SEPARATORS))),
        presentation=scalar_text(value("presentation")),
        decision=scalar_text(value("decision")),
        attendance=ATTENDANCE.get(key_of(scalar_text(value("attendance")) or "")),
        awards=labels(value("awards"), LABEL_SEPARATORS),
        session=scalar_text(value("session")),
        room=scalar_text(value("room")),
    )
    return None if record == RawRecord(loc) else record


def records_from_mappings(
    rows: Sequence[Any], locs: Sequence[SourceLoc], options: ReadOptions, header: SourceLoc
) -> list[RawRecord]:
    """Records from a list of objects (JSON, JSON Lines, YAML); `header` is where an error
    about the export as a whole (no title key) points."""
    for row, loc in zip(rows, locs, strict=True):
        if not isinstance(row, Mapping):
            raise ConfsiteError(loc, f"expected an object with a paper's fields, got {_kind(row)}")
    if not rows:
        return []
    holder = _fields_holder(rows, options)
    flat = [_paper_fields(row, holder) for row in rows]
    names = list(dict.fromkeys(key for row in flat for key in row))
    fields = map_fields(names, options, header)
    require_title(fields, names, header)
    found = (record_from_mapping(row, fields, loc) for row, loc in zip(flat, locs, strict=True))
    return [record for record in found if record is not None]


def _fields_holder(rows: Sequence[Mapping], options: ReadOptions) -> str | None:
    """The key under which every object keeps its paper's fields one level down, as OpenReview
    exports do ({"id": ..., "content": {"title": ...}}); None when titles sit at the top."""
    title_keys = {*SYNONYMS["title"], key_of(options.field_name("title") or "")}
    if any(key_of(str(key)) in title_keys for row in rows for key in row):
        return None
    holders = Counter(
        str(key)
        for row in rows
        for key, value in row.items()
        if isinstance(value, Mapping) and any(key_of(str(name)) in title_keys for name in value)
    )
    return holders.most_common(1)[0][0] if holders else None


def _paper_fields(row: Mapping, holder: str | None) -> dict[str, Any]:
    """A row's fields by text key, those under `holder` lifted beside the others, and
    OpenReview's {"value": ...} wrapping of each field undone."""
    nested = row.get(holder) if holder is not None else None
    fields = {str(key): value for key, value in row.items() if str(key) != holder}
    if isinstance(nested, Mapping):
        fields.update((str(key), value) for key, value in nested.items())
    return {key: _unwrapped(value) for key, value in fields.items()}


def _unwrapped(value: Any) -> Any:
    if isinstance(value, Mapping) and len(value) == 1 and "value" in value:
        return value["value"]
    return value


def _links(row: Mapping[str, Any], fields: FieldMap) -> Iterable[str]:
    return (url for column in fields.of("links") for url in http_links(row.get(column)))


def _affiliation_column(value: Any, names: tuple[str, ...]) -> tuple[str, ...]:
    """A separate affiliations column, kept only when it gives one per author."""
    found = labels(value, LABEL_SEPARATORS)
    return found if len(found) == len(names) and names else ()


def _listing(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in names) if names else "none"


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    return "null" if value is None else f"the value {value!r}"
