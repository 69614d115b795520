"""Authors as people (issue 18): spelling variants merged only with evidence, names shown in
repaired case, author pages grouped by year and venue with co-authors."""

from __future__ import annotations

import lxml.html
import pytest
from bs4 import BeautifulSoup

from confsite.diagnostics import Diagnostics, SourceLoc
from confsite.model.authors import AuthorOverrides, build_authors, display_case
from confsite.model.merge import merge_entries
from confsite.model.records import Entry
from confsite.model.slugs import title_slug
from confsite.pipeline import BuildResult


def entry(line: int, title: str, authors: tuple[str, ...], year: int = 2024) -> Entry:
    return Entry(
        loc=SourceLoc("dump.txt", line), source_index=0, title=title, authors=authors,
        affiliations=(), abstract=None, links=(), keywords=(), presentation=None, decision=None,
        attendance=None, awards=(), session=None, room=None, conference="ICLR", year=year,
        title_slug=title_slug(title),
    )  # fmt: skip


def people(
    *author_lists: tuple[str, ...], overrides: AuthorOverrides | None = None
) -> tuple[dict[str, tuple[str, ...]], Diagnostics]:
    """Each spelling to the spellings of the person it was merged into; and the notes."""
    papers = merge_entries(
        [entry(10 * n + 1, f"Paper {n}", names) for n, names in enumerate(author_lists)],
        Diagnostics(),
    )
    diagnostics = Diagnostics()
    authors = build_authors(tuple(papers), diagnostics, overrides or AuthorOverrides())
    return {s: a.spellings for a in authors for s in a.spellings}, diagnostics


def notes(diagnostics: Diagnostics, kind: str) -> list[str]:
    return [f"{p.loc}: {p.message}" for p in diagnostics.problems if p.kind == kind]


def test_a_middle_initial_variant_with_a_shared_coauthor_is_one_person() -> None:
    merged, diagnostics = people(
        ("Mengye Ren", "Simon Kornblith", "Geoffrey E Hinton"),
        ("Aniruddh Raghu", "Simon Kornblith", "Geoffrey Hinton"),
    )
    assert merged["Geoffrey Hinton"] == ("Geoffrey E Hinton", "Geoffrey Hinton")
    [note] = notes(diagnostics, "author-variant")
    assert note.startswith("dump.txt:")
    assert "Geoffrey E Hinton" in note and "Geoffrey Hinton" in note
    assert "Simon Kornblith" in note  # the evidence


def test_a_person_merged_from_variants_lists_each_paper_once_in_program_order() -> None:
    lists = [
        ("Geoffrey Hinton", "Simon Kornblith"),
        ("Geoffrey E Hinton", "Simon Kornblith"),
        ("Ann Lee", "ANN LEE"),  # one name key twice on one paper
        ("Geoffrey Hinton", "Geoffrey E. Hinton"),  # both spellings on one paper
        ("Geoffrey E Hinton",),
        ("Geoffrey Hinton",),
    ]
    papers = merge_entries(
        [entry(10 * n + 1, f"Paper {n}", names) for n, names in enumerate(lists)], Diagnostics()
    )
    by_name = {a.name: a for a in build_authors(tuple(papers), Diagnostics())}
    assert by_name["Geoffrey Hinton"].paper_ids == tuple(papers[n].id for n in (0, 1, 3, 4, 5))
    assert by_name["Ann Lee"].paper_ids == (papers[2].id,)


def test_variants_without_evidence_stay_apart_and_are_named_for_an_override() -> None:
    merged, diagnostics = people(
        ("Simon Shaolei Du", "Wei Hu"), ("Maryam Fazel", "Simon Du")
    )
    assert merged["Simon Du"] == ("Simon Du",)
    [note] = notes(diagnostics, "author-maybe")
    assert "Simon Du" in note and "Simon Shaolei Du" in note and "overrides.yaml" in note


def test_an_override_merges_without_a_shared_coauthor() -> None:
    same = AuthorOverrides(same=((("Simon Shaolei Du", "Simon Du"), SourceLoc("o.yaml", 3)),))
    merged, diagnostics = people(
        ("Simon Shaolei Du", "Wei Hu"), ("Maryam Fazel", "Simon Du"), overrides=same
    )
    assert merged["Simon Du"] == ("Simon Du", "Simon Shaolei Du")
    [note] = notes(diagnostics, "author-variant")
    assert "o.yaml:3" in note


def test_an_override_keeps_apart_people_who_share_a_coauthor() -> None:
    apart = AuthorOverrides(distinct=((("Wei Wang", "Wei X. Wang"), SourceLoc("o.yaml", 5)),))
    merged, _ = people(("Wei Wang", "Ann Lee"), ("Wei X. Wang", "Ann Lee"), overrides=apart)
    assert merged["Wei Wang"] == ("Wei Wang",)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Blake A Richards", "Blake B Richards"),  # different middle initials
        ("Blake Aaron Richards", "Blake Adam Richards"),
        ("Li Li", "Lu Li"),  # different given names
        ("Li Li", "Li Erran Lu"),
    ],
)
def test_different_names_are_never_merged_even_with_a_shared_coauthor(
    first: str, second: str
) -> None:
    merged, _ = people((first, "Ann Lee"), (second, "Ann Lee"))
    assert merged[first] == (first,)


def test_a_short_name_matching_two_different_people_is_left_alone() -> None:
    merged, diagnostics = people(
        ("Michael R Zhang", "Ann Lee"),
        ("Michael T Zhang", "Bo Chen"),
        ("Michael Zhang", "Ann Lee", "Bo Chen"),
    )
    assert merged["Michael Zhang"] == ("Michael Zhang",)
    assert merged["Michael R Zhang"] == ("Michael R Zhang",)
    assert notes(diagnostics, "author-maybe")


def test_last_comma_first_is_the_same_name() -> None:
    merged, _ = people(("Hinton, Geoffrey", "Ann Lee"), ("Geoffrey Hinton", "Bo Chen"))
    assert merged["Geoffrey Hinton"] == ("Geoffrey Hinton", "Hinton, Geoffrey")


@pytest.mark.parametrize(
    ("scraped", "shown"),
    [
        ("AJAY JAISWAL", "Ajay Jaiswal"),
        ("XU", "Xu"),
        ("Bin CUI", "Bin Cui"),
        ("SHUAI Zhang", "Shuai Zhang"),
        ("Irene Raissa KAMENI KAMENI", "Irene Raissa Kameni Kameni"),
        ("Vincent LE GUEN", "Vincent Le Guen"),
        ("MIGUEL ANGEL BAUTISTA MARTIN", "Miguel Angel Bautista Martin"),
        ("JOHN MCDONALD", "John McDonald"),
        ("MARLOS MACHADO", "Marlos Machado"),  # not "MacHado"
        ("sean o'neil", "Sean O'Neil"),
        ("odalric-ambrym maillard", "Odalric-Ambrym Maillard"),
        ("pierre luc carrier", "Pierre Luc Carrier"),
        ("Burigede liu", "Burigede Liu"),
        ("Amine El hattami", "Amine El Hattami"),
        ("mariano Phielipp", "Mariano Phielipp"),
        ("JAN VAN DER BERG", "Jan van der Berg"),
        ("LUDWIG VON MISES", "Ludwig von Mises"),
        ("SIMON DU", "Simon Du"),  # a family name, not a particle
        ("DI WU", "Di Wu"),
        # Left as they are: initials, particles, suffixes, mixed case.
        ("Casimir JH Ludwig", "Casimir JH Ludwig"),
        ("RJ Skerry-Ryan", "RJ Skerry-Ryan"),
        ("X.Y. Han", "X.Y. Han"),
        ("Donald Joseph Hejna III", "Donald Joseph Hejna III"),
        ("Aaron van den Oord", "Aaron van den Oord"),
        ("Carlo C del Mundo", "Carlo C del Mundo"),
        ("Remi Tachet des Combes", "Remi Tachet des Combes"),
        ("Yann LeCun", "Yann LeCun"),
        ("Sheila A. McIlraith", "Sheila A. McIlraith"),
    ],
)
def test_display_case(scraped: str, shown: str) -> None:
    assert display_case(scraped) == shown


# --- The seeds ---------------------------------------------------------------------------------

# Read by hand in seeds/: each pair differs by a middle name or initial, and the two spellings'
# papers share the co-author named (the line of each spelling is given).
SEED_MERGES = {
    ("Geoffrey E Hinton", "Geoffrey Hinton"): "Simon Kornblith",  # 2023:217, 2021:1174
    ("James Y Zou", "James Zou"): "Linjun Zhang",  # 2023:763, 2021:1530
    ("Joshua David Robinson", "Joshua Robinson"): "Suvrit Sra",  # 2021:2963, 2023:322
    ("Keith W. Ross", "Keith Ross"): "Che Wang",  # 2021:2400, 2024:434
    ("Klaus R Muller", "Klaus Robert Muller"): "Vandermeulen",  # 2024:1553, 2021:4313
    ("Michael Curtis Mozer", "Michael Mozer"): "Anirudh Goyal",  # 2021:1463, 2023:728
    ("Taylor Whittington Webb", "Taylor Webb"): "Jonathan Cohen",  # 2021:1550, 2024:1124
    ("Tommi S. Jaakkola", "Tommi Jaakkola"): "Regina Barzilay",  # 2021:2567, 2024:219
}
# No shared co-author in the seeds: merged by the entry in overrides.yaml.
OVERRIDE_MERGES = [("Simon Shaolei Du", "Simon Du")]  # 2021:15 (and four more), 2023:854
# Compatible spellings with no evidence: kept apart.
KEPT_APART = [
    ("Li Erran Li", "Li Li"),
    ("Blake A Richards", "Blake Aaron Richards"),
    ("Michael R Zhang", "Michael Zhang"),
    ("Xi Victoria Lin", "Xi Lin"),
]
AUTHORS_BEFORE = 4846  # the seeds' author pages before this work


@pytest.fixture(scope="module")
def author_of(seeds_build: BuildResult) -> dict[str, str]:
    """Each spelling in the seeds to its author page's folder, read from the built pages."""
    site = seeds_build.out_dir
    result = {}
    for page in (site / "authors").glob("*/index.html"):
        # lxml itself: BeautifulSoup is far slower over thousands of pages
        tree = lxml.html.fromstring(page.read_bytes())
        spellings = [tree.xpath("string(//h1)").strip()]
        spellings += [
            item.text_content().strip()
            for item in tree.xpath("//*[contains(concat(' ', @class, ' '), ' also-written ')]//li")
        ]
        for spelling in spellings:
            result[spelling] = page.parent.name
    return result


def test_seed_variants_merged_as_read_by_hand(author_of: dict[str, str]) -> None:
    for first, second in [*SEED_MERGES, *OVERRIDE_MERGES]:
        assert author_of[first] == author_of[second], (first, second)
    for first, second in KEPT_APART:
        assert author_of[first] != author_of[second], (first, second)


def test_seed_author_count_after_merging(seeds_build: BuildResult) -> None:
    assert seeds_build.authors == AUTHORS_BEFORE - len(SEED_MERGES) - len(OVERRIDE_MERGES)


def test_each_seed_merge_is_a_located_note(seeds_build: BuildResult) -> None:
    merges = [p for p in seeds_build.diagnostics.problems if p.kind == "author-variant"]
    assert len(merges) == len(SEED_MERGES) + len(OVERRIDE_MERGES)
    for problem in merges:
        assert problem.loc.path.startswith(("seeds/", "overrides.yaml")) and problem.loc.line
    text = "\n".join(p.message for p in merges)
    for (first, second), coauthor in SEED_MERGES.items():
        assert first in text and second in text and coauthor in text


def test_shouting_names_are_shown_in_repaired_case(author_of: dict[str, str]) -> None:
    for name in ("Ajay Jaiswal", "Miguel Angel Bautista Martin", "Bin Cui", "Sheng Zhao"):
        assert name in author_of
    for name in ("AJAY JAISWAL", "MIGUEL ANGEL BAUTISTA MARTIN", "Bin CUI", "sheng zhao"):
        assert name not in author_of  # neither the heading nor an "also written as"


def test_author_page_groups_by_year_and_venue_with_coauthors(
    seeds_build: BuildResult, author_of: dict[str, str]
) -> None:
    page = seeds_build.out_dir / "authors" / author_of["Tommi Jaakkola"] / "index.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")
    groups = [
        (h.contents[0].strip(), h.select_one(".count").get_text(" ", strip=True))
        for h in soup.select("section.venue-year h2")
    ]
    assert groups == [("ICLR 2024", "1 paper"), ("ICLR 2021", "1 paper")]
    coauthors = {
        li.a.get_text(strip=True): int(li.select_one(".count").get_text(" ", strip=True).split()[0])
        for li in soup.select(".coauthors li")
    }
    # Read by hand: iclr2021-accepted-papers.txt:2567 and iclr2024-poster-session-3.txt:219.
    assert coauthors == {
        "Adam Fisch": 2, "Tal Schuster": 2, "Regina Barzilay": 2,
        "Victor Quach": 1, "Adam Yala": 1, "Jae Ho Sohn": 1,
    }  # fmt: skip
    also = [li.get_text(strip=True) for li in soup.select(".also-written li")]
    assert {soup.h1.get_text(strip=True), *also} == {"Tommi Jaakkola", "Tommi S. Jaakkola"}


def test_the_authors_section_of_overrides_is_read_with_locations(tmp_path) -> None:
    from confsite.diagnostics import ConfsiteError
    from confsite.model.overrides import apply_overrides, author_overrides
    from confsite.yamlfile import load_yaml

    path = tmp_path / "overrides.yaml"
    path.write_text(
        "_authors:\n  same:\n    - [Simon Shaolei Du, Simon Du]\n"
        "  distinct:\n    - [Wei Wang, Wei X. Wang]\n",
        encoding="utf-8",
    )
    doc = load_yaml(path, "overrides.yaml")
    read = author_overrides(doc)
    assert read.same == ((("Simon Shaolei Du", "Simon Du"), SourceLoc("overrides.yaml", 3)),)
    assert read.distinct[0][0] == ("Wei Wang", "Wei X. Wang")
    assert apply_overrides(doc, []) == []  # "_authors" is no paper id
    path.write_text("_authors:\n  alike:\n    - [A B, A C B]\n", encoding="utf-8")
    with pytest.raises(ConfsiteError, match=r"overrides.yaml:2: .*unknown list"):
        author_overrides(load_yaml(path, "overrides.yaml"))
    path.write_text("_authors:\n  same:\n    - [A B]\n", encoding="utf-8")
    with pytest.raises(ConfsiteError, match=r"overrides.yaml:3: .*at least two"):
        author_overrides(load_yaml(path, "overrides.yaml"))


def test_an_override_naming_no_author_is_a_warning() -> None:
    same = AuthorOverrides(same=((("Nobody Here", "Ann Lee"), SourceLoc("o.yaml", 3)),))
    _, diagnostics = people(("Ann Lee", "Bo Chen"), overrides=same)
    [warning] = diagnostics.warnings
    assert str(warning.loc) == "o.yaml:3" and "Nobody Here" in warning.message
