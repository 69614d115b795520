"""Normalization and merging rules, one table row per case."""

from __future__ import annotations

import pytest

from confsite.config import SourceConfig, SourceDefaults
from confsite.diagnostics import Diagnostics, SourceLoc
from confsite.model.authors import build_authors
from confsite.model.merge import merge_entries, title_key
from confsite.model.normalize import clean_text, join_paragraphs, make_entry
from confsite.readers.base import RawRecord
from confsite.readers.markdown_list import unescape_markdown
from confsite.readers.program import is_prose, looks_like_person


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  Deep\u00a0 learning \n", "Deep learning"),  # no-break space and runs of whitespace
        ("Cafe\u0301", "Caf\u00e9"),  # NFC: combining accent composed
        ("zero\u200bwidth", "zerowidth"),
        ("bidi \u202eevil\u202c text", "bidi evil text"),
        ("nul\x00byte", "nulbyte"),
        ("soft\u00adhyphen", "softhyphen"),
        ("keep \u200d joiner", "keep \u200d joiner"),  # ZWJ is meaningful in emoji and scripts
        ("$\\alpha$-TeX  stays", "$\\alpha$-TeX stays"),
        ("   ", None),
        (None, None),
    ],
)
def test_clean_text(raw: str | None, clean: str | None) -> None:
    assert clean_text(raw) == clean


@pytest.mark.parametrize(
    ("escaped", "plain"),
    [
        ("\\\\$i\\\\\\$-Mix: A Domain", "$i$-Mix: A Domain"),  # escaped twice over
        ("VA-RED\\\\$^2\\\\$: Video", "VA-RED$^2$: Video"),
        ("Class Normalization for \\(Continual\\)? Generalized", "Class Normalization for (Continual)? Generalized"),  # noqa: E501
        ("\\$\\ell\\_p\\$ -Norm", "$\\ell_p$ -Norm"),
        ("$\\$\\\\epsilon$$ -optimal", "$$\\epsilon$$ -optimal"),
        ("ATLA\\\\_robust\\\\_RL", "ATLA_robust_RL"),
        ("by $3.72\\% \\sim 6.68\\%$", "by $3.72\\% \\sim 6.68\\%$"),  # TeX escapes are kept
        ("$\\{x\\}$ and $\\|v\\|$", "$\\{x\\}$ and $\\|v\\|$"),
    ],
)
def test_unescape_markdown(escaped: str, plain: str) -> None:
    assert unescape_markdown(escaped) == plain


@pytest.mark.parametrize(
    ("paragraphs", "abstract"),
    [
        (("First part cut", "off mid-sentence."), "First part cut off mid-sentence."),
        (("One sentence.", "Another paragraph."), "One sentence.\n\nAnother paragraph."),
        (("Ends with colon:", "lowercase list"), "Ends with colon:\n\nlowercase list"),
        (("", "  "), None),
    ],
)
def test_join_paragraphs(paragraphs: tuple[str, ...], abstract: str | None) -> None:
    assert join_paragraphs(paragraphs) == abstract


@pytest.mark.parametrize(
    ("text", "is_person"),
    [
        ("Keller Jordan", True),
        ("Min Lin", True),
        ("marc lelarge", True),
        ("Juan L. Reutter", True),
        ("X.Y. Han", True),
        ("Hado van Hasselt", True),
        ("Robert A Vandermeulen", True),
        ("Bo An", True),
        ("Xiao Shi (Gary) Huang", True),
        ("An Efficient Method", False),
        ("Learning to Rank", False),
        ("A Branching Decoder", False),
        ("Tree Cross Attention", False),
        ("Conformal Language Modeling", False),
        ("MAP IT to Visualize Representations", False),
        ("Local Search GFlowNets: Part 2", False),
    ],
)
def test_looks_like_person(text: str, is_person: bool) -> None:
    assert looks_like_person(text) is is_person


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        ("A Title of Ordinary Length About Graph Neural Networks", False),
        ("We study things. " * 15, True),
        ("深度学习的图神经网络研究", False),
        ("我们研究图神经网络在大规模数据上的表示能力，并提出一种新的训练方法，"
         "实验表明该方法在多个基准上取得了更好的结果。", True),
    ],
)
def test_is_prose(text: str, prose: bool) -> None:
    assert is_prose(text) is prose




@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hypercomplex Multiplications with $1/n$ Parameters",
         "Hypercomplex Multiplications with 1/n Parameters"),
        ("Unpaired Translation via Neural Schrödinger Bridge",
         "Unpaired translation via neural Schrodinger bridge"),
        ("Temporally-Extended $\\epsilon$-Greedy Exploration",
         "Temporally-Extended ε-Greedy Exploration"),
        ("50% Fewer Parameters", "50% fewer parameters"),
    ],
)
def test_title_key_matches_tex_and_plain_spellings(a: str, b: str) -> None:
    assert title_key(a) == title_key(b)


def test_title_key_separates_different_titles() -> None:
    assert title_key("Learning to Rank") != title_key("Learning to Rank Fast")


def entry(line: int, source: int = 0, **fields):
    record = RawRecord(loc=SourceLoc(f"dump{source}.txt", line, line + 3), **fields)
    config = SourceConfig(path=f"dump{source}.txt", conference="ICLR", year=2024,
                          session=f"Session {source}", defaults=SourceDefaults("Poster"))
    return make_entry(record, config, source)


def test_exact_repeats_collapse_and_cross_dump_duplicates_merge() -> None:
    diagnostics = Diagnostics()
    a = entry(1, 0, title="A Paper", authors=("Ann",), abstract=("Text.",))
    repeat = entry(9, 0, title="A Paper", authors=("Ann",), abstract=("Text.",))
    other_dump = entry(5, 1, title="a paper", authors=("Ann",), abstract=("Text.",),
                       awards=("Outstanding Paper",))
    [paper] = merge_entries([a, repeat, other_dump], diagnostics)
    assert paper.title == "A Paper"
    assert [s.name for s in paper.sessions] == ["Session 0", "Session 1"]
    assert paper.awards == ("Outstanding Paper",)
    assert [str(loc) for loc in paper.sources] == ["dump0.txt:1", "dump0.txt:9", "dump1.txt:5"]
    assert diagnostics.warnings == []


def test_conflicting_abstracts_are_reported_and_first_source_wins() -> None:
    diagnostics = Diagnostics()
    first = entry(1, 0, title="A Paper", abstract=("We do one thing.",))
    second = entry(2, 1, title="A Paper", abstract=("We do something else entirely.",))
    [paper] = merge_entries([first, second], diagnostics)
    assert paper.abstract == "We do one thing."
    [warning] = diagnostics.warnings
    assert warning.kind == "conflict" and str(warning.loc) == "dump1.txt:2"
    assert "dump0.txt:1" in warning.message


def test_cut_off_abstract_yields_to_complete_one_without_conflict() -> None:
    diagnostics = Diagnostics()
    cut = entry(1, 0, title="A Paper", abstract=("We propose a method and",))
    full = entry(2, 1, title="A Paper", abstract=("We propose a method and it works.",))
    [paper] = merge_entries([cut, full], diagnostics)
    assert paper.abstract == "We propose a method and it works."
    assert diagnostics.warnings == []


def test_untitled_paper_joins_titled_paper_with_same_abstract() -> None:
    text = ("A long enough abstract about diffusion models and their variance estimates. " * 3,)
    untitled = entry(1, 0, authors=("Fan Bao",), abstract=text, awards=("Outstanding Paper",))
    titled = entry(4, 1, title="Analytic-DPM", authors=("Fan Bao",), abstract=text)
    [paper] = merge_entries([untitled, titled], Diagnostics())
    assert paper.title == "Analytic-DPM"
    assert paper.awards == ("Outstanding Paper",)


def test_ids_are_slugs_and_collisions_get_stable_suffixes() -> None:
    diagnostics = Diagnostics()
    # Slugs stop at 80 characters, so titles that differ only after that collide.
    stem = "A Very Long Title About Learning Representations For Structured Prediction Problems"
    first, second = f"{stem} In Vision", f"{stem} In Language"
    papers = merge_entries(
        [entry(1, title=first), entry(5, title=second), entry(9, title="Other")], diagnostics
    )
    ids = sorted(p.id for p in papers)
    assert ids[2] == "other"
    prefix = "a-very-long-title-about-learning-representations-for-structured-prediction-"
    assert ids[0].startswith(prefix) and ids[1].startswith(prefix)
    assert ids[0] != ids[1]
    again = merge_entries([entry(5, title=second), entry(1, title=first)], Diagnostics())
    assert sorted(p.id for p in again) == ids[:2]
    assert any(p.kind == "slug" for p in diagnostics.problems)


def test_untitled_ids_name_the_first_author() -> None:
    [paper] = merge_entries([entry(1, authors=("X.Y. Han", "D. Donoho"))], Diagnostics())
    assert paper.title is None
    assert paper.id.startswith("untitled-x-y-han-")


@pytest.mark.parametrize(
    ("spellings", "shown"),
    [
        (["sheng zhao", "sheng zhao", "Sheng Zhao"], "Sheng Zhao"),
        (["Jérémie DONA", "Jérémie Donà"], "Jérémie Donà"),
        (["CHEN CHEN", "Chen Chen"], "Chen Chen"),
        (["Francois Fleuret", "François Fleuret"], "François Fleuret"),
        (["Bo Dai", "Bo Dai", "Bo DAI"], "Bo Dai"),
    ],
)
def test_author_index_merges_spellings_and_shows_the_best(spellings: list[str], shown: str) -> None:
    papers = merge_entries(
        [entry(n * 10, title=f"Paper {n}", authors=(name,)) for n, name in enumerate(spellings)],
        Diagnostics(),
    )
    diagnostics = Diagnostics()
    [author] = build_authors(tuple(papers), diagnostics)
    assert author.name == shown
    assert len(author.paper_ids) == len(spellings)
    assert [p.kind for p in diagnostics.problems] == ["author-merge"]


def test_merging_again_takes_only_the_groups_of_the_same_entries(monkeypatch) -> None:
    """A rebuild merges again only the groups whose entries are new objects (read anew): the
    papers and what merging reported equal merging everything afresh, in the same order."""
    import dataclasses

    import confsite.model.merge as merge

    first = entry(1, 0, title="A Paper", abstract=("We do one thing.",))
    conflicting = entry(2, 1, title="A Paper", abstract=("We do something else entirely.",))
    repeat = entry(3, 1, title="Other Paper", authors=("Ann",))
    again = entry(4, 1, title="Other Paper", authors=("Ann",))
    alone = entry(5, 0, title="Third Paper", authors=("Bo",))
    entries = [first, conflicting, repeat, again, alone]
    told = Diagnostics()
    papers, groups = merge.merge_groups(entries, told, {})
    assert [p.kind for p in told.problems] == ["conflict", "repeat"]

    merged_ids: list[str] = []
    merge_group = merge.merge_group

    def counting(paper_id, members, diagnostics):  # noqa: ANN001, ANN202
        merged_ids.append(paper_id)
        return merge_group(paper_id, members, diagnostics)

    monkeypatch.setattr(merge, "merge_group", counting)
    # The same objects: nothing is merged again, and the same problems are told again.
    told_again = Diagnostics()
    assert merge.merge_groups(entries, told_again, groups)[0] == papers
    assert merged_ids == []
    assert told_again.problems == told.problems
    # One entry read anew (an equal copy) and one edited: their groups only.
    edited = dataclasses.replace(alone, abstract="Now with an abstract.")
    changed = [dataclasses.replace(first), conflicting, repeat, again, edited]
    kept, afresh = Diagnostics(), Diagnostics()
    taken, _ = merge.merge_groups(changed, kept, groups)
    assert sorted(merged_ids) == sorted(p.id for p in papers if p.title != "Other Paper")
    assert taken == merge.merge_groups(changed, afresh, {})[0]
    assert kept.problems == afresh.problems
    assert next(p for p in taken if p.title == "Third Paper").abstract == "Now with an abstract."


def seed_entries() -> list:
    """Every entry the seeds' sources give, as the build reads and normalizes them."""
    from conftest import REPO

    from confsite.config import load_config
    from confsite.model.papers import normalize_source
    from confsite.readers.plugins import site_registry
    from confsite.readers.sources import read_source

    readers = site_registry(REPO)
    config = load_config(REPO / "site.yaml", Diagnostics(), readers)
    return [
        made
        for index, source in enumerate(config.sources)
        for made in normalize_source(read_source(config, source, readers), index)
    ]


def test_a_lone_entry_makes_the_paper_merging_it_would() -> None:
    """`lone_paper` (a group of one entry) against the general merge, on every seed entry and
    on entries with what a lone entry can hold that the seeds may not: no session, an empty
    room, a link or keyword stated twice, no authors, an empty title, no line."""
    import dataclasses

    from confsite.model.merge import lone_paper, merged_paper
    from confsite.model.records import Link

    made = entry(3, 1, title="A Paper", authors=("Ann", "Bo"), abstract=("Text.",))
    twice = Link("PDF", "https://example.org/a.pdf")
    edges = [
        dataclasses.replace(made, session=None),
        dataclasses.replace(made, room=""),
        dataclasses.replace(made, room="Hall A"),
        dataclasses.replace(made, links=(twice, twice), keywords=("x", "y", "x")),
        dataclasses.replace(made, awards=("Best Paper", "Best Paper")),
        dataclasses.replace(made, authors=(), affiliations=()),
        dataclasses.replace(made, title="", abstract=None, year=None, conference=None),
        dataclasses.replace(made, loc=SourceLoc("dump1.txt")),
    ]
    entries = [*seed_entries(), *edges]
    assert len(entries) > 1500
    for lone in entries:
        told = Diagnostics()
        assert lone_paper("an-id", lone) == merged_paper("an-id", [lone], told)
        assert told.problems == []


ABSTRACT = (
    "We count acorns with a transformer, and the count is right more often than not, in every "
    "forest we tried and in every season of the year we tried it in, more than squirrels manage."
)


@pytest.mark.parametrize(
    ("line", "authors"),
    [
        ("A Schmidt", ("A Schmidt",)),  # an initial "A", not a title's article
        ("Or Patashnik", ("Or Patashnik",)),
        ("xiang an", ("xiang an",)),
        ("Shenyang(Andy) Huang", ("Shenyang(Andy) Huang",)),
        ("Ada Quill", ("Ada Quill",)),
        ("Learning to Rank Acorns", ()),  # a title's words: a record of its own
    ],
)
def test_a_lone_author_between_title_and_abstract(line: str, authors: tuple[str, ...]) -> None:
    """A program page's record of one author, written in a way a title could be: read as the
    author line when an abstract follows it, not as another paper's title."""
    from confsite.readers.base import SourceText
    from confsite.readers.registry import Registry

    text = (
        "Poster Session 3\n\nIn-Person Poster presentation / poster accept\n"
        f"Counting Acorns with Transformers\n\n{line}\n\n{ABSTRACT}\n"
    )
    readers = Registry()
    records = readers.read(readers.by_name("session-2023"), SourceText("s.txt", text))
    read = [(r.title, r.authors) for r in records if r.title != "Poster Session 3"]
    if authors:
        assert read == [("Counting Acorns with Transformers", authors)]
    else:
        assert [title for title, _ in read] == ["Counting Acorns with Transformers", line]
