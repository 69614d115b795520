"""A deterministic synthetic corpus for benchmarks, written as dumps in the seed formats.

Text is drawn from the real seeds: titles are recombined from two seed titles, authors are
sampled from the seed author pool, abstracts are runs of seed sentences. Programs come in
shapes (`SHAPES`), since what is fast for one can be slow for another:
- `sessions`: papers spread over conferences, years and sessions of about 100 papers, each
  session one dump in the session-2023, session-2024 or markdown-list format; one to eight
  authors a paper, each author on a few papers.
- `giant-list`: one accepted-paper list in Markdown with Poster/Spotlight/Oral, no sessions,
  as a conference's accepted-papers page is.
- `prolific`: sessions as above, but authors drawn from a power law over a pool of a fifth as
  many people as papers: the top authors have 50 papers or more.
- `long-math`: sessions as above, with abstracts three times as long and inline TeX math.

    python bench/corpus.py 10000 /tmp/corpus-10k [SHAPE]   # writes dumps and a site.yaml there
"""

from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from confsite.model.merge import title_key  # noqa: E402
from confsite.readers import sniff  # noqa: E402
from confsite.readers.sources import load_source_text  # noqa: E402

CONFERENCES = ("ICLR", "NeurIPS", "ICML", "ACL", "CVPR", "AAAI", "KDD")
YEARS = tuple(range(2013, 2026))
SESSION_SIZE = 100
FORMATS = ("session-2023", "session-2024", "markdown-list")
SHAPES = ("sessions", "giant-list", "prolific", "long-math")
MATH = (
    r"$\mathcal{O}(n \log n)$",
    r"$x_i^2 + y_i^2 \leq r^2$",
    r"$\sum_{i=1}^{n} w_i \phi(x_i)$",
    r"$\epsilon$",
    r"$\mathbb{E}_{x \sim p}[f(x)]$",
    r"$\|W\|_F$",
    r"$\alpha \in (0, 1]$",
)


@dataclass(frozen=True)
class SyntheticPaper:
    title: str
    authors: tuple[str, ...]
    abstract: str
    kind: str  # Poster, Spotlight or Oral


def seed_material() -> tuple[list[str], list[str], list[str]]:
    titles, authors, sentences = [], [], []
    for path in sorted((REPO / "seeds").glob("*.txt")):
        text = load_source_text(path, path.name)
        for record in sniff(text).reader.read(text):
            if record.title:
                titles.append(" ".join(record.title.split()))
            authors.extend(" ".join(a.split()) for a in record.authors)
            for paragraph in record.abstract:
                sentences.extend(s for s in re.split(r"(?<=[.!?])\s+", paragraph) if len(s) > 30)
    return sorted(set(titles)), sorted(set(authors)), sentences


def _title(rng: random.Random, titles: list[str]) -> str:
    first, second = rng.sample(titles, 2)
    if ":" in first and ":" in second:
        return first.split(":", 1)[0] + ":" + second.split(":", 1)[1]
    head = first.split()[: max(2, len(first.split()) // 2)]
    tail = second.split()[len(second.split()) // 2 :]
    return " ".join(head + tail)


def generate(count: int, seed: int = 2024, shape: str = "sessions") -> list[SyntheticPaper]:
    titles, authors, sentences = seed_material()
    rng = random.Random(seed)
    pick_authors = _prolific_authors(rng, authors, count) if shape == "prolific" else None
    seen: set[str] = set()
    papers: list[SyntheticPaper] = []
    while len(papers) < count:
        title = _title(rng, titles)
        key = title_key(title)
        if key in seen:
            continue
        seen.add(key)
        size = rng.randint(1, 8)
        names = pick_authors(size) if pick_authors else tuple(rng.sample(authors, size))
        papers.append(
            SyntheticPaper(
                title=title,
                authors=names,
                abstract=_abstract(rng, sentences, shape == "long-math"),
                kind=rng.choices(("Poster", "Spotlight", "Oral"), weights=(80, 15, 5))[0],
            )
        )
    return papers


def _prolific_authors(rng: random.Random, authors: list[str], count: int):
    """A pool of a fifth as many people as papers (first and last names of seed authors
    recombined), drawn by a power law: weight 1 / (rank + pool/20)."""
    firsts = sorted({a.split()[0] for a in authors if len(a.split()) >= 2})
    lasts = sorted({a.split()[-1] for a in authors if len(a.split()) >= 2})
    size = max(200, count // 5)
    pool: list[str] = []
    taken: set[str] = set()
    while len(pool) < size:
        name = f"{rng.choice(firsts)} {rng.choice(lasts)}"
        if name not in taken:
            taken.add(name)
            pool.append(name)
    weights = [1 / (rank + 1 + size // 20) for rank in range(size)]

    def pick(how_many: int) -> tuple[str, ...]:
        chosen = dict.fromkeys(rng.choices(pool, weights=weights, k=how_many))
        return tuple(chosen)

    return pick


def _abstract(rng: random.Random, sentences: list[str], long_math: bool) -> str:
    if not long_math:
        return " ".join(rng.sample(sentences, rng.randint(4, 10)))
    chosen = rng.sample(sentences, rng.randint(12, 30))
    return " ".join(
        f"{sentence[:-1]} with {rng.choice(MATH)}." if rng.random() < 0.3 else sentence
        for sentence in chosen
    )


def render_dump(papers: list[SyntheticPaper], form: str, session: str) -> str:
    lines: list[str] = []
    if form == "session-2023":
        lines += [session, ""]
        for p in papers:
            tier = {"Poster": "poster accept", "Spotlight": "top 25% paper", "Oral": "top 5% paper"}
            lines += [
                f"In-Person Poster presentation / {tier[p.kind]}",
                p.title,
                "",
                " · ".join(p.authors),
                "",
                p.abstract,
                "",
            ]
    elif form == "session-2024":
        lines += [
            "Skip to yearly menu bar Skip to main content",
            "",
            session,
            "",
            "Hall A",
            "Chat is not available.",
            "",
        ]
        for p in papers:
            if p.kind == "Spotlight":
                lines.append("Spotlight Poster")
            lines += [p.title, "", " · ".join(p.authors), "", p.abstract, ""]
    else:
        for p in papers:
            title = p.title.replace("$", "\\$").replace("_", "\\_")
            lines += [
                "",
                f"## [{title}](#)",
                "",
                "- " + ", ".join(p.authors),
                f"- abstract@[open-review\\({p.kind}\\)](#): {p.abstract}",
                "",
            ]
    return "\n".join(lines) + "\n"


def write_corpus(count: int, folder: Path, seed: int = 2024, shape: str = "sessions") -> Path:
    """Write the dumps and a site.yaml for `count` papers of `shape` into `folder`; returns
    site.yaml."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
    folder.mkdir(parents=True, exist_ok=True)
    dumps = folder / "dumps"
    dumps.mkdir(exist_ok=True)
    papers = generate(count, seed, shape)
    if shape == "giant-list":
        (dumps / "accepted.txt").write_text(render_dump(papers, "markdown-list", ""), "utf-8")
        sources = [
            "  - path: dumps/accepted.txt\n    format: markdown-list\n"
            "    conference: ICLR\n    year: 2021\n"
        ]
    else:
        sources = _session_dumps(papers, dumps)
    config = folder / "site.yaml"
    config.write_text(
        f"title: Synthetic proceedings ({count} papers, {shape})\nsources:\n" + "".join(sources),
        encoding="utf-8",
    )
    return config


def _session_dumps(papers: list[SyntheticPaper], dumps: Path) -> list[str]:
    sources: list[str] = []
    for number, start in enumerate(range(0, len(papers), SESSION_SIZE)):
        conference = CONFERENCES[number % len(CONFERENCES)]
        year = YEARS[(number // len(CONFERENCES)) % len(YEARS)]
        session = f"Poster Session {number // (len(CONFERENCES) * len(YEARS)) + 1}"
        form = FORMATS[number % len(FORMATS)]
        name = f"{number:04d}-{conference.lower()}-{year}.txt"
        chunk = papers[start : start + SESSION_SIZE]
        (dumps / name).write_text(render_dump(chunk, form, session), encoding="utf-8")
        sources.append(
            f"  - path: dumps/{name}\n    format: {form}\n    conference: "
            f"{conference}\n    year: {year}\n    session: {session}\n"
        )
    return sources


REAL_WORLD = "real-world"
NAME_VENUE = re.compile(r"([a-z]+(?:-[a-z]+)*?)-?(\d{4})")  # "colt2020-…", "se-conf-…"


def _scorer():  # noqa: ANN202 - tests/realworld/score.py, the corpus's own catalogue
    folder = str(REPO / "tests" / "realworld")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import score  # noqa: PLC0415

    return score


def real_world_corpus() -> Path | None:
    """Where the real-world corpus is, as its scorer finds it; None when it is not here."""
    return _scorer().corpus_folder()


def real_world_records() -> int:
    """The records the real-world dumps hold, by their catalogue: the site's size before
    merging, which the benchmark's size limits (MkDocs, repeats) are held against."""
    return sum(dump.meta["papers"] for dump in _scorer().dumps(Path()))


def write_real_world_site(folder: Path) -> Path | None:
    """Every dump of the real-world corpus (tests/realworld: third-party files, not committed,
    found in $CONFSITE_CORPUS or ../shared/realworld) copied into `folder` as one site, each
    dump a source and session, its conference and year read from its name; returns site.yaml,
    or None without the corpus. Real programs, unlike the synthetic ones: many authors with
    one or two papers, HTML pages, long TeX abstracts, the same papers in several dumps."""
    corpus = real_world_corpus()
    if corpus is None:
        return None
    copies = folder / "dumps"
    copies.mkdir(parents=True, exist_ok=True)
    sources = []
    for dump in _scorer().dumps(corpus):
        copy = copies / f"{dump.name}{dump.path.suffix}"
        copy.write_bytes(dump.path.read_bytes())
        venue = NAME_VENUE.match(dump.name)
        facts = f"    conference: {venue[1].upper()}\n    year: {venue[2]}\n" if venue else ""
        sources.append(f"  - path: dumps/{copy.name}\n{facts}    session: {dump.name}\n")
    config = folder / "site.yaml"
    config.write_text("title: Real-world dumps\nsources:\n" + "".join(sources), "utf-8")
    return config


if __name__ == "__main__":
    shape = sys.argv[3] if len(sys.argv) > 3 else "sessions"
    print(write_corpus(int(sys.argv[1]), Path(sys.argv[2]), shape=shape))
