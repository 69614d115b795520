"""Ground truth for icml2025-poster-session-lynx.

The dump is 'lynx -dump -width=80' text-browser capture of the saved HTML page in
icml2025-poster-session-html; its truth is the parse of that HTML.
"""

import importlib.util
import pathlib

_HTML_TRUTH = pathlib.Path(__file__).with_name("icml2025_poster_session_html.py")


def parse(path: pathlib.Path) -> list[dict]:
    spec = importlib.util.spec_from_file_location("_icml2025_html_truth", _HTML_TRUTH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    html = pathlib.Path(path).parent.parent / "icml2025-poster-session-html" / "dump.html"
    return module.parse(html)
