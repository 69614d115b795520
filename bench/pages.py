"""Each kind of page timed in one process: for every page of a site, its key, its context and
its rendering, summed by template, with a digest of all the HTML so that a change meant to be
invisible can be checked to be so. No worker, no cache, nothing written: the seconds are the
page code's and Jinja's alone, which a whole build's spread hides.

    python bench/pages.py /tmp/corpus-10k/site.yaml [--repeat 3] [--profile author.html]
    python bench/corpus.py 10000 /tmp/corpus-10k prolific   # to make a corpus first

Paper pages are given related papers by a fixed rule (five papers further on in the site's
order), as the corpus worker's are not computed here.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from confsite.cache.inputs import CachedReading
from confsite.cache.page_keys import page_key
from confsite.config import load_config
from confsite.diagnostics import Diagnostics
from confsite.model.papers import load_author_overrides
from confsite.model.site import Site, build_site
from confsite.readers.plugins import site_registry
from confsite.render.assets import build_fingerprint, theme_folder
from confsite.render.jinja import make_environment
from confsite.render.views import KeyedPage, Page, Views

RELATED = 5


def site_of(config_path: Path) -> tuple[Site, bytes]:
    diagnostics = Diagnostics()
    readers = site_registry(config_path.parent)
    config = load_config(config_path, diagnostics, readers)
    fingerprint = build_fingerprint(theme_folder(config))
    reading = CachedReading(config, fingerprint, None, readers)
    papers = reading.merge(reading.read(), diagnostics)
    people = load_author_overrides(config)
    return build_site(config, papers, (), None, diagnostics, people), fingerprint


def keyed_and_made(maker: Callable[[], Page] | KeyedPage, salt: bytes) -> tuple[float, float, Page]:
    """Seconds to key the page and to make its context (a `KeyedPage` with a key is keyed
    first, the others made first and keyed by their context), and the page."""
    started = time.perf_counter()
    if isinstance(maker, KeyedPage) and maker.key is not None:
        maker.key(salt)
        keyed = time.perf_counter()
        page = maker.make()
        return keyed - started, time.perf_counter() - keyed, page
    page = maker.make() if isinstance(maker, KeyedPage) else maker()
    made = time.perf_counter()
    page_key(salt, page)
    return time.perf_counter() - made, made - started, page


def time_pages(site: Site, salt: bytes, profiled: str | None) -> tuple[dict, str]:
    """Seconds of key, context and rendering per template, pages per template, and a digest
    of every page's HTML in order."""
    views, environment = Views(site), make_environment(None)
    ids = [paper.id for paper in site.papers]
    views.related.update(
        {
            paper_id: tuple(ids[(n + k) % len(ids)] for k in range(1, RELATED + 1))
            for n, paper_id in enumerate(ids)
        }
    )
    makers = views.page_makers() + [views.paper_page(p) for p in views.papers_in_order()]
    seconds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    html_digest = hashlib.sha256()
    profile = cProfile.Profile()
    for maker in makers:
        key_seconds, context_seconds, page = keyed_and_made(maker, salt)
        template = environment.get_template(page.template)
        rendering = time.perf_counter()
        if page.template == profiled:
            profile.enable()
        html = template.render(page.context)
        profile.disable()
        done = time.perf_counter()
        html_digest.update(html.encode())
        entry = seconds[page.template]
        entry[0] += 1
        entry[1] += key_seconds
        entry[2] += context_seconds
        entry[3] += done - rendering
    if profiled:
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    return seconds, html_digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--repeat", type=int, default=1, help="runs; the fastest is shown")
    parser.add_argument("--profile", metavar="TEMPLATE", help="profile rendering this template")
    args = parser.parse_args()
    site, salt = site_of(args.config.resolve())
    runs = [time_pages(site, salt, args.profile) for _ in range(args.repeat)]
    digests = {digest for _, digest in runs}
    best = min(runs, key=lambda run: sum(sum(entry[1:]) for entry in run[0].values()))[0]
    print(f"{'template':16} {'pages':>7} {'key s':>7} {'context s':>10} {'render s':>9}")
    for template, (count, key, context, render) in sorted(best.items()):
        print(f"{template:16} {count:7} {key:7.2f} {context:10.2f} {render:9.2f}")
    pages = sum(entry[0] for entry in best.values())
    key, context, render = (sum(entry[i] for entry in best.values()) for i in (1, 2, 3))
    print(f"{'all':16} {pages:7} {key:7.2f} {context:10.2f} {render:9.2f}")
    print("html digest", ", ".join(sorted(digests)))
    sys.exit(0 if len(digests) == 1 else 1)


if __name__ == "__main__":
    main()
