"""Ground truth for acl2024-best-papers-awards-md (ACL 2024 website, best_papers.md).

An awards post: ``## Best Paper Awards``, ``## Best Social Impact Paper Awards``,
``## Best Resource Paper Awards``, ``## Best Theme Paper Awards``,
``## Outstanding Papers``, ``## SAC Awards``. One bullet per paper:
``* **Title**<br>*A, B, C*``; in the SAC section an area line sits between
title and authors: ``* **Title**<br><u>Area</u><br>*A, B*`` (the area is not an
author). Author lists use ``,`` or, in some entries, ``;`` with no space; there is
no "and". A paper that won twice is listed twice. Titles are kept as stated,
including a stray trailing ``"``.
"""

import pathlib
import re

LINE = re.compile(r"^\* \*\*(.+?)\*\*<br>(?:<u>[^<]*</u><br>)?\*([^*]+)\*\s*$")


def parse(path: pathlib.Path) -> list[dict]:
    papers = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        m = LINE.match(line.strip())
        if m:
            authors = [re.sub(r"\s+", " ", a).strip() for a in re.split(r"[,;]", m.group(2))]
            papers.append(
                {
                    "title": re.sub(r"\s+", " ", m.group(1)).strip(),
                    "authors": [a for a in authors if a],
                    "abstract": None,
                }
            )
    return papers
