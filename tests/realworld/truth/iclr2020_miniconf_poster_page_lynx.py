"""Ground truth for iclr2020-miniconf-poster-page-lynx.

The dump is a 'lynx -dump -width=80' text-browser capture of the saved HTML page in
iclr2020-miniconf-poster-page-html; its truth is the parse of that HTML (one paper; the
'Similar Papers' section is not this page's paper).
"""

import importlib.util
import pathlib

_HTML_TRUTH = pathlib.Path(__file__).with_name("iclr2020_miniconf_poster_page_html.py")


def parse(path: pathlib.Path) -> list[dict]:
    spec = importlib.util.spec_from_file_location("_iclr2020_poster_html_truth", _HTML_TRUTH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    html = pathlib.Path(path).parent.parent / "iclr2020-miniconf-poster-page-html" / "dump.html"
    return module.parse(html)
