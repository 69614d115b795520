"""Ground truth for hf-daily-papers-readme-md (AtharvaDomale/Daily-HuggingFace-AI-Papers
README.md: a bot-written digest of the Hugging Face Daily Papers page).

Mostly chrome: badges, "Why This Repo?", a Quick Start with code blocks whose
``# comments`` look like headings, statistics, archive tables, usage, licence.
The papers are the ``<details>`` blocks under ``## 🔥 Today's Trending Papers``:
``<summary><b>N. Title</b> ⭐ 66</summary>`` (rank number and star count are not
part of the title), a links line, a code line, then one ``> `` blockquote with
the page's summary/abstract text (often cut off with "..."; "No abstract
available." means none). Four entries add a ``**👥 Authors:** A, B, C`` line (checked by eye at
lines 386, 401, 416 and 431 of the stored file); the others give no authors.
"""

import pathlib
import re

BLOCK = re.compile(
    r"<details>\s*<summary><b>\d+\.\s+(.+?)</b>\s*⭐\s*\d+</summary>(.*?)</details>", re.S
)


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for m in BLOCK.finditer(text):
        quote = " ".join(line[2:] for line in m.group(2).splitlines() if line.startswith("> "))
        quote = re.sub(r"\s+", " ", quote).strip()
        if quote == "No abstract available.":
            quote = ""
        authors = re.search(r"\*\*👥 Authors:\*\*\s*(.+)", m.group(2))
        papers.append(
            {
                "title": re.sub(r"\s+", " ", m.group(1)).strip(),
                "authors": [a.strip() for a in authors.group(1).split(",")] if authors else [],
                "abstract": quote or None,
            }
        )
    return papers
