"""Search benchmark: index build time, bytes shipped, and time to first results in Chromium.

For the seeds and for synthetic corpora (bench/corpus.py) it reports: the time to build the
search index; the bytes of the compact index and of the document store, raw and gzipped, next
to lunr.py's default `serialize()` of the same documents (referenced by paper id, as lunr is
normally used); the time in headless Chromium from the first keystroke in the header box to
the first results shown, index loading included; and the median time of a query on the search
page once loaded.

    python bench/search_bench.py                  # seeds, 5,000 and 10,000 papers
    python bench/search_bench.py --sizes 1000     # seeds and one synthetic size
    python bench/search_bench.py --json out.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from corpus import write_corpus  # noqa: E402
from lunr import lunr  # noqa: E402

from confsite.diagnostics import Diagnostics  # noqa: E402
from confsite.model.site import build_site  # noqa: E402
from confsite.pipeline import BuildOptions, build  # noqa: E402
from confsite.render.search_index import (  # noqa: E402
    FIELDS,
    RECORD,
    compact_index,
    document_store,
    search_document,
)
from confsite.render.terms import snippet  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-quic"]
KEY_DELAY_MS = 60  # a brisk typist
QUERIES = [
    "graph",
    "diffusion models",
    "reinforcement learning",
    "transformer",
    "kernel",
    "wang",
    "optimization",
    "contrastive",
    "language model",
    "robust",
    "attention",
    "generalization bounds",
    "neural networks",
    "sparse",
    "federated",
    "image",
    "bayesian",
    "adversarial",
    "policy gradient",
    "benchmark",
]


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def compact_json(data) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def measure_index(site) -> dict:
    documents = [search_document(n, paper, site) for n, paper in enumerate(site.papers)]
    started = time.perf_counter()
    index = compact_index(documents)
    store = {
        **document_store(site.papers, site),
        "snippets": RECORD.join(map(snippet, site.papers)),
    }
    build_seconds = time.perf_counter() - started
    for document, paper in zip(documents, site.papers, strict=True):
        document["id"] = paper.id
    started = time.perf_counter()
    default = lunr(
        ref="id", fields=[{"field_name": f, "boost": b} for f, b in FIELDS], documents=documents
    )
    default_seconds = time.perf_counter() - started
    default_bytes = json.dumps(default.serialize()).encode()
    numbered = lunr(
        ref="ref", fields=[{"field_name": f, "boost": b} for f, b in FIELDS], documents=documents
    )
    numbered_bytes = json.dumps(numbered.serialize()).encode()
    index_bytes, store_bytes = compact_json(index), compact_json(store)
    return {
        "papers": len(site.papers),
        "index_build_s": round(build_seconds, 2),
        "lunr_default_build_s": round(default_seconds, 2),
        "index_bytes": len(index_bytes),
        "index_gz": gz(index_bytes),
        "store_bytes": len(store_bytes),
        "store_gz": gz(store_bytes),
        "lunr_default_bytes": len(default_bytes),
        "lunr_default_gz": gz(default_bytes),
        "ratio_gz": round((gz(index_bytes) + gz(store_bytes)) / gz(default_bytes), 3),
        "lunr_numbered_gz": gz(numbered_bytes),
        "ratio_numbered_gz": round((gz(index_bytes) + gz(store_bytes)) / gz(numbered_bytes), 3),
    }


# Its `done` resolves with the time from the first keystroke in the header box (the box was
# just focused, which is when the index starts to load) to the first results shown.
FIRST_RESULTS_JS = """
() => ({ done: new Promise((resolve) => {
  const input = document.querySelector('#site-search');
  const panel = document.querySelector('.search-preview');
  let started = null;
  input.addEventListener('keydown', () => { if (started === null) started = performance.now(); });
  const observer = new MutationObserver(() => {
    if (started !== null && panel.querySelector('.search-result')) {
      observer.disconnect();
      resolve(performance.now() - started);
    }
  });
  observer.observe(panel, {childList: true, subtree: true});
}) })
"""

QUERY_TIME_JS = """
async (queries) => {
  const input = document.querySelector('#search-input');
  const times = [];
  for (const q of queries) {
    const started = performance.now();
    input.value = q;
    input.dispatchEvent(new Event('input'));
    times.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 10));
  }
  return times;
}
"""


def measure_browser(site_dir: Path, runs: int = 5) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        first_results = []
        for run in range(runs):
            page = browser.new_page()
            page.goto((site_dir / "index.html").as_uri())
            waiting = page.evaluate_handle(FIRST_RESULTS_JS)
            page.click("#site-search")
            page.keyboard.type(QUERIES[run % len(QUERIES)], delay=KEY_DELAY_MS)
            first_results.append(page.evaluate("(watch) => watch.done", waiting))
            page.close()
        page = browser.new_page()
        page.goto((site_dir / "search" / "index.html").as_uri())
        page.wait_for_function("document.querySelector('#search-page:not(.is-loading)')")
        query_times = page.evaluate(QUERY_TIME_JS, QUERIES)
        browser.close()
    return {
        "first_results_ms": round(statistics.median(first_results), 1),
        "first_results_max_ms": round(max(first_results), 1),
        "query_median_ms": round(statistics.median(query_times), 2),
    }


def run(name: str, config: Path, workdir: Path) -> dict:
    diagnostics = Diagnostics()
    started = time.perf_counter()
    result = build(BuildOptions(config, workdir / f"site-{name}"), diagnostics)
    build_seconds = time.perf_counter() - started
    site = build_site(result.config, result.papers, (), None, Diagnostics())
    row = {"corpus": name, "site_build_s": round(build_seconds, 1), **measure_index(site)}
    row.update(measure_browser(result.out_dir))
    return row


def print_table(rows: list[dict]) -> None:
    header = (
        "corpus",
        "papers",
        "index build s",
        "index gz KB",
        "store gz KB",
        "lunr default gz KB",
        "ratio",
        "lunr numbered refs gz KB",
        "ratio",
        "first results ms",
        "query ms",
    )
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        print(
            " | ".join(
                str(v)
                for v in (
                    r["corpus"],
                    r["papers"],
                    r["index_build_s"],
                    round(r["index_gz"] / 1024),
                    round(r["store_gz"] / 1024),
                    round(r["lunr_default_gz"] / 1024),
                    f"{r['ratio_gz']:.0%}",
                    round(r["lunr_numbered_gz"] / 1024),
                    f"{r['ratio_numbered_gz']:.0%}",
                    r["first_results_ms"],
                    r["query_median_ms"],
                )
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[5000, 10000])
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as temp:
        workdir = Path(temp)
        rows.append(run("seeds", REPO / "site.yaml", workdir))
        for size in args.sizes:
            config = write_corpus(size, workdir / f"corpus-{size}")
            rows.append(run(f"{size:,}", config, workdir))
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
