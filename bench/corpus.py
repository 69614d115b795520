"""A deterministic synthetic corpus for benchmarks, written as dumps in the seed formats.

Text is drawn from the real seeds: titles are recombined from two seed titles, authors are
sampled from the seed author pool, abstracts are runs of seed sentences. Papers are spread
over conferences, years and sessions of about 100 papers; each session becomes one dump in
one of the session-2023, session-2024 or markdown-list formats, so the readers are exercised.

    python bench/corpus.py 10000 /tmp/corpus-10k   # writes dumps and a site.yaml there
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


def generate(count: int, seed: int = 2024) -> list[SyntheticPaper]:
    titles, authors, sentences = seed_material()
    rng = random.Random(seed)
    seen: set[str] = set()
    papers: list[SyntheticPaper] = []
    while len(papers) < count:
        title = _title(rng, titles)
        key = title_key(title)
        if key in seen:
            continue
        seen.add(key)
        papers.append(
            SyntheticPaper(
                title=title,
                authors=tuple(rng.sample(authors, rng.randint(1, 8))),
                abstract=" ".join(rng.sample(sentences, rng.randint(4, 10))),
                kind=rng.choices(("Poster", "Spotlight", "Oral"), weights=(80, 15, 5))[0],
            )
        )
    return papers


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


def write_corpus(count: int, folder: Path, seed: int = 2024) -> Path:
    """Write the dumps and a site.yaml for `count` papers into `folder`; returns site.yaml."""
    folder.mkdir(parents=True, exist_ok=True)
    dumps = folder / "dumps"
    dumps.mkdir(exist_ok=True)
    papers = generate(count, seed)
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
    config = folder / "site.yaml"
    config.write_text(
        f"title: Synthetic proceedings ({count} papers)\nsources:\n" + "".join(sources),
        encoding="utf-8",
    )
    return config


if __name__ == "__main__":
    print(write_corpus(int(sys.argv[1]), Path(sys.argv[2])))
