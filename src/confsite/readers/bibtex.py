"""BibTeX files (parsed by bibtexparser): one record per entry, TeX accents and escapes made
Unicode, math and other commands kept as written; @string, @preamble, @comment and
@proceedings are no papers. An entry that cannot be parsed is skipped with a warning."""

from __future__ import annotations

import logging
import re
import warnings
from functools import lru_cache
from pathlib import PurePath

import bibtexparser
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock
from pylatexenc.latex2text import LatexNodes2Text

from ..diagnostics import ConfsiteError
from .base import NO_OPTIONS, RawRecord, ReaderWarning, ReadOptions, SourceText
from .values import KEYWORD_SEPARATORS, http_links, labels, paragraphs

name = "bibtex"
description = "BibTeX: @inproceedings{...} entries (a reference manager's or a proceedings' .bib)"
carries = ("title", "authors", "abstract")
# A list of titles alone is a real program: only the title is stated by every dump.
always_states = ("title",)

ENTRY_START = re.compile(r"^\s*@\s*([A-Za-z]+)\s*[{(]", re.MULTILINE)
NOT_PAPERS = frozenset(("proceedings", "mvproceedings", "string", "preamble", "comment"))
# Record field -> the BibTeX field holding it, unless the source's `fields` says otherwise.
BIBTEX_FIELDS = {
    "title": "title",
    "authors": "author",
    "abstract": "abstract",
    "keywords": "keywords",
}
LINK_FIELDS = ("url", "pdf")
DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
# The TeX in BibTeX values that decode_latex looks at; the text between is plain.
TEX_TOKEN = re.compile(
    r"(?P<math>(?<!\\)\$\$.+?(?<!\\)\$\$|(?<!\\)\$[^$]+?(?<!\\)\$)"
    r"|(?P<accent>\\[\"'`^~=.]\s*(?:\{\s*\\?[A-Za-z]\s*\}|\\?[A-Za-z])"
    r"|\\[Hcvudbrkt](?:\s*\{\s*\\?[A-Za-z]\s*\}|\s+[A-Za-z]))"
    r"|(?P<letter>\\(?:ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\s*\{\}|\s)?)"
    r"|(?P<command>\\\\?[A-Za-z]+\*?)"
    r"|(?P<escape>\\[&%$_#{}])"
    r"|(?P<linebreak>\\\\)"
    r"|(?P<space>\\[\s,;:!>]|~)"
    r"|(?P<hyphen>\\[-/])"
    r"|(?P<open>\{)|(?P<close>\})",
    re.DOTALL,
)
TOKEN_TEXT = {"linebreak": " ", "space": " ", "hyphen": ""}
# A group opening with a command ({\it x}) is kept whole; one opening with a letter ({\ss}) not.
COMMAND_AHEAD = re.compile(r"\s*\\\\?(?!(?:ss|ae|AE|oe|OE|aa|AA)(?![A-Za-z]))[A-Za-z]{2,}")
TEX_LIGATURES = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"))
URL_ESCAPE = re.compile(r"\\([_%&#~])")

# The parser logs each broken entry; the reader reports it with its line instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
_latex = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=False)


def sniff(source: SourceText) -> float:
    by_extension = PurePath(source.path).suffix.lower() == ".bib"
    entries = [match[1].lower() for match in ENTRY_START.finditer(source.text[: 64 * 1024])]
    first = next((text for line in source.lines[:200] if (text := _significant(line))), "")
    if not any(entry not in NOT_PAPERS for entry in entries):
        return 0.6 if by_extension else 0.0
    # Content alone must open with an entry (after % comments), as no scraped page does.
    return 0.95 if by_extension else (0.85 if first.startswith("@") else 0.0)


def _significant(line: str) -> str:
    text = line.strip()
    return "" if text.startswith("%") else text


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    library = bibtexparser.parse_string(source.text)
    entries, failures = [], []
    for block in library.blocks:
        if isinstance(block, DuplicateBlockKeyBlock):  # a paper listed twice is merged later
            block = block.ignore_error_block
        elif isinstance(block, ParsingFailedBlock):
            failures.append(ConfsiteError(source.loc(block.start_line + 1), _failure(block)))
        if isinstance(block, Entry) and block.entry_type.lower() not in NOT_PAPERS:
            entries.append(block)
    author_field = (options.field_name("authors") or BIBTEX_FIELDS["authors"]).lower()
    comma_lists = writes_comma_lists([_fields(entry).get(author_field, "") for entry in entries])
    records = [_record(source, entry, options, comma_lists) for entry in entries]
    if failures and not records:
        raise failures[0]
    for failure in failures:
        skipped = ReaderWarning(failure.loc, f"{failure.message} (entry skipped)")
        warnings.warn(skipped, stacklevel=2)
    return records


def _record(source: SourceText, entry: Entry, options: ReadOptions, comma_lists: bool) -> RawRecord:
    fields = _fields(entry)

    def value(record_field: str) -> str:
        field_name = options.field_name(record_field) or BIBTEX_FIELDS.get(record_field, "")
        return fields.get(field_name.lower(), "")

    first_line = entry.start_line + 1
    title = decode_latex(value("title"))
    # An author field holding the entry's title (pasted in the wrong field) names nobody.
    pasted_title = bool(title) and decode_latex(value("authors")) == title
    authors = () if pasted_title else bibtex_names(value("authors"), comma_lists)
    return RawRecord(
        loc=source.loc(first_line, first_line + entry.raw.count("\n")),
        title=title or None,
        authors=authors,
        abstract=tuple(decode_latex(part) for part in paragraphs(value("abstract"))),
        links=_links(fields, options),
        keywords=tuple(map(decode_latex, labels(value("keywords"), KEYWORD_SEPARATORS))),
        session=decode_latex(value("session")) or None,
        presentation=decode_latex(value("presentation")) or None,
        decision=decode_latex(value("decision")) or None,
        room=decode_latex(value("room")) or None,
        awards=tuple(map(decode_latex, labels(value("awards")))),
    )


def bibtex_names(text: str, comma_lists: bool = False) -> tuple[str, ...]:
    """ "Last, First and First Last and others" as ("First Last", "First Last"). Some
    generated files write "First Last, First Last" instead: a part of that form is split at
    its commas when it can be no single name (see `_comma_list`), or when `comma_lists` says
    the file writes its names so and every piece is a whole name."""
    names = []
    for person in split_multiple_persons_names(text):
        if person.strip().lower() == "others":  # BibTeX's "et al."
            continue
        pieces = _comma_list(person, comma_lists)
        if pieces:
            names.extend(pieces)
            continue
        parts = parse_single_name_into_parts(person, strict=False)
        words = [*parts.first, *parts.von, *parts.last]
        name = decode_latex(" ".join(words))
        if parts.jr:
            name = f"{name}, {decode_latex(' '.join(parts.jr))}"
        if name:
            names.append(name)
    return tuple(names)


def writes_comma_lists(author_fields: list[str]) -> bool:
    """Whether a file writes its author fields as "First Last, First Last" lists: one of them
    at least can be read no other way."""
    return any(_comma_list(person, False) for text in author_fields for person in _persons(text))


def _persons(text: str) -> list[str]:
    return split_multiple_persons_names(text) if text.strip() else []


def _comma_list(person: str, comma_lists: bool) -> tuple[str, ...]:
    """The names of a "First Last, First Last, ..." part, () for a BibTeX name. Surely a
    list: three or more whole names ("Last, Jr, First" has a one-word piece), or a part
    ending in the comma of "A, B, and C"."""
    pieces = [piece.strip() for piece in person.split(",")]
    if pieces[-1] == "" and len(pieces) > 2:
        oxford, pieces = True, pieces[:-1]
    else:
        oxford = False
    names = tuple(decode_latex(piece) for piece in pieces)
    if len(names) < 2 or not all(map(_is_whole_name, names)):
        return ()
    return names if comma_lists or oxford or len(names) > 2 else ()


def _is_whole_name(text: str) -> bool:
    """Given name and surname, not a surname alone or a particle-led one ("van der Berg")."""
    words = text.split()
    return len(words) > 1 and words[0][:1].isupper()


@lru_cache(maxsize=10_000)  # author names repeat across entries
def decode_latex(text: str) -> str:
    """BibTeX's TeX made plain text where it only spells characters: accents and special
    letters to Unicode, escapes to their characters, case-protecting braces dropped, ties and
    dashes and quotes typeset. Math and every other command (\\emph{..}, a paper's own
    \\method) are kept as written, for the later stages that render them."""
    if not text:
        return ""
    out: list[str] = []
    kept_groups: list[bool] = []  # for each open brace: whether it is written out
    argument_next = False  # a brace right after a command (or its argument) is an argument
    position = 0
    for match in TEX_TOKEN.finditer(text):
        between = text[position : match.start()]
        out.append(_typeset(between))
        argument_next &= not between
        position = match.end()
        kind, token = match.lastgroup, match.group()
        if kind == "open":
            kept_groups.append(argument_next or bool(COMMAND_AHEAD.match(text, position)))
            out.append("{" if kept_groups[-1] else "")
            argument_next = False
        elif kind == "close":
            argument_next = kept_groups.pop() if kept_groups else False
            out.append("}" if argument_next else "")
        else:
            out.append(_token_text(kind, token))
            argument_next = kind == "command"
    out.append(_typeset(text[position:]))
    return " ".join("".join(out).split())


def _token_text(kind: str | None, token: str) -> str:
    if kind == "command":  # "\\\\textit" in a file escaped once too often: "\\textit"
        return "\\" + token.lstrip("\\")
    if kind in ("accent", "letter"):
        return _tex_character(token.strip())
    if kind == "escape":
        return token[1]
    return TOKEN_TEXT.get(kind or "", token)  # math as written


def _typeset(text: str) -> str:
    for ligature, character in TEX_LIGATURES:
        text = text.replace(ligature, character)
    return text


@lru_cache(maxsize=1_000)
def _tex_character(tex: str) -> str:
    try:
        return _latex.latex_to_text(tex)
    except Exception:  # pylatexenc is tolerant; keep the raw text if it is not
        return tex


def _fields(entry: Entry) -> dict[str, str]:
    """The entry's fields by lower-case name: BibTeX field names ignore case."""
    return {field.key.lower(): str(field.value) for field in entry.fields}


def _links(fields: dict[str, str], options: ReadOptions) -> tuple[str, ...]:
    named = options.field_name("links")
    found = [
        URL_ESCAPE.sub(r"\1", fields[key])
        for key in ((named.lower(),) if named else LINK_FIELDS)
        if key in fields
    ]
    doi = fields.get("doi", "").strip() if not named else ""
    if doi:
        found.append("https://doi.org/" + URL_ESCAPE.sub(r"\1", DOI_PREFIX.sub("", doi)))
    return tuple(dict.fromkeys(http_links(found)))


def _failure(block: ParsingFailedBlock) -> str:
    reason = getattr(block.error, "abort_reason", None) or str(block.error)
    return f"invalid BibTeX entry: {reason.strip() or 'cannot parse it'}"
