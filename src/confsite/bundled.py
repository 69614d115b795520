"""Where confsite's own templates, static assets and lunr.js are: inside the installed package
(a wheel carries them there), or beside the source tree for an editable install."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
# The repository holds templates/ and static/ at its top level and gets lunr.js from npm; the
# wheel build (setup.py) copies them to these places inside the package.
PACKAGED_TEMPLATES = PACKAGE_ROOT / "templates"
PACKAGED_STATIC = PACKAGE_ROOT / "static"
PACKAGED_LUNR_JS = PACKAGE_ROOT / "vendor" / "lunr" / "lunr.js"
CHECKOUT_ROOT = PACKAGE_ROOT.parent.parent  # src/confsite/ → the repository


@dataclass(frozen=True)
class BundledAssets:
    templates: Path
    static: Path
    lunr_js: Path
    installed: bool  # False: found beside the checkout (editable install)


def locate() -> BundledAssets:
    """The installed package's copies when it has them, else the checkout's. One or the other
    whole, never a mix: a wheel always carries all three."""
    if PACKAGED_TEMPLATES.is_dir():
        return BundledAssets(PACKAGED_TEMPLATES, PACKAGED_STATIC, PACKAGED_LUNR_JS, True)
    return BundledAssets(
        CHECKOUT_ROOT / "templates",
        CHECKOUT_ROOT / "static",
        CHECKOUT_ROOT / "node_modules" / "lunr" / "lunr.js",
        False,
    )


BUNDLED = locate()
