"""The 404 page's context. A host serves 404.html for a missing URL at any depth, so relative
links would resolve from the wrong folder; without a base URL the page finds the site's root
itself, with a small inline script that sets `<base>` before any link or stylesheet loads."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from markupsafe import Markup

from ..model import urls
from ..model.site import Site

# The root is the folder above the first path segment that is one of the site's top-level
# names (recorded at build time: papers, authors, about, ...); for a URL with none of them
# ("/proceedings/old-page"), the nearest folder above that holds papers.json, every site's
# download. Opened from disk, the page is already at the root.
ROOT_SCRIPT = """(function () {
  if (location.protocol === "file:") return;
  var names = JSON.parse(document.currentScript.dataset.topLevel);
  var segments = location.pathname.split("/").slice(1);
  var folders = segments.slice(0, -1);
  var root = null;
  for (var i = 0; i < segments.length && root === null; i++) {
    if (names.indexOf(decodeURIComponent(segments[i])) >= 0) root = segments.slice(0, i);
  }
  for (var k = folders.length; root === null && k >= 0; k--) {
    var candidate = "/" + folders.slice(0, k).map(function (f) { return f + "/"; }).join("");
    try {
      var request = new XMLHttpRequest();
      request.open("HEAD", candidate + "papers.json", false);
      request.send();
      if (request.status === 200) root = folders.slice(0, k);
    } catch (error) { /* a network error: try the folder above */ }
  }
  if (root === null) return;
  var base = document.createElement("base");
  base.href = "/" + root.map(function (f) { return f + "/"; }).join("");
  document.head.appendChild(base);
})();"""
_DIGEST = hashlib.sha256(ROOT_SCRIPT.encode()).digest()
ROOT_SCRIPT_HASH = "sha256-" + base64.b64encode(_DIGEST).decode("ascii")


def top_level_names(site: Site) -> list[str]:
    """The first path segment of every page and file of the site below its root."""
    sections = (urls.ALL_PAPERS, urls.AUTHORS, urls.SESSIONS, urls.COLLECTIONS, urls.SEARCH)
    names = {url.rstrip("/") for url in (*sections, urls.ASSETS)}
    names |= {page.url.split("/", 1)[0] for page in site.content_pages}
    return sorted(names)


def not_found_context(site: Site) -> dict[str, Any]:
    """What the 404 page adds to the base context: with a base URL, an absolute `<base>`;
    without one, the script that finds the root, and its hash for the page's CSP."""
    if site.base_url:
        return {"base_href": site.base_url, "canonical": None}
    return {
        "base_href": None,
        "canonical": None,
        "root_script": Markup(ROOT_SCRIPT),
        "root_script_hash": ROOT_SCRIPT_HASH,
        "top_level_names": json.dumps(top_level_names(site)),
    }
