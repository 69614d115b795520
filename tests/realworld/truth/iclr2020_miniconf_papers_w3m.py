"""Ground truth for iclr2020-miniconf-papers-w3m.

The dump is a 'w3m -dump' text-browser capture of the saved HTML page in
iclr2020-miniconf-papers-html; its truth is the parse of that HTML (687 papers).
"""

import importlib.util
import pathlib

_HTML_TRUTH = pathlib.Path(__file__).with_name("iclr2020_miniconf_papers_html.py")


def parse(path: pathlib.Path) -> list[dict]:
    spec = importlib.util.spec_from_file_location("_iclr2020_papers_html_truth", _HTML_TRUTH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    html = pathlib.Path(path).parent.parent / "iclr2020-miniconf-papers-html" / "dump.html"
    return module.parse(html)
