"""Reading speed on real dumps: per file, the seconds to pick a reader and read it, and the
papers a second; over the seeds and, when present, the real-world corpus (tests/realworld/).

    python bench/readers.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "realworld"))


def files() -> list[Path]:
    import score

    found = sorted((REPO / "seeds").glob("*.txt"))
    corpus = score.corpus_folder()
    if corpus is not None:
        found += [dump.path for dump in score.dumps(corpus)]
    return found


def time_read(path: Path, repeat: int) -> tuple[str, int, int, float]:
    from confsite.readers import general
    from confsite.readers.html_text import html_tree
    from confsite.readers.registry import Registry
    from confsite.readers.sources import load_source_text

    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        # What reading a source keeps for its next step: so each run reads from scratch.
        for kept in (general._records_of, general.pieces_of, html_tree):
            kept.cache_clear()
        source = load_source_text(path, str(path))
        readers = Registry()
        reader = readers.sniff(source).reader
        records = readers.read(reader, source)
        seconds.append(time.perf_counter() - start)
    return reader.name, path.stat().st_size, len(records), statistics.median(seconds)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per file; the median counts")
    args = parser.parse_args(argv)
    print("| file | reader | KB | records | seconds | records/s |")
    print("|---|---|---|---|---|---|")
    for path in files():
        name, size, count, seconds = time_read(path, args.repeat)
        label = path.parent.name if path.name.startswith("dump.") else path.name
        rate = count / seconds
        print(f"| {label} | {name} | {size // 1024} | {count} | {seconds:.2f} | {rate:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
