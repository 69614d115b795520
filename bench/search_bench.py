"""Search benchmark: the targets of issue 16, measured, with the table they go in.

For the seeds and for synthetic corpora (bench/corpus.py) it reports: the time to make the
search files; the shards and the bytes of the index entry; the bytes a first search downloads
(gzip, code + index entry + the shards and result cards it asks for, as served over HTTP with
gzip), median and largest over the queries; the time in headless Chromium from the first
keystroke in the header box (focused just before, when loading starts) to the first results
shown, on this desktop and, for the seeds, with 4× CPU throttling and a 4G profile (9 Mbps,
170 ms round trip); and the median and 95th percentile time per keystroke once search has
loaded, over the keystrokes whose results show (a wide prefix waits for more letters).
Vocabulary parity (tokens whose terms differ from lunr.js's, over the seeds, an English word
list and a list of personal names) is counted once.

A synthetic corpus's search files are put into a copy of the seeds site's home and search
pages: only search is measured, and building 100,000 paper pages is not needed for that.

    python bench/search_bench.py                     # seeds, 10,000 and 100,000 papers
    python bench/search_bench.py --sizes 10000       # seeds and one synthetic size
    python bench/search_bench.py --json out.json
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from corpus import write_corpus  # noqa: E402

from confsite.cache.inputs import CachedReading  # noqa: E402
from confsite.cache.terms import TermCache  # noqa: E402
from confsite.config import load_config  # noqa: E402
from confsite.diagnostics import Diagnostics  # noqa: E402
from confsite.model.site import build_site  # noqa: E402
from confsite.pipeline import BuildOptions, build  # noqa: E402
from confsite.readers.plugins import site_registry  # noqa: E402
from confsite.render.search_index import search_files  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-quic"]
KEY_DELAY_MS = 60  # a brisk typist
CODE = ("assets/lunr.js", "assets/search-terms.js", "assets/search-index.js", "assets/search.js")
QUERIES = [
    "graph", "diffusion models", "reinforcement learning", "transformer", "kernel", "wang",
    "optimization", "contrastive", "language model", "robust", "attention",
    "generalization bounds", "neural networks", "sparse", "federated", "image", "bayesian",
    "adversarial", "policy gradient", "benchmark",
]
# 4G as Chrome's DevTools and WebPageTest define it, with Chromium's 4× CPU slowdown.
MOBILE = {"latency": 170, "throughput": 9_000_000 / 8, "cpu": 4}


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 6))


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files gzipped, as a static host does; logs nothing."""

    def do_GET(self) -> None:  # noqa: N802 (the base class's name)
        path = Path(self.translate_path(self.path.split("?")[0]))
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            self.send_error(404)
            return
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(GzipHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def corpus_site(config_path: Path, seeds_site: Path, out: Path) -> dict:
    """The seeds site's home and search pages and assets, with the corpus's search files."""
    diagnostics = Diagnostics()
    readers = site_registry(config_path.parent)
    config = load_config(config_path, diagnostics, readers)
    reading = CachedReading(config, b"", None, readers)
    papers = reading.merge(reading.read(), diagnostics)
    site = build_site(config, papers, (), None, diagnostics)
    started = time.perf_counter()
    terms = TermCache(None, b"").paper_terms(site.papers)
    files = {file.path: file.make() for file in search_files(site, terms, b"")}
    seconds = time.perf_counter() - started
    out.mkdir(parents=True)
    shutil.copytree(seeds_site / "assets", out / "assets")
    shutil.copy(seeds_site / "index.html", out / "index.html")
    for path, data in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    shutil.copy(seeds_site / "search" / "index.html", out / "search" / "index.html")
    return {"papers": len(site.papers), "search_files_s": round(seconds, 1)}


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

# Each keystroke's time from its input event to the preview showing that text's results (its
# "See all" link names the text): an earlier keystroke's results may still be filling in. null
# when they do not show within 2 s: a wide prefix waits for more letters by design.
KEYSTROKES_JS = """
async (queries) => {
  const input = document.querySelector('#site-search');
  const panel = document.querySelector('.search-preview');
  const times = [];
  for (const query of queries) {
    for (let i = 1; i <= query.length; i++) {
      const wanted = '?q=' + encodeURIComponent(query.slice(0, i).trim());
      const shows = () => {
        const all = panel.querySelector('a.search-all');
        return all !== null && all.getAttribute('href').endsWith(wanted);
      };
      const changed = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (shows()) { observer.disconnect(); resolve(); }
        });
        observer.observe(panel, {childList: true, subtree: true, characterData: true});
      });
      const started = performance.now();
      input.value = query.slice(0, i);
      input.dispatchEvent(new Event('input'));
      const late = new Promise((r) => setTimeout(() => r('late'), 2000));
      const outcome = await Promise.race([changed, late]);
      times.push(outcome === 'late' ? null : performance.now() - started);
    }
  }
  return times;
}
"""


def first_search(browser, url: str, query: str, mobile: bool = False) -> tuple[float, list[str]]:
    """Milliseconds from the first keystroke to the first results, and the files fetched."""
    context = browser.new_context()
    page = context.new_page()
    fetched: list[str] = []
    page.on("requestfinished", lambda request: fetched.append(request.url))
    if mobile:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": MOBILE["latency"],
            "downloadThroughput": MOBILE["throughput"], "uploadThroughput": MOBILE["throughput"],
        })
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": MOBILE["cpu"]})
    page.goto(url + "index.html")
    page.wait_for_load_state("load")
    before = len(fetched)
    waiting = page.evaluate_handle(FIRST_RESULTS_JS)
    page.click("#site-search")
    page.keyboard.type(query, delay=KEY_DELAY_MS)
    elapsed = page.evaluate("(watch) => watch.done", waiting)
    page.wait_for_timeout(300)  # the cards of the results shown
    context.close()
    return elapsed, fetched[before:]


def measure_browser(site_dir: Path, mobile: bool) -> dict:
    from playwright.sync_api import sync_playwright

    server, url = serve(site_dir)
    code = sum(gz((site_dir / path).read_bytes()) for path in CODE)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            times, downloads = [], []
            for query in QUERIES[:8]:
                elapsed, fetched = first_search(browser, url, query)
                times.append(elapsed)
                paths = {u.removeprefix(url) for u in fetched}
                downloads.append(code + sum(
                    gz((site_dir / p).read_bytes()) for p in paths
                    if p.startswith("search/") and p.endswith(".js")
                ))
            row = {
                "first_search_kb": round(statistics.median(downloads) / 1024),
                "first_search_max_kb": round(max(downloads) / 1024),
                "first_results_ms": round(statistics.median(times)),
                "first_results_max_ms": round(max(times)),
            }
            if mobile:
                slow = [first_search(browser, url, q, mobile=True)[0] for q in QUERIES[:5]]
                row["mobile_first_results_ms"] = round(statistics.median(slow))
                row["mobile_first_results_max_ms"] = round(max(slow))
            page = browser.new_page()
            page.goto(url + "index.html")
            page.click("#site-search")
            page.keyboard.type("graph", delay=KEY_DELAY_MS)
            page.wait_for_selector(".search-preview .search-result")
            times = page.evaluate(KEYSTROKES_JS, QUERIES[1:])
            strokes = sorted(t for t in times if t is not None)
            row["keystroke_ms"] = round(statistics.median(strokes), 1)
            row["keystroke_p95_ms"] = round(strokes[int(0.95 * len(strokes))], 1)
            row["keystrokes"] = len(times)
            row["keystrokes_waiting"] = len(times) - len(strokes)
            browser.close()
    finally:
        server.shutdown()
    entry = (site_dir / "search" / "index.js").read_bytes()
    row["entry_gz_kb"] = round(gz(entry) / 1024)
    row["shards"] = len(list((site_dir / "search" / "terms").iterdir()))
    return row


def vocabulary_parity(workdir: Path) -> dict:
    """Tokens whose terms differ between render/terms.py and lunr.js in Node."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_search_terms import word_lists

    from confsite.render.terms import term, tokens

    words = [w for source in word_lists().values() for w in source]
    payload = workdir / "words.json"
    payload.write_text(json.dumps(words), encoding="utf-8")
    run = subprocess.run(["node", str(REPO / "tests" / "search_terms.js"), str(payload)],
                         capture_output=True, text=True, check=True, timeout=600)
    node = json.loads(run.stdout)["page"]
    differing = sum(
        1 for word, theirs in zip(words, node, strict=True)
        if [term(t) for t in tokens(word)] != theirs
    )
    return {"words": len(words), "differing": differing}


def print_table(rows: list[dict]) -> None:
    header = ("corpus", "papers", "search files s", "shards", "entry gz KB",
              "first search gz KB (median / max)", "first results ms (median / max)",
              "4× CPU + 4G first results ms", "keystroke ms (median / p95)",
              "keystrokes showing nothing new in 2 s")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        mobile = (f"{r['mobile_first_results_ms']} / {r['mobile_first_results_max_ms']}"
                  if "mobile_first_results_ms" in r else "")
        print(" | ".join(str(v) for v in (
            r["corpus"], f"{r['papers']:,}", r["search_files_s"], r["shards"], r["entry_gz_kb"],
            f"{r['first_search_kb']} / {r['first_search_max_kb']}",
            f"{r['first_results_ms']} / {r['first_results_max_ms']}", mobile,
            f"{r['keystroke_ms']} / {r['keystroke_p95_ms']}",
            f"{r['keystrokes_waiting']} of {r['keystrokes']}",
        )))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as temp:
        workdir = Path(temp)
        parity = vocabulary_parity(workdir)
        print(f"vocabulary parity: {parity['differing']} of {parity['words']:,} words differ")
        seeds = build(BuildOptions(REPO / "site.yaml", workdir / "site-seeds"), Diagnostics())
        seeds_row = corpus_site(REPO / "site.yaml", seeds.out_dir, workdir / "seeds")
        rows.append({"corpus": "seeds", **seeds_row,
                     **measure_browser(workdir / "seeds", mobile=True)})
        for size in args.sizes:
            config = write_corpus(size, workdir / f"corpus-{size}")
            row = corpus_site(config, seeds.out_dir, workdir / f"site-{size}")
            rows.append({"corpus": f"{size:,}", **row,
                         **measure_browser(workdir / f"site-{size}", mobile=False)})
            print_table(rows)
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps({"parity": parity, "rows": rows}, indent=2) + "\n",
                             encoding="utf-8")


if __name__ == "__main__":
    main()
