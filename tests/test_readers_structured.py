"""The structured-export readers (CSV, TSV, JSON, JSON Lines, YAML, BibTeX) on small invented
fixtures in tests/fixtures/structured/. Every expected value is written out by hand from the
fixture's text; line numbers are the fixture's own lines."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
from conftest import SEED_FILES, SEEDS
from hypothesis import given, settings
from hypothesis import strategies as st

from confsite.diagnostics import ConfsiteError, Diagnostics, SourceLoc
from confsite.pipeline import BuildOptions, build
from confsite.readers import READERS, author_lists, reader_by_name, sniff
from confsite.readers.author_lists import clean_name, parse_authors, split_author_string
from confsite.readers.base import NO_OPTIONS, RawRecord, ReaderWarning, ReadOptions, SourceText
from confsite.readers.bibtex import bibtex_names, decode_latex
from confsite.readers.fields import map_fields
from confsite.readers.sources import load_source_text

FIXTURES = Path(__file__).parent / "fixtures" / "structured"
STRUCTURED = ("csv", "tsv", "json", "jsonl", "yaml", "bibtex")


def read(name: str, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    source = load_source_text(FIXTURES / name, name)
    return sniff(source).reader.read(source, options)


def stated(record: RawRecord) -> dict:
    """The fields a record states (its location as (line, end_line)), for whole-record checks."""
    fields = {key: value for key, value in asdict(record).items() if value not in (None, ())}
    fields["loc"] = (record.loc.line, record.loc.end_line)
    return fields


def text_source(text: str, path: str = "export") -> SourceText:
    return SourceText(path, text)


# --- detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("papers.csv", "csv"),
        ("csv_named.txt", "csv"),  # by content alone
        ("papers.tsv", "tsv"),
        ("nested.json", "json"),
        ("array.json", "json"),
        ("openreview_keyed.json", "json"),
        ("header_only.json", "json"),
        ("papers.jsonl", "jsonl"),
        ("papers.yml", "yaml"),
        ("list.yaml", "yaml"),
        ("papers.bib", "bibtex"),
    ],
)
def test_each_export_is_detected(name: str, reader: str) -> None:
    assert sniff(load_source_text(FIXTURES / name, name)).reader.name == reader


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("papers.csv", "csv"),
        ("papers.tsv", "tsv"),
        ("nested.json", "json"),
        ("papers.jsonl", "jsonl"),
        ("papers.yml", "yaml"),
        ("papers.bib", "bibtex"),
    ],
)
def test_content_is_recognised_without_the_extension(name: str, reader: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert sniff(SourceText("dump.txt", text)).reader.name == reader


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
@pytest.mark.parametrize("key", sorted(SEED_FILES))
def test_no_structured_reader_claims_a_seed_dump(key: str) -> None:
    source = load_source_text(SEEDS / SEED_FILES[key], SEED_FILES[key])
    scores = {reader.name: reader.sniff(source) for reader in READERS}
    assert all(scores[name] < 0.5 for name in STRUCTURED), scores


# --- each format, whole records ----------------------------------------------------------


def test_csv_records() -> None:
    assert [stated(record) for record in read("papers.csv")] == [
        {
            "loc": (2, 2),
            "title": "Sparse Lanterns for Graph Sampling",
            "authors": ("Ada Quill", "Borislav Tern", "Chiara Vell"),
            "abstract": ("A short abstract.",),
            # the OpenReview column holds an id, which is no link
            "links": ("https://example.org/lanterns.pdf",),
            "keywords": ("graphs", "sampling"),
            "session": "Poster Session 1",
            "presentation": "Poster",
            "decision": "Accept (poster)",
            "room": "Hall A",
        },
        {
            "loc": (3, 5),  # a quoted abstract spans three lines
            "title": "Quoted, With Comma",
            "authors": ("Dana Roe", "Eli Voss", "Fay Lin"),
            "abstract": ("First paragraph.", "Second paragraph spans lines."),
            "links": ("https://openreview.net/forum?id=abc123",),
            "session": "Oral Session 2",
            "presentation": "Oral",
            "decision": "Accept (oral)",
            "awards": ("Outstanding Paper",),
            "room": "Room 101",
        },
        # line 6 is blank, line 8 has only empty cells, line 9 repeats the header
        {"loc": (7, 7), "authors": ("Gus Hale",), "abstract": ("An abstract without a title.",)},
        {"loc": (10, 10), "title": "Last Row", "authors": ("Hana Ito", "Ivo Petrov")},
    ]


def test_csv_cells_keep_a_literal_backslash_n_as_written() -> None:
    # Some exports write line breaks as the two characters \n, which TeX (\nabla) also
    # starts with: the reader cannot tell them apart and keeps both.
    text = 'title,abstract\nBackslashes,"One\\ntwo; $\\nabla f$."\n'
    [record] = reader_by_name("csv").read(text_source(text))
    assert record.abstract == ("One\\ntwo; $\\nabla f$.",)


def test_tsv_records_with_inline_affiliations() -> None:
    assert [stated(record) for record in read("papers.tsv")] == [
        {
            "loc": (2, 2),
            "title": "Tabbed Mirrors",
            "authors": ("Jun Park", "Kira Moss", "Lev Orlov"),
            "affiliations": ("KAIST", "ETH Zurich", ""),
            "abstract": ("Mirrors, tabbed.",),
            "links": ("https://example.org/mirrors",),
            "keywords": ("vision", "mirrors"),
            "session": "Session A",
            "presentation": "Spotlight",
            "decision": "Accept",
            "awards": ("Best Paper", "Test of Time"),
            "room": "Room 5",
        },
        {"loc": (3, 3), "title": "Second Tab", "authors": ("Mia Chen",)},
    ]


def test_nested_json_takes_the_paper_list_and_author_objects() -> None:
    assert [stated(record) for record in read("nested.json")] == [
        {
            "loc": (6, 18),
            "title": "Lightweight Widgets",  # not the "name" beside it
            "authors": ("Olga Ruiz", "Pavel Sokol", "Quinn Adeyemi"),
            "affiliations": ("Univ. of Nowhere", "Lab Nine", ""),
            "abstract": ("Widgets, but light.",),
            # "forum": "B1xSperKvH" is an id: no URL is made up from it
            "links": ("https://example.org/widgets.pdf", "https://github.com/example/widgets"),
        },
        {
            "loc": (19, 19),
            "title": "Heavy Gadgets",
            "authors": ("Rosa Blanc", "Sami Okafor"),
            "decision": "Reject",
        },
    ]


def test_json_array_with_camel_case_keys_and_an_untitled_object() -> None:
    assert [stated(record) for record in read("array.json")] == [
        {
            "loc": (2, 2),
            "title": "Camel Case Keys",
            "authors": ("Tomas Weiss", "Uma Das"),
            "abstract": ("About camels.",),
            "keywords": ("keys", "case"),
            "decision": "Accept",
            "awards": ("Honorable Mention",),
        },
        {"loc": (3, 3), "authors": ("Vera Nil",), "abstract": ("No title here.",)},
        # line 4 states nothing and gives no record
    ]


def test_openreview_json_keyed_by_id_with_fields_under_content() -> None:
    assert [stated(record) for record in read("openreview_keyed.json")] == [
        {
            "loc": (2, 10),
            "title": "Keyed By Forum Id",
            "authors": ("Tomas Vidal", "Una Berg"),
            "abstract": ("Fields one level down.",),
        },
        # OpenReview's newer API wraps each field as {"value": ...}
        {"loc": (11, 14), "title": "Wrapped Values", "authors": ("Vera Lind",)},
    ]


def test_openreview_json_list_with_fields_under_content() -> None:
    assert [stated(record) for record in read("openreview_list.json")] == [
        {"loc": (2, 2), "title": "Listed With Content", "authors": ("Wen Zhao",)},
        {"loc": (3, 3), "title": "Second Listed", "authors": ("Xia Park",)},
    ]


def test_json_lines_rows_may_spell_fields_differently() -> None:
    assert [stated(record) for record in read("papers.jsonl")] == [
        {
            "loc": (1, 1),
            "title": "Line One",
            "authors": ("Wen Li", "Xavier Moss", "Yara Said"),
            "keywords": ("optimization", "theory"),
            "session": "Main",
        },
        {
            "loc": (3, 3),
            "title": "Line Two",
            "authors": ("Zoe Park", "Adam Brook"),
            "abstract": ("Two.",),
        },
    ]


def test_yaml_mapping_holding_a_list() -> None:
    assert [stated(record) for record in read("papers.yml")] == [
        {
            "loc": (3, 10),  # the block scalar runs to line 10; the blank line 11 is left out
            "title": "Yaml Papers Are Lists",
            "authors": ("Bea Stone", "Cal Ruiz"),
            "abstract": ("First line of a block.", "Second paragraph."),
        },
        {
            "loc": (12, 16),
            "title": "Another: With Colon",
            "authors": ("Dee Holt", "Eve Marsh"),
            "links": ("https://example.org/another",),
            "session": "Posters",
            "room": "Hall B",
        },
    ]


def test_yaml_plain_list() -> None:
    assert [stated(record) for record in read("list.yaml")] == [
        {"loc": (1, 2), "title": "Just A List", "authors": ("Finn Cole", "Gia Romano")},
        {"loc": (3, 4), "title": "Second Of The List", "authors": ("Hal Ode",)},
    ]


def test_yaml_mapping_of_papers_keyed_by_id() -> None:
    assert [stated(record) for record in read("keyed.yml")] == [
        {"loc": (2, 4), "title": "First Keyed", "authors": ("Yara Holt",)},
        {"loc": (6, 8), "title": "Second Keyed", "authors": ("Zane Ito",)},
    ]


def test_bibtex_entries_with_and_without_abstracts() -> None:
    assert [stated(record) for record in read("papers.bib")] == [
        {
            "loc": (10, 20),
            "title": "GANs for Schrödinger Bridges",
            "authors": ("Klaus Müller", "José García"),  # "and others" dropped
            "abstract": (
                r"We show that $\alpha^2$ works for 50% of cases.",
                "Second paragraph about naïve baselines.",
            ),
            "links": ("https://example.org/paper_one", "https://doi.org/10.1234/abc.5"),
            "keywords": ("bridges", "diffusion"),
        },
        {
            "loc": (22, 26),
            "title": "A Paper Without Abstract",
            "authors": ("Jane Smith", "Jan van der Berg", "John Smith, Jr."),
        },
    ]


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"{\'E}cole {\v{S}}koda Pa{\l}ka", "École Škoda Pałka"),
        (r"{BERT} and {T}ransformers", "BERT and Transformers"),
        (r"A --- B, ``quoted''", "A — B, “quoted”"),
        (r"$\mathcal{O}(n)$ time \& space", r"$\mathcal{O}(n)$ time & space"),
        ("100% sure", "100% sure"),
        (r"Stra\ss e and {\ss}", "Straße and ß"),
        # commands other than accents are kept as written, a paper's own macro too
        (r"a \emph{safe set} by \method{}", r"a \emph{safe set} by \method{}"),
        (r"known as {\it Log Linear Learning}", r"known as {\it Log Linear Learning}"),
        (r"\textit{Ver} and {Y}ou", r"\textit{Ver} and You"),
        # a file escaped once too often: the escaping undone once
        (r"D\$^3\$epth", "D$^3$epth"),
        (r"\\textit\{SPO\} \$\\mathcal\{D\_\{i\}\}\$", r"\textit{SPO} $\mathcal{D_{i}}$"),
    ],
)
def test_bibtex_tex_to_unicode_keeps_math(tex: str, text: str) -> None:
    assert decode_latex(tex) == text


def test_bibtex_file_with_one_bad_entry_skips_it_with_a_warning() -> None:
    with pytest.warns(ReaderWarning) as caught:
        records = read("one_bad_entry.bib")
    assert [(record.title, record.authors) for record in records] == [
        ("Read Before", ("Ann Lee",)),
        ("Read After", ("Cy Wu",)),
    ]
    [warning] = caught
    assert str(warning.message).startswith(
        "one_bad_entry.bib:6: invalid BibTeX entry: Expected a `=` after entry key"
    )
    assert warning.message.loc == SourceLoc("one_bad_entry.bib", 6, 6)


def test_a_skipped_entry_is_a_located_build_warning(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "one_bad_entry.bib", tmp_path / "papers.bib")
    (tmp_path / "site.yaml").write_text("title: T\nsources:\n  - path: papers.bib\n")
    diagnostics = Diagnostics()
    build(BuildOptions(config_path=tmp_path / "site.yaml"), diagnostics)
    skipped = [p for p in diagnostics.warnings if p.kind == "reader"]
    assert [(str(p.loc), "entry skipped" in p.message) for p in skipped] == [
        ("papers.bib:6", True)
    ]


def test_bibtex_author_fields_written_as_comma_lists() -> None:
    assert [(record.title, record.authors) for record in read("comma_lists.bib")] == [
        ("Three In A Row", ("Ann Lee", "Bo Kim", "Cy Wu")),
        # two whole names are a list too, in a file that writes its author fields so
        ("Just Two", ("Di Ho", "Ed Fox")),
        ("With An Oxford Comma", ("Fay Ito", "Gus Hale", "Ivy Jun")),
        ("The Title and Nothing Else", ()),  # the title pasted into the author field
    ]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # alone, two whole names are read as BibTeX's "Last, First"
        ("Garcia Lopez, Maria Jose", ("Maria Jose Garcia Lopez",)),
        (
            "van der Berg, Jan Piet and Smith, Jr., John",
            ("Jan Piet van der Berg", "John Smith, Jr."),
        ),
    ],
)
def test_bibtex_names_with_commas_that_are_no_list(text: str, names: tuple) -> None:
    assert bibtex_names(text) == names


def test_bibtex_names() -> None:
    assert bibtex_names(r"de la Fontaine, Jean and {\O}stergaard, S{\o}ren and Ng") == (
        "Jean de la Fontaine",
        "Søren Østergaard",
        "Ng",
    )


def test_bibtex_names_with_a_suffix_or_a_lower_case_particle_written_last() -> None:
    # PMLR writes the suffix where the surname goes, and "de" after the given name
    assert bibtex_names("III, William R. Johnson and Sa, Massimiliano de") == (
        "William R. Johnson III",
        "Massimiliano de Sa",
    )


# --- author lists ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Ann Lee | Bo Kim, Jr. | Cy Wu", ["Ann Lee", "Bo Kim, Jr.", "Cy Wu"]),
        ("Lee, Ann; Kim, Bo", ["Lee, Ann", "Kim, Bo"]),
        ("Ann Lee\nBo Kim", ["Ann Lee", "Bo Kim"]),
        ("Ann Lee · Bo Kim", ["Ann Lee", "Bo Kim"]),
        ("Ann Lee and Bo Kim", ["Ann Lee", "Bo Kim"]),
        ("Ann Lee, Bo Kim, and Cy Wu", ["Ann Lee", "Bo Kim", "Cy Wu"]),
        ("Ann Lee, Bo Kim and Cy Wu", ["Ann Lee", "Bo Kim", "Cy Wu"]),
        ("Ann Lee & Bo Kim", ["Ann Lee", "Bo Kim"]),
        ("Ann Lee, Bo Kim, Cy Wu", ["Ann Lee", "Bo Kim", "Cy Wu"]),
        ("Lee, Ann and Kim, Bo", ["Ann Lee", "Bo Kim"]),  # a reference manager's order
        ("Ann Lee (MIT, CSAIL), Bo Kim (ETH)", ["Ann Lee (MIT, CSAIL)", "Bo Kim (ETH)"]),
        ("Sandra Anderson", ["Sandra Anderson"]),  # "and" inside a word is no separator
        ("Ann Lee (X (Y), Z), Bo Kim", ["Ann Lee (X (Y), Z)", "Bo Kim"]),
        ("Ke Ma (IIE, CAS, Bo Kim", ["Ke Ma (IIE, CAS, Bo Kim"]),  # never closed: one piece
        ("Ann Lee), Bo Kim", ["Ann Lee)", "Bo Kim"]),
        ("  ", []),
    ],
)
def test_author_strings_split_by_their_own_separator(text: str, names: list[str]) -> None:
    assert split_author_string(text) == names


def test_a_long_author_string_splits_at_every_comma_outside_parentheses() -> None:
    names = [f"Author {n} (Lab {n}, Site {n})" for n in range(3000)]
    assert split_author_string(", ".join(names)) == names


def split_by_prefix_count(text: str, separator: re.Pattern[str]) -> list[str]:
    """The plainest reading of "split outside parentheses": a separator counts where the text
    before it opens more parentheses than it closes."""
    pieces, start = [], 0
    for match in separator.finditer(text):
        before = text[: match.start()]
        if before.count("(") <= before.count(")"):
            pieces.append(text[start : match.start()])
            start = match.end()
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if piece.strip()]


AUTHOR_TEXT = st.text(alphabet=st.sampled_from("Ab é()|;,·&\n\t"), max_size=40).map(
    lambda text: text.replace("&", " and ") if len(text) % 2 else text
)


@settings(max_examples=400)
@given(AUTHOR_TEXT)
def test_author_string_splitting_matches_the_plain_definitions(text: str) -> None:
    for separator in (*author_lists.STRONG_SEPARATORS, author_lists.AND_LIST, author_lists.COMMA):
        expected = split_by_prefix_count(text, separator)
        assert author_lists._split_outside_parentheses(text, separator) == expected
    # The shortcut for a string with no separator's mark gives what the full path gives.
    full_path = author_lists.SEPARATOR_MARKS
    try:
        author_lists.SEPARATOR_MARKS = ("",)  # held by every string: no shortcut
        expected_names = split_author_string(text)
    finally:
        author_lists.SEPARATOR_MARKS = full_path
    assert split_author_string(text) == expected_names


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("Ann Lee*", ("Ann Lee", "")),
        ("†Bo Kim", ("Bo Kim", "")),
        ("Cy Wu1,2", ("Cy Wu", "")),
        ("Di Ho³", ("Di Ho", "")),
        ("Ed Fox (University of Somewhere)", ("Ed Fox", "University of Somewhere")),
        ("2", ("", "")),
        ("et al.", ("", "")),
    ],
)
def test_author_names_lose_markers_and_keep_affiliations(raw: str, cleaned: tuple) -> None:
    assert clean_name(raw) == cleaned


def test_footnote_numbers_between_comma_separated_names_are_no_authors() -> None:
    assert parse_authors("Ann Lee1,2, Bo Kim2").names == ("Ann Lee", "Bo Kim")


def test_author_objects() -> None:
    authors = parse_authors(
        [
            {"Full Name": "Ann Lee", "Institution": "MIT"},
            {"firstName": "Bo", "lastName": "Kim"},
            {"given": "Cy", "family": "Wu", "affiliation": {"name": "ETH"}},
            "Di Ho (CMU)",
        ]
    )
    assert authors.names == ("Ann Lee", "Bo Kim", "Cy Wu", "Di Ho")
    assert authors.affiliations == ("MIT", "", "ETH", "CMU")


def test_an_empty_author_object_is_no_author() -> None:
    authors = parse_authors(
        [{"first_name": "Ann", "last_name": "Lee"}, {"first_name": "", "last_name": ""}, {}]
    )
    assert (authors.names, authors.affiliations) == (("Ann Lee",), ())


def test_semicolons_inside_affiliations_do_not_split_names() -> None:
    authors = parse_authors("Ann Lee (MIT; CSAIL); Bo Kim (ETH)")
    assert (authors.names, authors.affiliations) == (("Ann Lee", "Bo Kim"), ("MIT; CSAIL", "ETH"))


@pytest.mark.parametrize(
    ("items", "names", "affiliations"),
    [
        (
            ["Ann Lee (Lab One", "Univ Two)", "Bo Kim"],
            ("Ann Lee", "Bo Kim"),
            ("Lab One, Univ Two", ""),
        ),
        (  # a nested parenthesis split off, down to a lone ")"
            [{"author": "Cy Wu (Lab (LX)"}, {"author": ")"}, {"author": "Di Ho (Univ)"}],
            ("Cy Wu", "Di Ho"),
            ("Lab (LX)", "Univ"),
        ),
        # an affiliation whose closing parenthesis was lost is still not part of the name
        (["Ed Fox (never closed", "Fay Ito"], ("Ed Fox", "Fay Ito"), ("never closed", "")),
    ],
)
def test_author_arrays_split_inside_an_affiliation_are_joined_again(
    items: list, names: tuple, affiliations: tuple
) -> None:
    authors = parse_authors(items)
    assert (authors.names, authors.affiliations) == (names, affiliations)


def test_tabs_and_no_break_spaces_inside_names_are_spaces() -> None:
    assert parse_authors(["Gus\t Hale", "Ivy\u00a0Jun"]).names == ("Gus Hale", "Ivy Jun")
    assert parse_authors("Gus \tHale, Ivy\u00a0Jun").names == ("Gus Hale", "Ivy Jun")


def test_names_without_affiliations_state_none() -> None:
    assert parse_authors(["Ann Lee", "Bo Kim"]).affiliations == ()


# --- field names --------------------------------------------------------------------------

SYNONYM_FAMILIES = {
    "title": ["title", "Paper Title", "papertitle", "name", "paper"],
    "authors": ["authors", "Author", "authors_list", "Author Names", "creators"],
    "abstract": ["abstract", "Summary", "TL;DR", "description"],
    "session": ["session", "Track", "session_name"],
    "presentation": ["presentation", "Type", "format"],
    "decision": ["decision", "Status"],
    "awards": ["award", "Awards"],
    "room": ["room", "Location"],
    "keywords": ["keywords", "tags", "Topics", "subject_areas"],
    "affiliations": ["affiliations", "affiliation", "Institutions"],
}
CASES = [(field, name) for field, names in SYNONYM_FAMILIES.items() for name in names]


@pytest.mark.parametrize(("record_field", "column"), CASES)
def test_each_synonym_names_its_field(record_field: str, column: str) -> None:
    other_title = [] if record_field == "title" else ["Title"]
    fields = map_fields([*other_title, column], ReadOptions(), SourceLoc("x"))
    assert fields.of(record_field) == (column,)


@pytest.mark.parametrize(
    "column",
    [
        "url",
        "link",
        "PDF",
        "pdf_url",
        "paper_url",
        "forum",
        "OpenReview",
        "arxiv",
        "code",
        "site",
        "video",
    ],
)
def test_each_link_column_gives_links_and_only_urls(column: str) -> None:
    text = f'title,{column}\nA,https://example.org/a\nB,not-a-url\nC,"ftp://x.org/c"\n'
    records = reader_by_name("csv").read(text_source(text))
    assert [record.links for record in records] == [("https://example.org/a",), (), ()]


def test_title_is_preferred_over_name_and_paper() -> None:
    fields = map_fields(["name", "paper", "Title"], ReadOptions(), SourceLoc("x"))
    assert fields.of("title") == ("Title",)


def test_fields_setting_overrides_the_guess() -> None:
    text = "title,Headline,authors,Writers\nWrong,Right,Wrong Person,Ann Lee\n"
    options = ReadOptions(fields=(("authors", "writers"), ("title", "Headline")))
    [record] = reader_by_name("csv").read(text_source(text), options)
    assert (record.title, record.authors) == ("Right", ("Ann Lee",))


def test_fields_setting_naming_a_missing_column_is_an_error() -> None:
    options = ReadOptions(fields=(("title", "Headline"),))
    with pytest.raises(ConfsiteError) as caught:
        reader_by_name("csv").read(text_source("title,authors\nA,B\n", "x.csv"), options)
    assert str(caught.value) == (
        "x.csv:1: fields: title: no column or key named 'Headline' (found: 'title', 'authors')"
    )


def test_attendance_values() -> None:
    text = "title,attendance\nA,In-Person\nB,virtual\nC,maybe\n"
    records = reader_by_name("csv").read(text_source(text))
    assert [record.attendance for record in records] == ["in person", "virtual", None]


# --- empty and bad input -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["header_only.csv", "header_only.json"])
def test_header_only_exports_have_no_records(name: str) -> None:
    assert read(name) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ragged.csv", "bad/ragged.csv:3: row has 3 cells but the header has 2 columns"),
        ("unclosed.csv", "bad/unclosed.csv:2: invalid CSV row: unexpected end of data"),
        (
            "no_title.csv",
            "bad/no_title.csv:1: no title column found (columns: 'Headline', "
            "'Writers'); name the one holding titles in site.yaml, e.g. "
            "`fields: {title: Paper}`",
        ),
        ("broken.json", "bad/broken.json:3: invalid JSON: Expecting property name"),
        (
            "not_objects.json",
            "bad/not_objects.json:3: expected an object with a paper's "
            "fields, got text 'just text'",
        ),
        (
            "no_list.json",
            "bad/no_list.json:1: expected a list of papers, or an object "
            "holding one; found an object with keys 'meta'",
        ),
        ("broken.jsonl", "bad/broken.jsonl:2: invalid JSON Lines: Expecting value"),
        ("broken.yaml", "bad/broken.yaml:4: invalid YAML"),
        ("broken.bib", "bad/broken.bib:5: invalid BibTeX entry: Unexpectedly reached end"),
    ],
)
def test_bad_input_is_an_error_with_file_and_line(name: str, message: str) -> None:
    with pytest.raises(ConfsiteError) as caught:
        read(f"bad/{name}")
    assert str(caught.value).startswith(message)


# --- through a build ---------------------------------------------------------------------


def build_project(folder: Path, tmp_path: Path) -> list[dict]:
    project = tmp_path / "project"
    shutil.copytree(folder, project)
    result = build(BuildOptions(config_path=project / "site.yaml"), Diagnostics())
    return json.loads((result.out_dir / "papers.json").read_text(encoding="utf-8"))


def test_fields_mapping_in_site_yaml_reaches_the_built_site(tmp_path: Path) -> None:
    [paper] = build_project(FIXTURES / "mapped", tmp_path)
    assert (paper["title"], paper["authors"], paper["abstract"]) == (
        "Mapped Headline",
        ["Ann Lee", "Bo Kim"],
        "The blurb.",
    )
    assert paper["sources"] == [{"path": "talks.csv", "first_line": 2, "last_line": 2}]


def test_a_header_only_source_stops_the_build(tmp_path: Path) -> None:
    project = tmp_path / "empty"
    project.mkdir()
    shutil.copy(FIXTURES / "header_only.csv", project / "papers.csv")
    (project / "site.yaml").write_text("title: T\nsources:\n  - path: papers.csv\n")
    with pytest.raises(ConfsiteError) as caught:
        build(BuildOptions(config_path=project / "site.yaml"), Diagnostics())
    assert str(caught.value).startswith("papers.csv:1: no records found by the csv reader (")
