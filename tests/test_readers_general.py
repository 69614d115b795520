"""The general reader on small invented pages, one per layout family it reads: each file is
detected with no format forced and its records are compared with values written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from confsite.readers import general, sniff
from confsite.readers.base import RawRecord
from confsite.readers.sources import load_source_text


def read_file(tmp_path: Path, name: str, text: str, detected: bool = True) -> list[RawRecord]:
    """The records the general reader reads; `detected`: the registry picks it unforced (a
    layout a seed reader was written for goes to that reader instead)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    source = load_source_text(path, name)
    if detected:
        assert sniff(source).reader.name == "general"
    return list(general.read(source))


def fields(records: list[RawRecord]) -> list[tuple[str | None, tuple[str, ...]]]:
    return [(r.title, r.authors) for r in records]


VIRTUAL_SITE_TEXT = """\
Skip to yearly menu bar Skip to main content
Main Navigation
Login
Poster Session 2
Hall C
Chat is not available.

Spotlight Poster
Sparse Owls Learn Faster
Ada Quill · Ben Marsh · Cy Doyle
We show that owls with sparse feathers learn to fly sooner than owls with dense ones, \
in every one of the forty forests we visited over three long and rainy summers.

Poster
Counting Acorns with Transformers
Dee Finch · Eli Stone
Acorns are hard to count by hand, so we trained a model that counts them from photos \
taken by squirrels wearing small cameras, and it is right nine times in ten.

Successful Page Load
"""


def test_virtual_site_text(tmp_path: Path) -> None:
    records = read_file(tmp_path, "session.txt", VIRTUAL_SITE_TEXT)
    assert fields(records) == [
        ("Sparse Owls Learn Faster", ("Ada Quill", "Ben Marsh", "Cy Doyle")),
        ("Counting Acorns with Transformers", ("Dee Finch", "Eli Stone")),
    ]
    assert records[0].abstract[0].startswith("We show that owls")
    assert records[0].decision == "Spotlight"


TEXT_BROWSER_CAPTURE = """\
   [1]Skip to main content

     * [2]Home
     * [3]Schedule
     * [4]Papers
     * [5]Help
     * [6]Contact
   (BUTTON)

Poster Session 4

[7]Learning to Sort Pebbles by Colour with Very Small Recurrent Networks
and Noisy Labels

   Fay Moss · Gus Reed · Hal Vine · Ivy Lark · Jon Pike · Kim Wren · Lou
   Hart

   Pebbles come in many colours and sorting them is a classic test of
   perception for small robots working on river banks during the summer
   months, when the light changes quickly and labels are often wrong and
   the pebbles are wet, muddy and covered in small green plants that move.
   Poster
   #B-101

[8]Short Naps Improve Gradient Descent

   Max Rook · Ned Fern

   We let the optimiser rest for a few steps every epoch and find that the
   loss goes down faster afterwards on every benchmark that we have tried
   so far, from tiny toy problems to rather large language models, which
   surprised us, as resting is not usually thought of as a way to learn.
   Poster
   #B-102

[9]Mapping Puddles from Satellite Photos

   Oda Reyes · Pim Sato

   Puddles are small and short-lived, yet they matter to frogs, birds and
   people in boots; we map them from satellite photos taken after heavy
   rain and check the maps against the notes of volunteers who walked the
   streets with rulers, and find the maps are right in most of the towns.
   Poster
   #B-103

References

   Visible links:
   1. https://example.org/#main
   2. https://example.org/
   3. https://example.org/schedule
   4. https://example.org/papers
   5. https://example.org/help
   6. https://example.org/contact
   7. https://example.org/poster/1
   8. https://example.org/poster/2
   9. https://example.org/poster/3
"""


def test_text_browser_capture_with_wrap_and_link_references(tmp_path: Path) -> None:
    records = read_file(tmp_path, "capture.txt", TEXT_BROWSER_CAPTURE)
    assert fields(records) == [
        (
            "Learning to Sort Pebbles by Colour with Very Small Recurrent Networks and Noisy "
            "Labels",
            ("Fay Moss", "Gus Reed", "Hal Vine", "Ivy Lark", "Jon Pike", "Kim Wren", "Lou Hart"),
        ),
        ("Short Naps Improve Gradient Descent", ("Max Rook", "Ned Fern")),
        ("Mapping Puddles from Satellite Photos", ("Oda Reyes", "Pim Sato")),
    ]
    assert records[0].links == ("https://example.org/poster/1",)
    assert records[1].abstract[-1].endswith("a way to learn.")


BOLD_BR_ITALIC_MD = """\
# Accepted Papers

**Why Kettles Whistle: A Study of Steam**<br>_Nia Holt and Oto Grey_

**Folding Paper Cranes with Reinforcement Learning**<br>_Pia Lund, Quin Ash and Rue Bell_
"""


def test_markdown_bold_title_break_italic_authors(tmp_path: Path) -> None:
    assert fields(read_file(tmp_path, "list.md", BOLD_BR_ITALIC_MD)) == [
        ("Why Kettles Whistle: A Study of Steam", ("Nia Holt", "Oto Grey")),
        (
            "Folding Paper Cranes with Reinforcement Learning",
            ("Pia Lund", "Quin Ash", "Rue Bell"),
        ),
    ]


LINKED_TITLES_BY_MD = """\
## Long Papers

* [Tea Leaves as Weak Supervision](https://example.org/p/1) by Sam Dale, Tia Roe
* [A Benchmark for Umbrella Opening](https://example.org/p/2) by Uma Fox
* [Measuring the Wetness of Rain](https://example.org/p/3) by Val Kerr, Wes Lamb, Xia Moor
"""


def test_markdown_linked_titles_with_by_lines(tmp_path: Path) -> None:
    records = read_file(tmp_path, "linked.md", LINKED_TITLES_BY_MD, detected=False)
    assert fields(records) == [
        ("Tea Leaves as Weak Supervision", ("Sam Dale", "Tia Roe")),
        ("A Benchmark for Umbrella Opening", ("Uma Fox",)),
        ("Measuring the Wetness of Rain", ("Val Kerr", "Wes Lamb", "Xia Moor")),
    ]
    assert records[0].links == ("https://example.org/p/1",)
    assert records[2].session == "Long Papers"


CHECKLIST_MD = """\
# Reading list

- [ ] Graph Networks for Knitting Patterns
- [x] On the Stability of Sandcastles
- [ ] Predicting Queue Lengths at Bakeries
- [ ] Self-Supervised Learning of Bird Songs
- [x] A Survey of Teapot Designs
"""


def test_markdown_checklist_of_titles(tmp_path: Path) -> None:
    assert [r.title for r in read_file(tmp_path, "todo.md", CHECKLIST_MD)] == [
        "Graph Networks for Knitting Patterns",
        "On the Stability of Sandcastles",
        "Predicting Queue Lengths at Bakeries",
        "Self-Supervised Learning of Bird Songs",
        "A Survey of Teapot Designs",
    ]


NUMBERED_TEXT = """\
Accepted papers

1. Scaling Laws for Jam Jars
   Yan Cole, Zed Park

2. Attention Is All Pigeons Need
   Abe Rush

3. Zero-Shot Pancake Flipping
   Bea Snow, Cal Todd, Dan Vale
"""


def test_numbered_list(tmp_path: Path) -> None:
    assert fields(read_file(tmp_path, "numbered.txt", NUMBERED_TEXT)) == [
        ("Scaling Laws for Jam Jars", ("Yan Cole", "Zed Park")),
        ("Attention Is All Pigeons Need", ("Abe Rush",)),
        ("Zero-Shot Pancake Flipping", ("Bea Snow", "Cal Todd", "Dan Vale")),
    ]


MARKDOWN_TABLE = """\
# Orals

| Title | Authors |
|---|---|
| Robust Estimation of Soup Temperature | Eve Wood, Fin Yates |
| Hedgehog Detection at Night | Gil Abbot |
| Contrastive Learning of Cloud Shapes | Hana Berg, Ian Cobb, Joy Dunn |
"""


def test_markdown_table_with_headed_columns(tmp_path: Path) -> None:
    assert fields(read_file(tmp_path, "table.md", MARKDOWN_TABLE)) == [
        ("Robust Estimation of Soup Temperature", ("Eve Wood", "Fin Yates")),
        ("Hedgehog Detection at Night", ("Gil Abbot",)),
        ("Contrastive Learning of Cloud Shapes", ("Hana Berg", "Ian Cobb", "Joy Dunn")),
    ]


HTML_TABLE_WITH_AFFILIATIONS = """\
<html><body><table>
<tr><th>Paper ID</th><th>Paper Title</th><th>Author Names</th></tr>
<tr><td>3</td><td>Kernels for Knots</td><td>Kai Long, Uni A; Lia Mott*, Lab B</td></tr>
<tr><td>7</td><td>Bandits in the Bakery</td><td>Moe Nash, Uni C</td></tr>
<tr><td>9</td><td>Sparse Spoons</td><td>Ona Page, ; Pax Quay, Uni D</td></tr>
</table></body></html>
"""


def test_html_table_rows_by_column_name(tmp_path: Path) -> None:
    records = read_file(tmp_path, "accepted.html", HTML_TABLE_WITH_AFFILIATIONS)
    assert fields(records) == [
        ("Kernels for Knots", ("Kai Long", "Lia Mott")),
        ("Bandits in the Bakery", ("Moe Nash",)),
        ("Sparse Spoons", ("Ona Page", "Pax Quay")),
    ]
    assert records[0].affiliations == ("Uni A", "Lab B")


HTML_BOLD_ITALIC_AFFILIATIONS = """\
<html><body>
<h2>Accepted papers</h2>
<p><b>Quiet Quadrotors via Learned Propellers</b><br>
<i>Rex Shaw (North Uni) · Sue Tate (Lab East)</i></p>
<p><b>How Ants Find the Shortest Path to Sugar</b><br>
<i>Tom Upton (West Uni)</i></p>
</body></html>
"""


def test_html_bold_title_italic_authors_with_affiliations(tmp_path: Path) -> None:
    records = read_file(tmp_path, "papers.html", HTML_BOLD_ITALIC_AFFILIATIONS)
    assert fields(records) == [
        ("Quiet Quadrotors via Learned Propellers", ("Rex Shaw", "Sue Tate")),
        ("How Ants Find the Shortest Path to Sugar", ("Tom Upton",)),
    ]
    assert records[0].affiliations == ("North Uni", "Lab East")


SECTIONS_MD = """\
# Program

## Session 1: Vision

**Seeing Through Fog with Polarised Light**<br>_Uri Vance, Wil Webb_

## Best Paper Award

**The Geometry of Origami Cranes**<br>_Xan Young, Yuri Zane_
"""


def test_sections_become_session_and_award(tmp_path: Path) -> None:
    records = read_file(tmp_path, "program.md", SECTIONS_MD)
    assert [(r.title, r.session, r.awards) for r in records] == [
        ("Seeing Through Fog with Polarised Light", "Session 1: Vision", ()),
        ("The Geometry of Origami Cranes", "Program", ("Best Paper Award",)),
    ]


AWARDS_POST_MD = """\
# Meeting highlights

We are delighted to announce the papers chosen by the committee.

## Best Paper Awards

* **Teaching Robots to Fold Laundry**<br><u>Robotics</u><br>*Ann Bloom, Bob Crane*
* **Why Cats Ignore Laser Pointers**<br><u>Cognitive Modelling</u><br>*Cid Drake*

**Most Viewed**:
- [Fast Tea Brewing with Diffusion](https://example.org/v/1) _Dot Eames and Ed Frost_
"""


def test_awards_post(tmp_path: Path) -> None:
    records = read_file(tmp_path, "awards.md", AWARDS_POST_MD)
    assert fields(records) == [
        ("Teaching Robots to Fold Laundry", ("Ann Bloom", "Bob Crane")),
        ("Why Cats Ignore Laser Pointers", ("Cid Drake",)),
        ("Fast Tea Brewing with Diffusion", ("Dot Eames", "Ed Frost")),
    ]
    assert records[0].awards == ("Best Paper Awards",)


AGGREGATOR_MD = """\
# Trending papers today

Get trending papers in your email inbox!

<details>
<summary><b>1. Tiny Models Tell Tall Tales</b> ⭐ 66</summary>

**Links:** [arXiv](https://example.org/a/1) • [PDF](https://example.org/a/1.pdf)

> We find that very small language models invent longer stories than large ones.

</details>

<details>
<summary><b>2. Sleep-Time Compute for Toasters</b> ⭐ 12</summary>

**Links:** [arXiv](https://example.org/a/2) • [PDF](https://example.org/a/2.pdf)

> Toasters that think while idle make better toast in the morning.

</details>

<details>
<summary><b>3. Benchmarking Kettle Agents</b> ⭐ 3</summary>

**Links:** [arXiv](https://example.org/a/3) • [PDF](https://example.org/a/3.pdf)

> A benchmark of one hundred kettle tasks, from boiling to pouring.

</details>

12 upvotes
7 authors
Submitted by fern on Monday
"""


def test_aggregator_listing_counts_are_chrome(tmp_path: Path) -> None:
    records = read_file(tmp_path, "readme.md", AGGREGATOR_MD)
    assert [(r.title, r.authors) for r in records] == [
        ("Tiny Models Tell Tall Tales", ()),
        ("Sleep-Time Compute for Toasters", ()),
        ("Benchmarking Kettle Agents", ()),
    ]
    assert records[1].abstract == (
        "Toasters that think while idle make better toast in the morning.",
    )


@pytest.mark.parametrize(
    ("text", "chrome"),
    [
        ("12 upvotes", True),
        ("7 authors", True),
        ("Paper OpenReview Code Slides", True),
        ("Links: arXiv • PDF", True),
        ("Full Chat", True),
        ("Graph Networks for Knitting Patterns", False),
    ],
)
def test_chrome_lines(text: str, chrome: bool) -> None:
    from confsite.readers.line_kinds import is_chrome

    assert is_chrome(text) is chrome


def test_a_source_is_read_once_for_sniffing_and_reading(tmp_path: Path) -> None:
    """The registry sniffs a source, then reads it: the general reader makes its records
    once, whether a caller names the read options or leaves them to their default."""
    from confsite.config import load_config
    from confsite.diagnostics import Diagnostics
    from confsite.readers.plugins import site_registry
    from confsite.readers.sources import read_source

    (tmp_path / "program.txt").write_text(VIRTUAL_SITE_TEXT, encoding="utf-8")
    (tmp_path / "site.yaml").write_text(
        "title: A program\nsources:\n  - path: program.txt\n", encoding="utf-8"
    )
    readers = site_registry(tmp_path)
    config = load_config(tmp_path / "site.yaml", Diagnostics(), readers)
    general._records_of.cache_clear()
    read = read_source(config, config.sources[0], readers)
    assert read.reader.name == "general" and read.records
    assert general._records_of.cache_info().misses == 1
