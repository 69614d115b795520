"""Property tests: whatever text a reader is fed, it gives records or confsite's located error."""

from __future__ import annotations

import os
import re
import unicodedata

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from confsite import yamlfile
from confsite.diagnostics import ConfsiteError
from confsite.model.normalize import INVISIBLE, clean_text
from confsite.readers import CLEAR_SNIFF_SCORE, MIN_SNIFF_SCORE, READERS, sniff
from confsite.readers.base import SourceText
from confsite.readers.html_text import html_to_source_text
from confsite.readers.plausibility import non_blank_length
from confsite.readers.sources import decode_source
from confsite.render.citation import SPECIAL, TILDE_CARET, _balanced
from confsite.render.terms import (
    FOLDED_LETTERS,
    JS_ONLY_SPACE,
    SEPARATOR,
    SPLIT_ONLY_SPACES,
    fold,
    tokens,
)
from confsite.text.plain import MATH_OPENERS, UnescapedFinder, math_spans, single_spaced
from confsite.text.rich import INLINE, INLINE_TOKENS, _argument

# CONFSITE_FUZZ_EXAMPLES=5000 pytest tests/test_properties.py runs a longer search locally.
EXAMPLES = int(os.environ.get("CONFSITE_FUZZ_EXAMPLES", "150"))
fuzz = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# Lines shaped like the dumps' own, so the generator reaches deep into every reader.
DUMP_LINES = st.sampled_from([
    "", "", "Poster Session 3", "Halle B", "Chat is not available.",
    "Skip to yearly menu bar Skip to main content", "Spotlight Poster", "Outstanding Paper",
    "Honorable Mention", "[ Virtual ]", "In-Person Poster presentation / top 5% paper",
    "Virtual presentation / poster accept", "A Title About Learning", "Keller Jordan",
    "Ann Author · Bo Author · Cy Author", "## [A Linked Title](#)", "## Plain title \\$x\\$",
    "- Ann Author, Bo Author", "- abstract@[open-review\\(Poster\\)](#): We study things.",
    "- abstract@[open-review\\(Or", "Get trending papers in your email inbox!",
    "SubscribeTitle", "We propose a method. " * 12, "cut-off continuation of a sentence",
    "<script>alert(1)</script>", "$\\mathcal{O}(n)$ \\textbf{bold} 50%", "\u202e\u200b\x00",
])
DUMPS = st.one_of(
    st.lists(st.one_of(DUMP_LINES, st.text(max_size=80)), max_size=60).map("\n".join),
    st.text(max_size=400),
)


def check_records(source: SourceText) -> None:
    for reader in READERS:
        try:
            records = reader.read(source)
        except ConfsiteError as err:
            assert err.loc.path == source.path and err.loc.line is not None
            continue
        for record in records:
            assert record.loc.path == source.path
            assert 1 <= record.loc.line <= (record.loc.end_line or record.loc.line)
            assert record.title or record.authors or record.abstract


@fuzz
@given(DUMPS)
def test_every_reader_gives_records_or_a_located_error(text: str) -> None:
    check_records(SourceText("fuzz.txt", text.replace("\r\n", "\n").replace("\r", "\n")))


@fuzz
@given(DUMPS)
@example("Poster Session 3\nAnn Author · Bo Author · Cy Author\nOutstanding Paper")  # cut off
def test_sniffing_picks_a_reader_or_says_why(text: str) -> None:
    source = SourceText("fuzz.txt", text)
    try:
        result = sniff(source)
    except ConfsiteError as err:
        if "formats tried" in err.message:
            assert err.loc.line == 1
        else:  # a file clearly of one format but broken: that format's own located error
            best = max(READERS, key=lambda reader: reader.sniff(source))
            assert best.sniff(source) >= CLEAR_SNIFF_SCORE
            with pytest.raises(ConfsiteError) as raised:
                best.read(source)
            assert str(raised.value) == str(err)
    else:  # any reader that fits may win: the registry compares what they read
        fitting = [name for name, score in result.scores if score >= MIN_SNIFF_SCORE]
        assert result.reader.name in fitting


@fuzz
@given(st.binary(max_size=300))
def test_any_bytes_decode_or_fail_with_a_line(data: bytes) -> None:
    try:
        text = decode_source("fuzz.txt", data)
    except ConfsiteError as err:
        assert err.loc.line is not None and err.loc.line >= 1
    else:
        assert "\r" not in text


@fuzz
@given(st.lists(st.one_of(DUMP_LINES, st.text(max_size=40)), max_size=30))
def test_html_pages_of_any_text_read_safely(lines: list[str]) -> None:
    from html import escape

    page = "<!DOCTYPE html><html><body>" + "".join(f"<p>{escape(x)}</p>" for x in lines)
    check_records(html_to_source_text("page.html", page + "</body></html>"))


@pytest.mark.parametrize("junk", ["<<<>>>", "<p><p><div></span>", "<!-- unclosed", "&bogus;"])
def test_broken_html_still_reads(junk: str) -> None:
    check_records(html_to_source_text("page.html", f"<html><body>{junk}</body></html>"))


# The delimiters as TeX-in-prose scanning first found them, by lookbehind patterns: the
# reference `math_spans`'s quicker search must agree with.
REFERENCE_OPENER = re.compile(r"(?<!\\)(?:\$\$?|\\\(|\\\[)")
REFERENCE_DOLLAR = re.compile(r"(?<!\\)\$")


class ReferenceFinder:
    """UnescapedFinder as the lookbehind patterns find: the reference it must agree with."""

    def __init__(self, text: str, delimiters: tuple[str, ...]) -> None:
        self.text = text
        self.pattern = REFERENCE_OPENER if len(delimiters) > 1 else REFERENCE_DOLLAR

    def find(self, position: int) -> int:
        found = self.pattern.search(self.text, position)
        return found.start() if found else -1


MATH_TEXT = st.text(alphabet="$\\()[]ax {}", max_size=40)


@fuzz
@given(MATH_TEXT, st.lists(st.integers(0, 40), max_size=30))
@example("\\$$x$", [])
@example("\\\\(x\\)", [])
@example("$\\$", [])
def test_delimiters_are_found_as_the_lookbehind_patterns_find_them(
    text: str, jumps: list[int]
) -> None:
    """Every position forward and back, then positions in any order: kept places included."""
    every = range(len(text) + 1)
    positions = [*every, *reversed(every), *(jump % (len(text) + 1) for jump in jumps)]
    for delimiters in (MATH_OPENERS, ("$",)):
        ours, reference = UnescapedFinder(text, delimiters), ReferenceFinder(text, delimiters)
        assert [ours.find(p) for p in positions] == [reference.find(p) for p in positions]


@fuzz
@given(
    st.one_of(
        MATH_TEXT, st.lists(st.sampled_from(["$x$", "\\$", "\\(", "a b c", " "])).map("".join)
    )
)
@example("x \\$ " * 50 + "\\(y\\)")
def test_formulas_are_found_as_with_the_lookbehind_patterns(text: str) -> None:
    ours = math_spans(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("confsite.text.plain.UnescapedFinder", ReferenceFinder)
        assert ours == math_spans(text)


def reference_fold(text: str) -> str:
    """Folding as first written: the whole text normalized, its marks deleted, then cased."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    marks = "".join(char for char in decomposed if unicodedata.category(char) == "Mn")
    plain = unicodedata.normalize("NFC", decomposed.translate(dict.fromkeys(map(ord, marks))))
    return plain.lower().translate(FOLDED_LETTERS)


@fuzz
@given(st.text(alphabet=st.one_of(st.sampled_from("aZs -Σ\u00a0"), st.characters()), max_size=12))
@example("a\U0001d6ba b")  # a mathematical capital sigma: final after a letter
@example("\U0001d6ba")
@example("e\u0301\u0327 K\u212a Stra\u00dfe \u1e9e")
@example("\u00d6\u0301" * 20 + " " + "\u03a3\u0391" * 20)  # runs longer than those kept
def test_folding_run_by_run_folds_as_the_whole_text_folds(text: str) -> None:
    assert fold(text) == reference_fold(text)


SPACED_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \t\n\x0b\x1c\x1f\x85\xa0\u2003\u3000\ufeff-aZé∈"), st.characters()
    ),
    max_size=20,
)


@fuzz
@given(SPACED_TEXT)
@example(" two  spaces ")
@example("a\u2003\tb\x85")
def test_text_is_single_spaced_as_split_and_joined(value: str) -> None:
    assert single_spaced(value) == " ".join(value.split())


@fuzz
@given(SPACED_TEXT)
def test_non_blank_characters_are_those_split_keeps(line: str) -> None:
    assert non_blank_length(line) == sum(map(len, line.split()))


def test_the_spaces_python_and_javascript_disagree_on_are_these() -> None:
    """tokens() splits with str.split unless the text holds a space only Python has."""
    python_only, javascript_only = set(), set()
    for code in range(0x110000):
        char = chr(code)
        javascript = char != "-" and SEPARATOR.fullmatch(char) is not None
        if char.isspace() and not javascript:
            python_only.add(char)
        elif javascript and not char.isspace():
            javascript_only.add(char)
    assert python_only == set(SPLIT_ONLY_SPACES)
    assert javascript_only == {JS_ONLY_SPACE}


def test_no_printable_character_is_white_space_but_the_space() -> None:
    """single_spaced and non_blank_length take printable text's white space for spaces."""
    spaces = {chr(code) for code in range(0x110000) if chr(code).isspace()}
    assert {char for char in spaces if char.isprintable()} == {" "}


@fuzz
@given(SPACED_TEXT)
def test_index_words_are_split_as_lunr_splits(text: str) -> None:
    assert tokens(text) == [word for word in SEPARATOR.split(fold(text)) if word]


@fuzz
@given(st.one_of(SPACED_TEXT, st.text(alphabet=st.characters(max_codepoint=127))))
def test_clean_text_is_nfc_without_invisibles_and_with_single_spaces(text: str) -> None:
    expected = " ".join(INVISIBLE.sub("", unicodedata.normalize("NFC", text)).split())
    assert clean_text(text) == (expected or None)


YAML_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(), st.sampled_from(
        ["yes", "off", "~", "0x1f", "1_000", "2024-05-01", "12:30", "-.inf", "'q'", "a: b",
         "- x", "#c", "\u2028\x85\r\n\t", "\ufeffbom", "&a *a", "!!str x"]
    ),
)
YAML_DATA = st.recursive(
    YAML_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _parsed_by(loader: type, text: str) -> tuple:
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(yamlfile, "FAST_LOADER", loader)
            document = yamlfile.parse_yaml(text, "x.yaml")
    except ConfsiteError as err:
        return ("error", str(err))
    return document.data, document.lines


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
@fuzz
@given(YAML_DATA, st.booleans(), st.sampled_from(["\n", "\r\n", "\r"]))
@example({"a": "x\u2028y\x85z", "b": ["\t", "  lead"]}, False, "\n")
@example({"title": "bom \ufeff inside", "n": 3}, False, "\r\n")
def test_yaml_reads_the_same_with_libyaml_as_with_pyyaml(
    data: object, flow: bool, line_break: str
) -> None:
    """libyaml parses what PyYAML's own parser parses into the same values on the same lines;
    what either refuses gives PyYAML's own error."""
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, line_break=line_break)
    assert _parsed_by(yaml.CSafeLoader, text) == _parsed_by(yaml.SafeLoader, text)


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
@pytest.mark.parametrize(
    "text",
    [
        "a: 1\n  b: 2\n",
        "key: [unclosed\n",
        "a: 1\na: 2\n",
        "x: \x07bell\n",
        "- one\n\t- tab\n",
        "? [complex, key]\n: v\n",
        "a: &r [1]\nb: *r\n",
        "a: *missing\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "\ufeffa: 1\n",
        "a: 'it''s'\nb: \"\\u00e9\\x41\"\nc: |\n  block\n   kept\nd: >-\n  folded\n  text\n",
        "a: 1 # comment\n# only a comment\nb:\n",
        "a:\r\n  - x\r\n  - y\r\n",
    ],
)
def test_awkward_yaml_reads_the_same_with_libyaml_as_with_pyyaml(text: str) -> None:
    assert _parsed_by(yaml.CSafeLoader, text) == _parsed_by(yaml.SafeLoader, text)


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(st.sampled_from("abcdefgh"), unique=True, max_size=8),
    after=st.lists(st.sampled_from("abcdefghij"), unique=True, max_size=10),
    separator=st.sampled_from(["", ",\n", "\n\n"]),
)
def test_a_download_spliced_from_old_pieces_is_the_download_made_afresh(
    before: list[str], after: list[str], separator: str
) -> None:
    """Papers removed, added, reordered: copying the unchanged papers' pieces out of the old
    file, in stretches where they lay together, gives the bytes of making every piece; and
    they are copied, not made (the old file's pieces are marked to tell)."""
    from array import array
    from types import SimpleNamespace

    from confsite.render.download_formats import Download
    from confsite.render.downloads import FilePieces, _buffers, _spliced, segments

    def made(
        papers: list[str], old: bytes, last: tuple[list[str], FilePieces] | None, mark: str = "<"
    ) -> tuple[bytes, FilePieces]:
        def piece(site: object, paper: str) -> str:
            return f"{mark if paper in before else '<'}{paper * 3}>"

        download = Download("[", separator, "]", piece)
        site = SimpleNamespace(papers=papers)
        last_papers, pieces = last if last is not None else ([], None)
        kept = segments(tuple(p.encode() for p in last_papers), [p.encode() for p in papers])
        offsets, lengths = array("q"), array("q")
        # Made twice, as a write tried again makes them: the places are recorded once.
        for _ in range(2):
            parts = list(_spliced(download, site, kept, pieces, offsets, lengths))  # type: ignore[arg-type]
        data = b"".join(bytes(buffer) for buffer in _buffers(parts, old))
        return data, FilePieces("", offsets, lengths)

    old, pieces = made(before, b"", None)
    assert made(after, old, (before, pieces)) == made(after, b"", None)
    marked, marked_pieces = made(before, b"", None, mark="(")
    assert marked_pieces == pieces
    assert made(after, marked, (before, pieces)) == made(after, b"", None, mark="(")
    # Each piece's place, as recorded, is where the piece lies.
    data, placed = made(after, marked, (before, pieces))
    for paper, start, length in zip(after, placed.offsets, placed.lengths, strict=True):
        assert data[start : start + length].endswith(f"{paper * 3}>".encode())


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40) | st.text(max_size=20))
@example("Don't stop: 1,000 GPUs & 2,5-bit &amp; &#65; &#x42; ''quoted'' -- x_y")
@example("1',2 1,'2 ,1, 1,2,3 a,1")
@example("\x00\x1f\x7f tab\there")
def test_slug_words_are_slugify_s_words(text: str) -> None:
    from slugify import slugify

    from confsite.model.slugs import TRANSLITERATION, slug_words

    assert slug_words(text) == slugify(text, separator=" ", backend=TRANSLITERATION).split()


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "word", "x" * 30, "1,000", "é", "&amp;", "$x$", " ", "-"]))
    .map("".join)
    | st.text(max_size=120)
)
@example("A " + "lengthy " * 12 + "title")  # a word that does not fit is left out, not the rest
@example("x" * 100)
def test_title_slugs_are_slugify_s(title: str) -> None:
    from slugify import slugify

    from confsite.model.slugs import (
        MAX_TITLE_SLUG_LENGTH,
        TRANSLITERATION,
        bounded_slug,
        title_slug,
    )
    from confsite.text.plain import plain_text

    def slug(text: str, max_length: int) -> str:
        return slugify(
            text, max_length=max_length, word_boundary=True, backend=TRANSLITERATION
        )

    assert title_slug(title) == slug(plain_text(title), MAX_TITLE_SLUG_LENGTH)
    for max_length in (1, 5, 30, 60):
        assert bounded_slug(title, max_length) == slug(title, max_length)


def test_slugs_do_not_follow_whichever_transliteration_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Slugs transliterate with slugify's own dependency: a Unidecode installed beside it
    (here a stand-in that spells every text "x") changes no slug."""
    import sys
    import types

    from confsite.model.slugs import bounded_slug, slug_words

    stand_in = types.ModuleType("unidecode")
    stand_in.unidecode = lambda text: "x"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "unidecode", stand_in)
    assert slug_words("Café Müller") == ["cafe", "muller"]
    assert bounded_slug("Łukasz Kaiser and Ærøskøbing", 60) == "lukasz-kaiser-and-aeroskobing"


# The tokens INLINE's rewrite changed, as first written, with lookbehinds where they read
# plainest: INLINE, rewritten so that the engine can skip ahead, must find the same.
FIRST_WRITTEN = {
    "cite": r"(?:\\|(?<![A-Za-z]))cite[tp]?\*?" + _argument("cite"),
    "footnote": r"~?(?:\\|(?<![A-Za-z]))footnote" + _argument("footnote"),
    "bare_url": r"(?P<bare_url>https?://[^\s<>\"'\]\[)(]+[^\s<>\"'\]\[)(.,;:!?])",
    "tie": r"(?<=\w)~(?=[\w\\\[])",
}
SPECIFIED_INLINE = re.compile("|".join({**INLINE_TOKENS, **FIRST_WRITTEN}.values()))
MARKUP_PIECES = st.sampled_from([
    "a", "x", "é", "1", "_", " ", "~", "\\", "{", "}", "[", "]", "(", ")", "<", ">", "`", "``",
    "''", "*", "**", "c", "f", "h", "cite", "citep*", "footnote", "url", "https://",
    "http://e.org", "textit", "bf ", "{\\bf ", "\\cite{k}", "~\\footnote{n}", "~footnote{n}",
    "xfootnote{n}", "xcite{k}", "%", "$", "\u201d", ".", ",",
])


def _tokens(pattern: re.Pattern[str], text: str) -> list[tuple[int, int, list[tuple[str, str]]]]:
    """Each match's place and what it holds, by the specification's names."""
    aliases = {"bare_cite": "cite", "tied_footnote": "footnote", "bare_footnote": "footnote"}
    found = []
    for match in pattern.finditer(text):
        groups = {
            aliases.get(name, name): value
            for name, value in match.groupdict().items()
            if value is not None
        }
        if "bare_url" in groups:
            groups["bare_url"] = match.group()
        found.append((match.start(), match.end(), sorted(groups.items())))
    return found


@fuzz
@given(st.one_of(st.lists(MARKUP_PIECES, max_size=30).map("".join), st.text(max_size=40)))
@example("a~\\footnote{n} x~y see cite{k} and https://e.org/a.")
@example("afootnote{n} ~footnote{n} écite{k} 1cite{k} éfootnote{n} _cite{k}")
def test_inline_markup_is_found_as_specified(text: str) -> None:
    assert _tokens(INLINE, text) == _tokens(SPECIFIED_INLINE, text)


def _balanced_by_depth(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


@fuzz
@given(st.text(alphabet="{}a \\", max_size=30))
def test_braces_are_neutralised_exactly_when_unbalanced(text: str) -> None:
    expected = text if _balanced_by_depth(text) else text.replace("{", "(").replace("}", ")")
    assert _balanced(text) == expected


@fuzz
@given(st.text(alphabet="\\&%#_$~^a ", max_size=30))
def test_latex_special_characters_are_found_as_specified(text: str) -> None:
    """As the patterns first written, with the lookbehind before the character, find them."""
    for pattern, specified in (
        (SPECIAL, r"(?<!\\)([&%#_$])"),
        (TILDE_CARET, r"(?<!\\)([~^])"),
    ):
        found = [match.span() for match in pattern.finditer(text)]
        assert found == [match.span() for match in re.finditer(specified, text)]


# Names as dumps spell them, and with what makes plain text read across them: TeX, markup,
# a capital sigma whose lower case depends on the letters beside it, combining marks,
# hyphens and the spaces only Python or only JavaScript splits on.
NAME_PIECES = st.sampled_from([
    "Ada", "Lovelace", "van der", "Ŝimon", "ΟΔΥΣΣΕΥΣ", "Σ", "e\u0301", "Jean-Luc", "O'Neil",
    "$\\alpha", "$", "\\'e", "{", "}", "[", "](x)", "**", "cite{k}", "footnote{", "\u2003",
    "\x1c", "\x85", "\ufeff", " ", "-", "é", "ﬁ", "李",
])
NAMES = st.lists(st.lists(NAME_PIECES, max_size=5).map("".join), max_size=6)


@fuzz
@given(SPACED_TEXT)
@example("Ada **Lovelace**")
@example("$x$ [a](b)")
@example("as cite{k} says")
@example("a footnote{b} c")
@example("``quoted\"")
@example("see \\url{x}")
def test_plain_text_only_respaces_a_text_is_plain_says_so(text: str) -> None:
    """`plain_text` takes a text `is_plain` says is plain as it is (respaced): reducing it
    would have changed nothing."""
    from confsite.text.plain import is_plain, reduced_to_plain

    if is_plain(text):
        assert reduced_to_plain(text) == single_spaced(text)


@fuzz
@given(st.lists(NAMES, max_size=5))
@example([["$a", "b$"], ["Σ", "Σ"], ["Ada", "Ada"]])
def test_authors_are_counted_as_their_lines_joined(author_lists: list[list[str]]) -> None:
    """The index counts an author list's terms by its names (`_authors_matrix`): the same
    counts as its text, the names a line each, counted whole."""
    from types import SimpleNamespace

    from confsite.render.search_index import _authors_matrix, _lines_text
    from confsite.render.terms import Vocabulary, field_terms

    papers = [SimpleNamespace(authors=tuple(names)) for names in author_lists]
    site = SimpleNamespace(papers=papers)
    vocabulary = Vocabulary()
    matrix = _authors_matrix(site, vocabulary)  # type: ignore[arg-type]
    for row, names in enumerate(author_lists):
        start, end = matrix.indptr[row], matrix.indptr[row + 1]
        counted = {
            vocabulary.terms[column]: int(count)
            for column, count in zip(matrix.indices[start:end], matrix.data[start:end], strict=True)
        }
        assert counted == dict(field_terms(_lines_text(site, tuple(names))))  # type: ignore[arg-type]
