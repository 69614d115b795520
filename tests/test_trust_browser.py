"""Proceedings a reader trusts (issue 18, part A), as Chromium shows them: no page wider than a
phone, a 404 page that works at any depth, controls a reader can see."""

from __future__ import annotations

import json

from confsite.pipeline import BuildResult

NARROW = {"width": 320, "height": 640}


def paper_ids(site_build: BuildResult) -> list[str]:
    papers = json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))
    return [paper["id"] for paper in papers]


def test_no_paper_page_is_wider_than_a_320px_phone(new_context, site_build: BuildResult) -> None:
    ids = paper_ids(site_build)
    page = new_context(viewport=NARROW, is_mobile=True, has_touch=True).new_page()
    wide = []
    for paper_id in ids:
        page.goto((site_build.out_dir / "papers" / paper_id / "index.html").as_uri(),
                  wait_until="domcontentloaded")  # deferred scripts have run, styles are in
        scroll, inner = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]")
        if scroll > inner:
            wide.append(f"{paper_id}: {scroll} px wide at {inner} px")
    assert len(ids) > 1000
    assert not wide, f"{len(wide)} of {len(ids)} paper pages scroll sideways:\n" + "\n".join(wide)
