"""Score confsite's readers on the real-world corpus: per dump, papers right, missed and junk.

Each dump is described by `dumps/<name>.yaml` (provenance, layout, paper count) and has a ground
truth made by `truth/<name>.py`, a simple parser written for that one file and checked by eye;
neither uses confsite. The dumps themselves are third-party data and are not committed: they are
looked for in $CONFSITE_CORPUS, then ../shared/realworld beside the repository.

    python tests/realworld/score.py [--only NAME] [--show N] [--held-out]

Dumps marked `held_out: true` were gathered after the readers were tuned on the others, to
measure how reading generalises to files the readers were not fitted to.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NOT_WORD = re.compile(r"[\W_]+")


def corpus_folder() -> Path | None:
    candidates = [os.environ.get("CONFSITE_CORPUS"), REPO.parent / "shared" / "realworld"]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def key(text: str | None) -> str:
    """Letters and digits, casefolded: markup and punctuation differences are not errors."""
    return NOT_WORD.sub("", unicodedata.normalize("NFKC", text or "").casefold())


@dataclass(frozen=True)
class Dump:
    name: str
    path: Path
    meta: dict

    def truth(self) -> list[dict]:
        module_path = HERE / "truth" / f"{self.name.replace('-', '_')}.py"
        spec = importlib.util.spec_from_file_location(f"truth_{module_path.stem}", module_path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.parse(self.path)


def dumps(corpus: Path) -> list[Dump]:
    found = []
    for meta_path in sorted((HERE / "dumps").glob("*.yaml")):
        meta = yaml.safe_load(meta_path.read_text(encoding="utf-8"))
        found.append(Dump(meta_path.stem, corpus / meta["file"], meta))
    return found


@dataclass
class Score:
    name: str
    reader: str
    papers: int
    right: int = 0
    missed: int = 0
    junk: int = 0
    wrong: list[str] = field(default_factory=list)  # what differs, for --show
    error: str = ""


def paper_key(title: str | None, authors: list[str] | tuple[str, ...]) -> str:
    return key(title) if title else "untitled:" + "|".join(key(a) for a in authors)


def compare(truth: dict, record: dict) -> list[str]:
    """The fields where a read record differs from the truth (empty: fully right)."""
    problems = []
    if key(truth.get("title")) != key(record["title"]):
        problems.append(f"title {record['title']!r} != {truth.get('title')!r}")
    want_authors = [key(a) for a in truth.get("authors") or []]
    if want_authors != [key(a) for a in record["authors"]]:
        problems.append(f"authors {record['authors']!r} != {truth.get('authors')!r}")
    if truth.get("abstract") and key(truth["abstract"]) != key(record["abstract"]):
        got = (record["abstract"] or "")[:80]
        problems.append(f"abstract {got!r}… != {truth['abstract'][:80]!r}…")
    return problems


def read_records(path: Path) -> tuple[str, list[dict]]:
    """The dump read as a build would (format detected), as plain fields."""
    from confsite.readers.registry import Registry
    from confsite.readers.sources import load_source_text

    readers = Registry()
    source = load_source_text(path, str(path))
    reader = readers.sniff(source).reader
    records = [
        {
            "title": record.title,
            "authors": list(record.authors),
            "abstract": " ".join(record.abstract) or None,
        }
        for record in readers.read(reader, source)
    ]
    return reader.name, records


def score_dump(dump: Dump) -> Score:
    truth = dump.truth()
    score = Score(dump.name, "", len(truth))
    try:
        score.reader, records = read_records(dump.path)
    except Exception as err:  # a dump that is not read at all scores zero, with the reason
        score.missed, score.error = len(truth), str(err)[:200]
        return score
    pool: dict[str, list[dict]] = {}
    for record in records:
        pool.setdefault(paper_key(record["title"], record["authors"]), []).append(record)
    for paper in truth:
        candidates = pool.get(paper_key(paper.get("title"), paper.get("authors") or []))
        if not candidates:
            score.missed += 1
            score.wrong.append(f"missed: {paper.get('title')!r}")
            continue
        problems = compare(paper, candidates.pop(0))
        if problems:
            score.wrong.append("; ".join(problems))
        else:
            score.right += 1
    leftovers = [r for group in pool.values() for r in group]
    score.junk = len(leftovers)
    score.wrong += [f"junk: {r['title']!r} {r['authors'][:3]!r}" for r in leftovers]
    return score


def table(scores: list[Score]) -> str:
    rows = ["| dump | reader | papers | right | missed | junk |", "|---|---|---|---|---|---|"]
    for s in scores:
        reader = s.reader or f"not read: {s.error}"
        rows.append(f"| {s.name} | {reader} | {s.papers} | {s.right} | {s.missed} | {s.junk} |")
    papers = sum(s.papers for s in scores)
    right = sum(s.right for s in scores)
    junk = sum(s.junk for s in scores)
    read = sum(1 for s in scores if s.reader)
    share = 100 * right / max(papers, 1)
    rows.append(
        f"| **all {len(scores)} ({read} read)** | | {papers} | {right} ({share:.1f}%) "
        f"| {sum(s.missed for s in scores)} | {junk} ({100 * junk / max(papers, 1):.2f}%) |"
    )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="score the dumps whose name contains this")
    parser.add_argument("--show", type=int, default=0, help="show up to N differences per dump")
    parser.add_argument(
        "--held-out", action="store_true", help="only the dumps kept out of the readers' tuning"
    )
    args = parser.parse_args(argv)
    corpus = corpus_folder()
    if corpus is None:
        print("no corpus: set CONFSITE_CORPUS or put it in ../shared/realworld", file=sys.stderr)
        return 2
    scores = []
    for dump in dumps(corpus):
        if args.only and args.only not in dump.name:
            continue
        if args.held_out and not dump.meta.get("held_out"):
            continue
        score = score_dump(dump)
        scores.append(score)
        for line in score.wrong[: args.show]:
            print(f"{dump.name}: {line}")
    print(table(scores))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
