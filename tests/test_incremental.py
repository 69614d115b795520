"""The fast paths give the same site as the slow ones: incremental builds, reuse of unchanged
files, parallel rendering, and the cache throwing itself away when code or templates change."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import pytest
from conftest import REPO, copy_seeds_project
from test_build import tree_digest

import confsite.cache.inputs
import confsite.cache.manifest
import confsite.cache.site_model
import confsite.model.merge
import confsite.output.staging
import confsite.render.views
from confsite.cache.digests import PaperDigests
from confsite.cache.manifest import load_manifest
from confsite.cache.stores import load_pickle, save_pickle
from confsite.cli.summary import print_summary
from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.model.authors import Author
from confsite.model.records import Entry, Paper
from confsite.model.site import Collection, SessionGroup, site_program
from confsite.pipeline import BuildOptions, BuildResult, build
from confsite.render import search_index
from confsite.render.assets import build_fingerprint
from confsite.render.citation import Citation
from confsite.render.download_formats import DOWNLOADS
from confsite.render.downloads import DownloadPieces
from confsite.render.jinja import TEMPLATES_FILE, KeptBytecode
from confsite.render.views import LINES_PER_PAGE, Page, Views

# A paper of the 2023 dump whose abstract sentence we edit (checked by hand in the dump).
EDITED_DUMP = "iclr2023-poster-session-3.txt"
EDITED_TEXT = "top down integration of symbolic systems"
EDITED_ID = "mid-vision-feedback"


def make_project(folder: Path) -> Path:
    return copy_seeds_project(folder) / "site.yaml"


def run(config: Path, out: Path, jobs: int = 2) -> BuildResult:
    return build(BuildOptions(config_path=config, out=out, jobs=jobs), Diagnostics())


def file_states(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file's inode and modification time: what a sync-based deploy looks at."""
    states = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            states[path.relative_to(folder).as_posix()] = (stat.st_ino, stat.st_mtime_ns)
    return states


def edit_abstract(config: Path) -> None:
    dump = config.parent / "seeds" / EDITED_DUMP
    text = dump.read_text(encoding="utf-8")
    assert text.count(EDITED_TEXT) == 1
    dump.write_text(
        text.replace(EDITED_TEXT, "top down integration of symbolic reasoning systems"),
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def seeds_project(module_folder: Callable[[str], Path]) -> tuple[Path, Path, BuildResult]:
    """The seeds built once; tests copy the project and its site before changing anything."""
    root = module_folder("incremental")
    config = make_project(root / "project")
    out = root / "project" / "_site"
    return config, out, run(config, out)


def clone(seeds_project: tuple[Path, Path, BuildResult], target: Path) -> tuple[Path, Path]:
    """A copy of the built project that keeps the cache valid: files are hard links (same
    inode), so the manifest still describes the copied site."""
    config, out, _ = seeds_project
    project = target / "project"
    # The spare (see output/spare.py) is left behind: a detached process may still be making it.
    shutil.copytree(config.parent, project, ignore=shutil.ignore_patterns("_site", "*.spare*"))
    shutil.copytree(out, project / "_site", copy_function=os.link)
    cache = project / confsite.cache.manifest.CACHE_FOLDER
    # The manifest, and the downloads' pieces beside it, are keyed by the output path (other
    # tests build the same project into other folders).
    built = confsite.cache.manifest.manifest_path(config.parent, out)
    manifest = confsite.cache.manifest.manifest_path(project, project / "_site")
    for suffix in (built.suffix, ".downloads"):
        (cache / built.with_suffix(suffix).name).rename(manifest.with_suffix(suffix))
    # The paper digests are the shared site's build's, so a rebuild takes the pages it knows
    # unchanged without keying them (render/unchanged.py), which the tests here check.
    digests = load_pickle(
        cache / confsite.cache.inputs.PAPER_DIGESTS_FILE, build_fingerprint(None), PaperDigests
    )
    assert digests is not None
    assert digests.build == load_manifest(manifest).build != ""
    return project / "site.yaml", project / "_site"


def test_a_rebuild_with_nothing_changed_touches_no_file(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path)
    before = file_states(out)
    result = run(config, out)
    assert result.up_to_date
    assert result.pages_rendered == 0 and result.files_changed == 0
    assert file_states(out) == before
    assert result.files_written == len(before)
    # Nothing was read or merged: the warnings and notes are the first build's, all of them,
    # in the same order.
    first = seeds_project[2]
    assert list(result.timings) == ["config", "check"]
    assert list(map(str, result.diagnostics.problems)) == list(map(str, first.diagnostics.problems))
    assert len(result.diagnostics.warnings) > 10  # the seeds' untitled papers and conflicts


def summary_lines(result: BuildResult) -> list[str]:
    stream = io.StringIO()
    print_summary(result, stream)
    return stream.getvalue().splitlines()


def test_a_rebuild_with_nothing_changed_reads_nothing_and_reports_the_same(
    seeds_project, tmp_path: Path, monkeypatch
) -> None:
    """The summary of a build with nothing to do is the first build's, source by source,
    without the sources or the input cache being read."""
    config, out = clone(seeds_project, tmp_path)

    def unread(*args) -> None:
        raise AssertionError("read on a build with nothing to do")

    monkeypatch.setattr(confsite.cache.inputs, "load_pickle", unread)
    monkeypatch.setattr(confsite.cache.inputs, "read_records", unread)
    result = run(config, out)
    assert result.up_to_date and result.papers == []
    first, again = summary_lines(seeds_project[2]), summary_lines(result)
    assert first[-1].startswith("time:") and again[-1].startswith("time:")
    assert first[-2].startswith("wrote ") and again[-2].endswith("no file rewritten")
    assert again[:-2] == first[:-2]
    # by hand: 5 seed dumps and the total, the seeds' 1,557 papers and 4,837 authors
    assert len(first) > 8 and any(line.startswith("total ") for line in first)
    assert "site: 6,451 pages, 1,557 papers, 4,837 authors" in again


def test_strict_fails_a_rebuild_with_nothing_changed_as_it_fails_a_full_build(
    seeds_project, tmp_path: Path
) -> None:
    """--strict fails on the warnings reading and merging give (the seeds' untitled papers),
    whether or not anything changed since the last build."""
    config, out = clone(seeds_project, tmp_path)
    messages = []
    for use_cache in (True, False):  # the no-op, then a full build reading everything
        options = BuildOptions(config, out, strict=True, use_cache=use_cache)
        with pytest.raises(ConfsiteError) as failure:
            build(options, Diagnostics(strict=True))
        messages.append(str(failure.value))
    assert messages[0] == messages[1] and "--strict makes warnings fatal" in messages[0]


def first_arguments(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list:
    """The first argument of every call of `module.name` from now on, in this process."""
    calls: list = []
    function = getattr(module, name)

    def watched(first: object, *rest: object) -> object:
        calls.append(first)
        return function(first, *rest)

    monkeypatch.setattr(module, name, watched)
    return calls


def test_a_rebuild_makes_only_the_search_abstracts_file_of_the_edited_abstract(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other files of plain abstracts are keyed by their papers' texts and taken from
    the current site unmade (the corpus work in this process, where it can be watched)."""
    config, out = clone(seeds_project, tmp_path)
    chunks = len(list((out / "search" / "abstracts").iterdir()))
    made = first_arguments(monkeypatch, search_index, "_abstracts_payload")
    edit_abstract(config)
    run(config, out, jobs=1)
    holding = [
        path.name
        for path in (out / "search" / "abstracts").iterdir()
        if "symbolic reasoning systems" in path.read_text(encoding="utf-8")
    ]
    assert len(made) == 1 and chunks > 50
    assert holding == [f"{made[0]}.js"]


def card_ids(path: Path) -> list[str]:
    """The ids of the papers a file of result cards holds (`window.confsiteCardsN={...};`)."""
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1 : text.rindex(";")])["ids"].split("\x1e")


def test_a_rebuild_makes_only_the_result_cards_file_of_the_changed_paper(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search's files of result cards whose papers are all unchanged are taken from the
    current site unmade; after a change of structure (a paper moved to another session, which
    the cards of the other papers there name), every one is made again."""
    config, out = clone(seeds_project, tmp_path)
    chunks = len(list((out / "search" / "cards").iterdir()))
    payloads = first_arguments(monkeypatch, search_index, "script_payload")

    def made() -> list[str]:
        return [name for name in payloads if name.startswith("confsiteCards")]

    edit_abstract(config)
    run(config, out, jobs=1)
    holding = [
        path.stem for path in (out / "search" / "cards").iterdir() if EDITED_ID in card_ids(path)
    ]
    assert chunks > 50
    assert made() == [f"confsiteCards{chunk}" for chunk in holding]
    payloads.clear()
    override(config, f"{NEIGHBOUR_ID}:\n  sessions: [Oral Session 1]\n")
    run(config, out, jobs=1)
    assert len(made()) == chunks


def test_one_changed_abstract_rewrites_only_the_files_that_show_it(
    seeds_project, tmp_path: Path
) -> None:
    config, out = clone(seeds_project, tmp_path)
    before_states, before_digest = file_states(out), tree_digest(out)
    edit_abstract(config)
    result = run(config, out)
    after_states, after_digest = file_states(out), tree_digest(out)
    changed_content = {p for p in after_digest if after_digest[p] != before_digest.get(p)}
    rewritten = {p for p in after_states if after_states[p] != before_states.get(p)}
    # The abstract shows on the paper's page and its session's page (folded abstracts), in the
    # downloads, in the search's abstracts and in its vocabulary (a new word); author pages
    # and listings show no abstract.
    must_change = {
        f"papers/{EDITED_ID}/index.html",
        "sessions/iclr-2023-poster-session-3/index.html",
        "papers.json",
        "papers.csv",
        "papers.ris",  # its AB field
        "search/vocabulary.js",
    }
    assert must_change <= changed_content
    assert [p for p in changed_content if p.startswith("search/abstracts/")]
    # A new word shifts TF-IDF weights, so a few other papers' related lists may change; the
    # average abstract length changes, and with it BM25 weights in every shard of terms.
    others = changed_content - must_change - {"papers.bib"}
    searching = {p for p in others if p.startswith(("search/terms/", "search/abstracts/"))}
    searching |= {"search/index.js"} & others
    assert [p for p in others - searching if not p.startswith("papers/")] == []
    assert len(others - searching) <= 10
    assert rewritten == changed_content
    assert result.files_changed == len(changed_content)
    assert 0 < result.pages_rendered < 20  # the pages whose cards hold the paper
    assert (
        "top down integration of symbolic reasoning systems"
        in (out / f"papers/{EDITED_ID}/index.html").read_text()
    )


def test_an_incremental_build_equals_a_clean_build(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)
    (config.parent / "overrides.yaml").write_text(
        f"{EDITED_ID}:\n  room: Hall Z\n", encoding="utf-8"
    )
    incremental = run(config, out)
    clean_config = make_project(tmp_path / "clean")
    edit_abstract(clean_config)
    shutil.copy(config.parent / "overrides.yaml", clean_config.parent / "overrides.yaml")
    clean_out = tmp_path / "clean" / "_site"
    clean = run(clean_config, clean_out)
    assert tree_digest(out) == tree_digest(clean_out)
    assert "Hall Z" in (out / f"papers/{EDITED_ID}/index.html").read_text()
    # What the build tells, too: the sources taken from the cache still say which fields
    # they state (the missing abstracts and authors are reported from that).
    told = [str(problem) for problem in incremental.diagnostics.problems]
    assert told == [str(problem) for problem in clean.diagnostics.problems]
    assert any("has no abstract" in line for line in told)
    assert any("has no authors" in line for line in told)
    assert [(s.record_count, s.stated) for s in incremental.sources] == [
        (s.record_count, s.stated) for s in clean.sources
    ]


PARALLEL_BUILD = """
import sys
from pathlib import Path
from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.pipeline import BuildOptions, build
result = build(BuildOptions(Path(sys.argv[1]), Path(sys.argv[2]), jobs=2), Diagnostics())
print(result.workers)
"""


NOTHING_TO_DO = """
import sys
from argparse import Namespace
from pathlib import Path
from confsite.cli.summary import build_and_report
from confsite.pipeline import BuildOptions
options = BuildOptions(Path(sys.argv[1]), Path(sys.argv[2]))
result = build_and_report(options, Namespace(quiet=True, verbose=False))
rendering = ("jinja2", "numpy", "scipy", "confsite.render.pages", "confsite.render.corpus")
print(result.up_to_date, *sorted(name for name in rendering if name in sys.modules))
"""


def test_a_rebuild_with_nothing_to_do_imports_no_rendering(seeds_project, tmp_path: Path) -> None:
    """Most of a no-op's start-up went to importing what renders pages, which is now
    imported only when something is rendered (docs/performance.md)."""
    config, out = clone(seeds_project, tmp_path)
    nothing = subprocess.run(
        [sys.executable, "-c", NOTHING_TO_DO, str(config), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert nothing.returncode == 0, nothing.stderr
    assert nothing.stdout.split() == ["True"]


def test_a_parallel_build_equals_a_serial_build(seeds_project, tmp_path: Path) -> None:
    # A copy: builds of the shared project to other folders would leave it paper digests its
    # own site does not take (see `clone`).
    config, out = clone(seeds_project, tmp_path / "copy")
    # In a process of its own: a process with other threads (pytest's servers) never forks.
    parallel = subprocess.run(
        [sys.executable, "-c", PARALLEL_BUILD, str(config), str(tmp_path / "parallel")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert parallel.returncode == 0, parallel.stderr
    assert parallel.stdout.split() == ["2"]
    serial = run(config, tmp_path / "serial", jobs=1)
    assert serial.workers == 1
    assert serial.pages_rendered == serial.pages  # a new folder: nothing to reuse
    assert tree_digest(tmp_path / "serial") == tree_digest(tmp_path / "parallel")
    assert tree_digest(tmp_path / "serial") == tree_digest(out)


PRIORITIES_IN_A_BUILD = """
import os
import sys
import time
from pathlib import Path
import confsite.render.corpus as corpus
import confsite.render.pages as pages
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build
noted = Path(sys.argv[3])
def note(who):
    with open(noted, "a") as out:
        out.write(f"{who} {os.getpid()} {os.nice(0)} {time.time()}\\n")
def noting(work, who):
    def noted_work(*args):
        note(who)
        return work(*args)
    return noted_work
def noting_end(work, who):
    def noted_work(*args):
        yield from work(*args)
        note(who)
    return noted_work
note("build")
pages.RenderJob.stage_pages = noting(pages.RenderJob.stage_pages, "page")
pages.RenderJob.stage_papers = noting(pages.RenderJob.stage_papers, "page")
corpus.corpus_results = noting(corpus.corpus_results, "corpus")
corpus.search_files = noting_end(corpus.search_files, "search-made")
build(BuildOptions(Path(sys.argv[1]), Path(sys.argv[2]), jobs=2), Diagnostics())
"""


def test_page_workers_run_below_the_corpus_worker_s_priority(tmp_path: Path) -> None:
    """Paper pages wait for the corpus worker's related papers: the page worker yields the
    cores to it (render/pages.py · PAGE_WORKER_NICENESS), the corpus worker keeps the
    build's own priority, and the build's own process renders only once the corpus worker
    has made the search files (with two jobs: one forked page worker)."""
    project, noted = copy_seeds_project(tmp_path / "project"), tmp_path / "noted"
    command = [sys.executable, "-c", PRIORITIES_IN_A_BUILD, project / "site.yaml"]
    ran = subprocess.run(
        [*command, tmp_path / "site", noted], capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stderr
    seen = [line.split() for line in noted.read_text().splitlines()]
    own, build = str(os.nice(0)), next(pid for who, pid, _, _ in seen if who == "build")
    assert {(who, nice) for who, _, nice, _ in seen if who in ("corpus", "search-made")} == {
        ("corpus", own),
        ("search-made", own),
    }
    made = float(next(at for who, _, _, at in seen if who == "search-made"))
    pages = [(pid, nice, float(at)) for who, pid, nice, at in seen if who == "page"]
    forked = {pid for pid, _, _ in pages if pid != build}
    assert len(forked) == 1
    assert {nice for pid, nice, _ in pages if pid in forked} == {str(min(19, int(own) + 10))}
    assert all(nice == own and at >= made for pid, nice, at in pages if pid == build)


# A build whose corpus worker saves the terms only once the build's own process has rendered
# every page (it marks that with a file), then saves them or stops ("save" or "stop"); it
# prints how many processes rendered and the digest of each paper's title and abstract.
LATE_TERMS_SAVE = """
import os
import sys
import time
from pathlib import Path
import confsite.render.pages as pages
from confsite.cache.terms import TermCache, texts_digest
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build
config, out, marker, then = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
here, save, render_site = os.getpid(), TermCache.save, pages.render_site
def save_once_rendered(self):
    if os.getpid() == here:
        return save(self)
    for _ in range(1000):
        if marker.exists():
            break
        time.sleep(0.01)
    assert marker.exists(), "the terms were saved before the pages were rendered"
    if then == "stop":
        os._exit(1)
    save(self)
def marked_render_site(*args, **kwargs):
    made = render_site(*args, **kwargs)
    marker.touch()
    return made
TermCache.save = save_once_rendered
pages.render_site = marked_render_site
result = build(BuildOptions(config, out, jobs=2), Diagnostics())
print(result.workers, *sorted({texts_digest(paper).hex() for paper in result.papers}))
"""


def late_terms_save(project: Path, out: Path, then: str) -> list[str]:
    """A build with `LATE_TERMS_SAVE`, in a process of its own: a process with other threads
    (pytest's servers) never forks. What it printed, checked that it rendered in two."""
    marker = out.with_name("rendered")
    command = [sys.executable, "-c", LATE_TERMS_SAVE, project / "site.yaml", out, marker, then]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    workers, *texts = ran.stdout.split()
    assert workers == "2" and marker.exists()
    return texts


def test_the_build_ends_once_the_corpus_worker_has_saved_the_terms(tmp_path: Path) -> None:
    """The corpus worker saves the terms after the search files, while pages render; the
    build waits for that save (stopping the worker once the search files came would lose
    it). A save that starts only once every page is rendered must still be done when the
    build is."""
    from confsite.cache.terms import CACHE_FILE

    project = copy_seeds_project(tmp_path / "project")
    texts = late_terms_save(project, tmp_path / "site", "save")
    saved = project / confsite.cache.manifest.CACHE_FOLDER / CACHE_FILE
    _, stored = pickle.loads(saved.read_bytes())
    assert sorted(key.hex() for key in stored.terms.keys) == texts


def test_a_corpus_worker_stopped_while_saving_the_terms_fails_no_build(tmp_path: Path) -> None:
    """Stopped once every page is rendered, as it saves the terms: every file is staged by
    then, so the build succeeds with the site one built with the save has, and only the
    terms cache is missing (the next build counts them again)."""
    from confsite.cache.terms import CACHE_FILE

    project = copy_seeds_project(tmp_path / "project")
    late_terms_save(project, tmp_path / "site", "stop")
    assert not (project / confsite.cache.manifest.CACHE_FOLDER / CACHE_FILE).exists()
    run(project / "site.yaml", tmp_path / "serial", jobs=1)
    assert tree_digest(tmp_path / "site") == tree_digest(tmp_path / "serial")


def test_a_new_confsite_version_invalidates_the_cache(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = clone(seeds_project, tmp_path)
    before = tree_digest(out)
    monkeypatch.setattr(confsite.cache.manifest, "__version__", "0.0.0-other")
    result = run(config, out)
    assert not result.up_to_date
    assert result.pages_rendered == result.pages
    assert tree_digest(out) == before


def test_a_manifest_of_classes_with_other_fields_is_not_taken(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unpickling does not call constructors: a manifest pickled when a class it holds had
    other fields would load without complaint, so the fields are in its tag."""
    config, out = clone(seeds_project, tmp_path)
    before = tree_digest(out)

    @dataclasses.dataclass(frozen=True, order=True)
    class SourceLoc:  # as diagnostics.SourceLoc, with a field more
        path: str
        line: int | None = None
        end_line: int | None = None
        column: int | None = None

    pickled = confsite.cache.manifest.PICKLED
    other = tuple(SourceLoc if kind.__name__ == "SourceLoc" else kind for kind in pickled)
    monkeypatch.setattr(confsite.cache.manifest, "PICKLED", other)
    result = run(config, out)
    assert not result.up_to_date
    assert result.pages_rendered == result.pages
    assert tree_digest(out) == before


def test_every_class_a_manifest_holds_is_in_its_tag(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path)
    found: set[tuple[str, str]] = set()

    class Recording(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            found.add((module, name))
            return super().find_class(module, name)

    manifest = confsite.cache.manifest.manifest_path(config.parent, out)
    with open(manifest, "rb") as stream:
        Recording(stream).load()
    ours = {(module, name) for module, name in found if module.startswith("confsite")}
    # The seeds' report has warnings: problems and their places are among what it holds.
    assert {name for _, name in ours} >= {"Manifest", "Problem", "SourceLoc"}
    pickled = confsite.cache.manifest.PICKLED
    assert ours == {(kind.__module__, kind.__name__) for kind in pickled}


def test_a_manifest_of_files_with_other_fields_is_not_taken(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are saved as a column per field of FileEntry: a manifest saved when it had
    other fields would fill the wrong ones, so the fields are in its tag."""
    config, out = clone(seeds_project, tmp_path)
    before = tree_digest(out)
    field_names = confsite.cache.manifest._field_names

    def with_a_field_more(kind: type) -> tuple[str, ...]:
        names = field_names(kind)
        return (*names, "mode") if kind is confsite.cache.manifest.FileEntry else names

    with monkeypatch.context() as saved_by_other_code:
        saved_by_other_code.setattr(confsite.cache.manifest, "_field_names", with_a_field_more)
        assert not run(config, out).up_to_date  # its tag is another
    result = run(config, out)
    assert not result.up_to_date
    assert result.pages_rendered == result.pages
    assert tree_digest(out) == before


def test_a_manifest_keeps_its_files_as_they_were_made() -> None:
    """Saved as columns and loaded again: the same files, each a FileEntry."""
    from confsite.cache.manifest import FileEntry, Manifest

    files = {"a/index.html": FileEntry("d1", 10, 5, 7, "k"), "b.js": FileEntry("d2", 3, 6, 8)}
    for manifest in (Manifest("model", files, None, "build"), Manifest()):
        loaded = pickle.loads(pickle.dumps(manifest, protocol=5))
        assert loaded == manifest
        assert all(type(entry) is FileEntry for entry in loaded.files.values())
    assert list(pickle.loads(pickle.dumps(Manifest(files=files))).files) == list(files)


def test_a_rebuild_removes_an_earlier_version_s_json_manifest(
    seeds_project, tmp_path: Path
) -> None:
    config, out = clone(seeds_project, tmp_path)
    manifest = confsite.cache.manifest.manifest_path(config.parent, out)
    old = manifest.with_suffix(".json")
    old.write_text("{}", encoding="utf-8")
    edit_abstract(config)
    run(config, out)
    assert manifest.is_file() and not old.exists()


def test_a_dependency_s_new_version_invalidates_the_cache(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dependency's new version can change what pages show (a formula's MathML)."""
    config, out = clone(seeds_project, tmp_path)
    before = tree_digest(out)
    installed = tmp_path / "site-packages"
    (installed / "latex2mathml-99.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(installed))
    result = run(config, out)
    assert not result.up_to_date
    assert result.pages_rendered == result.pages
    assert tree_digest(out) == before
    # Nothing installed changed: nothing to do. Then the version changes again.
    assert run(config, out).up_to_date
    (installed / "latex2mathml-99.0.dist-info").rename(installed / "latex2mathml-99.1.dist-info")
    assert not run(config, out).up_to_date


def test_a_template_change_invalidates_the_cache(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path)
    theme = config.parent / "theme" / "templates"
    theme.mkdir(parents=True)
    base = (REPO / "templates" / "base.html").read_text(encoding="utf-8")
    assert base.count("</footer>") == 1
    (theme / "base.html").write_text(
        base.replace("</footer>", "<p>Theme marker</p></footer>"), encoding="utf-8"
    )
    text = config.read_text(encoding="utf-8")
    config.write_text(text + "\ntheme_dir: theme\n", encoding="utf-8")
    result = run(config, out)
    assert result.pages_rendered == result.pages
    assert "Theme marker" in (out / f"papers/{EDITED_ID}/index.html").read_text()
    # Changing the theme's template again is noticed too, with nothing else changed.
    (theme / "base.html").write_text(
        base.replace("</footer>", "<p>Second marker</p></footer>"), encoding="utf-8"
    )
    result = run(config, out)
    assert not result.up_to_date and result.pages_rendered == result.pages
    assert "Second marker" in (out / "index.html").read_text()


def compiles_counted(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The name of every template Jinja compiles from now on, in this process."""
    compiled: list[str | None] = []
    real = jinja2.Environment.compile
    monkeypatch.setattr(
        jinja2.Environment,
        "compile",
        lambda self, source, name=None, *args, **kw: compiled.append(name)
        or real(self, source, name, *args, **kw),
    )
    return compiled


def test_a_rebuild_compiles_no_template(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first build kept every template's compiled code under the build's fingerprint: a
    rebuild that renders pages loads it instead of compiling (all templates are compiled or
    loaded before the workers fork, so counting here sees them all), and renders what a
    clean build does. Under another fingerprint (other code, templates or distributions)
    the kept code is not taken."""
    config, out = clone(seeds_project, tmp_path)
    kept = config.parent / confsite.cache.manifest.CACHE_FOLDER / TEMPLATES_FILE
    assert KeptBytecode(kept.parent, build_fingerprint(None))._kept
    assert not KeptBytecode(kept.parent, b"other code")._kept
    compiled = compiles_counted(monkeypatch)
    edit_abstract(config)
    result = run(config, out)
    assert 0 < result.pages_rendered < result.pages
    assert compiled == []
    clean = tmp_path / "clean"
    build(BuildOptions(config, clean, jobs=2, use_cache=False), Diagnostics())
    assert "paper.html" in compiled and "base.html" in compiled  # counted when compiled
    assert tree_digest(out) == tree_digest(clean)


def rendered_with_kept_code(folder: Path, source: str) -> str:
    """`source` rendered as a page template by an environment with code kept in `folder`,
    which keeps what it compiled."""
    kept = KeptBytecode(folder, b"fingerprint")
    environment = jinja2.Environment(
        loader=jinja2.DictLoader({"page.html": source}), bytecode_cache=kept
    )
    html = environment.get_template("page.html").render(n=2)
    kept.save()
    return html


def test_kept_template_code_of_another_source_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept code is taken only for the source it was compiled from (the fingerprint it is
    kept under covers the templates; Jinja checks each one's source too), and the code
    compiled in its place is kept."""
    compiled = compiles_counted(monkeypatch)
    assert rendered_with_kept_code(tmp_path, "one {{ n }}") == "one 2"
    assert rendered_with_kept_code(tmp_path, "one {{ n }}") == "one 2"
    assert compiled == ["page.html"]
    assert rendered_with_kept_code(tmp_path, "two {{ n + 1 }}") == "two 3"
    assert rendered_with_kept_code(tmp_path, "two {{ n + 1 }}") == "two 3"
    assert compiled == ["page.html"] * 2


def test_damaged_template_code_is_compiled_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept code that does not load (a damaged file's entry: Jinja lets its unpickling's
    errors through) is compiled again and replaced, as any cache that does not read."""
    assert rendered_with_kept_code(tmp_path, "one {{ n }}") == "one 2"
    kept = KeptBytecode(tmp_path, b"fingerprint")
    (key, code), = kept._kept.items()
    tag = b"fingerprint" + sys.implementation.cache_tag.encode()
    checksum_at = len(jinja2.bccache.bc_magic)  # the source's checksum, pickled, then the code
    assert code[checksum_at] == pickle.PROTO[0]
    damaged = code[: checksum_at + 1] + b"\xfd" + code[checksum_at + 2 :]  # an unknown protocol
    for entry in (damaged, code[: checksum_at + 1]):
        save_pickle(tmp_path / TEMPLATES_FILE, tag, {key: entry})
        compiled = compiles_counted(monkeypatch)
        assert rendered_with_kept_code(tmp_path, "one {{ n }}") == "one 2"
        assert compiled == ["page.html"]
        assert KeptBytecode(tmp_path, b"fingerprint")._kept == {key: code}


def test_a_hand_edited_output_file_is_restored(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path)
    page = out / f"papers/{EDITED_ID}/index.html"
    original = page.read_bytes()
    page.unlink()  # break the hard link before editing, as an editor saving a copy would
    page.write_bytes(original.replace(b"</main>", b"<p>edited by hand</p></main>"))
    result = run(config, out)
    assert not result.up_to_date
    assert page.read_bytes() == original


def counting_pieces(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts, per download, the papers whose piece is made rather than copied (by builds
    in this process: jobs=1)."""
    made: Counter[str] = Counter()
    for name, download in list(DOWNLOADS.items()):

        def piece(site, paper, name=name, make=download.piece):  # noqa: ANN001, ANN202
            made[name] += 1
            return make(site, paper)

        monkeypatch.setitem(DOWNLOADS, name, dataclasses.replace(download, piece=piece))
    return made


def test_a_rebuild_makes_download_pieces_only_for_changed_papers(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = clone(seeds_project, tmp_path)
    before = {name: (out / name).read_bytes() for name in DOWNLOADS}
    made = counting_pieces(monkeypatch)
    edit_abstract(config)
    run(config, out, jobs=1)
    assert made == {name: 1 for name in DOWNLOADS}
    edited = b"top down integration of symbolic reasoning systems"
    for name in DOWNLOADS:
        after = (out / name).read_bytes()
        assert after.count(edited) == 1, name
        assert after.replace(edited, EDITED_TEXT.encode()) == before[name], name


def test_download_pieces_are_not_copied_from_a_file_they_may_not_describe(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = clone(seeds_project, tmp_path)
    papers = len(seeds_project[2].papers)
    made = counting_pieces(monkeypatch)
    # A download changed by hand: that file is made afresh, the others still copied from.
    csv = out / "papers.csv"
    original = csv.read_bytes()
    csv.unlink()
    csv.write_bytes(original.replace(b"Transformer", b"Transfarmer"))
    run(config, out, jobs=1)
    assert csv.read_bytes() == original
    assert made == {"papers.csv": papers}
    # Pieces recorded for other bytes than the current file's (a build that failed after
    # recording them): every piece is made.
    pieces = confsite.cache.manifest.manifest_path(config.parent, out).with_suffix(".downloads")
    fingerprint = build_fingerprint(None)
    recorded = load_pickle(pieces, fingerprint, DownloadPieces)
    assert recorded is not None
    files = {name: dataclasses.replace(f, digest="0" * 32) for name, f in recorded.files.items()}
    save_pickle(pieces, fingerprint, dataclasses.replace(recorded, files=files))
    (out / "index.html").unlink()  # something for the build to do
    made.clear()
    run(config, out, jobs=1)
    assert made == {name: papers for name in DOWNLOADS}
    assert (out / "papers.csv").read_bytes() == original
    # Another base URL: every BibTeX entry holds its page's address, so nothing is copied.
    made.clear()
    base_url = "https://example.org/proceedings/"
    build(BuildOptions(config_path=config, out=out, base_url=base_url, jobs=1), Diagnostics())
    assert made == {name: papers for name in DOWNLOADS}
    bib = (out / "papers.bib").read_text(encoding="utf-8")
    assert bib.count(f"url = {{{base_url}papers/") == papers


# --- Every kind of change: a rebuild that reuses pages equals a clean build ----------------
# A page is reused when its key is unchanged, and keys are made from what a page is made from
# (views.py): each change below reaches pages other than the changed paper's own, so a key
# that leaves out one of its inputs leaves a stale page here. Papers checked by hand in the
# 2023 dump: "Markup-to-Image ..." follows EDITED_ID in its session.
NEIGHBOUR_ID = "markup-to-image-diffusion-models-with-scheduled-sampling"
NEIGHBOUR_TITLE = "Markup-to-Image Diffusion Models with Scheduled Sampling"


def override(config: Path, text: str) -> None:
    (config.parent / "overrides.yaml").write_text(text, encoding="utf-8")


def remove_neighbour_from_its_dump(config: Path) -> None:
    """Its block, from the presentation line before its title to the next one: the papers
    after it move up a line."""
    dump = config.parent / "seeds" / EDITED_DUMP
    lines = dump.read_text(encoding="utf-8").split("\n")
    title = lines.index(NEIGHBOUR_TITLE)
    end = next(i for i in range(title, len(lines)) if lines[i].startswith("In-Person Poster"))
    dump.write_text("\n".join(lines[: title - 1] + lines[end:]), encoding="utf-8")


def move_a_dump_down_a_line(config: Path) -> None:
    """A blank line after the session's heading: every paper's source line moves, nothing
    else does."""
    dump = config.parent / "seeds" / EDITED_DUMP
    heading, rest = dump.read_text(encoding="utf-8").split("\n", 1)
    dump.write_text(f"{heading}\n\n{rest}", encoding="utf-8")


def fold_year_into_venue(config: Path) -> None:
    """The 2024 source's venue becomes "ICLR 2024" with no year: its collection keeps its
    label and slug, but sorts after the dated ones on its authors' pages."""
    text = config.read_text(encoding="utf-8")
    dated = "conference: ICLR\n    year: 2024\n"
    assert text.count(dated) == 1
    config.write_text(text.replace(dated, "conference: ICLR 2024\n"), encoding="utf-8")


def retitle_site(config: Path) -> None:
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("title: ICLR Proceedings Archive", "title: ICLR Archive"))


def add_content_page(config: Path) -> None:
    (config.parent / "content" / "venues.md").write_text("# Venues\n\nWhere it was held.\n")


# An abstract on another subject: the edited paper leaves other papers' related lists, and
# papers that are unchanged themselves take their places there.
UNRELATED_ABSTRACT = (
    "We study the thermal conductivity of layered ceramic composites under cyclic loading in "
    "marine environments, measuring how salt crystallisation in the pores changes heat "
    "transport across thousands of cycles, and we propose a simple empirical law that "
    "engineers can use when designing hull insulation for long voyages."
)


def edit_dump(config: Path, old: str, new: str) -> None:
    dump = config.parent / "seeds" / EDITED_DUMP
    text = dump.read_text(encoding="utf-8")
    assert text.count(old) == 1
    dump.write_text(text.replace(old, new), encoding="utf-8")


def abstract_on_another_subject(config: Path) -> None:
    dump = config.parent / "seeds" / EDITED_DUMP
    lines = dump.read_text(encoding="utf-8").split("\n")
    (line,) = [n for n, text in enumerate(lines) if EDITED_TEXT in text]
    lines[line] = UNRELATED_ABSTRACT
    dump.write_text("\n".join(lines), encoding="utf-8")


CHANGES = {
    "a neighbour's title": lambda c: override(c, f"{NEIGHBOUR_ID}:\n  title: A New Title\n"),
    "a neighbour's authors": lambda c: override(
        c, f"{NEIGHBOUR_ID}:\n  authors: [Yuntian Deng, Ada Lovelace]\n"
    ),
    "a neighbour's first author": lambda c: override(  # its cite key's family name
        c, f"{NEIGHBOUR_ID}:\n  authors: [Ada Lovelace, Yuntian Deng]\n"
    ),
    "an award": lambda c: override(c, f"{NEIGHBOUR_ID}:\n  awards: [Outstanding Paper]\n"),
    "a neighbour's room": lambda c: override(c, f"{NEIGHBOUR_ID}:\n  room: Hall C\n"),
    # Both of Duy Kien Nguyen's papers now spell "Duy-Kien": the name shown changes, and with
    # it the co-authors listed on the pages of R-MAE's other authors, whose cards do not.
    "a co-author's shown name": lambda c: override(
        c,
        "movie-revisiting-modulated-convolutions-for-visual-counting-and-beyond:\n"
        "  authors: [Duy-Kien Nguyen, Vedanuj Goswami, Xinlei Chen]\n",
    ),
    "a paper moved to another session": lambda c: override(
        c, f"{NEIGHBOUR_ID}:\n  sessions: [Oral Session 1]\n"
    ),
    "a paper removed": remove_neighbour_from_its_dump,
    "source lines moved": move_a_dump_down_a_line,
    "a venue's year folded into its name": fold_year_into_venue,
    "the site's title": retitle_site,
    "a content page": add_content_page,
    # Changes within the dump that leave every paper's id, cite key and authors as they
    # were: pages are then taken without keying them unless they show a changed paper
    # (render/unchanged.py), so these check what a page is known to show.
    # A paper's id is its title's slug: a word's case, or a decision, keeps it.
    "a neighbour's title in another case": lambda c: edit_dump(
        c, NEIGHBOUR_TITLE, NEIGHBOUR_TITLE.replace(" with ", " With ")
    ),
    "a neighbour's decision": lambda c: edit_dump(
        c, f"/ poster accept\n{NEIGHBOUR_TITLE}", f"/ top 25% paper\n{NEIGHBOUR_TITLE}"
    ),
    "an abstract that moves other papers' related papers": abstract_on_another_subject,
}
# Whether every page shows what the change reaches (the site's title, its navigation).
EVERY_PAGE = {"the site's title", "a content page"}


@pytest.mark.parametrize("change", CHANGES)
def test_a_rebuild_after_any_change_equals_a_clean_build(
    change: str, seeds_project, tmp_path: Path
) -> None:
    config, out = clone(seeds_project, tmp_path / "incremental")
    CHANGES[change](config)
    result = run(config, out)
    clean_config = make_project(tmp_path / "clean")
    CHANGES[change](clean_config)
    clean_out = tmp_path / "clean" / "_site"
    run(clean_config, clean_out)
    assert tree_digest(out) == tree_digest(clean_out)
    # What the next build takes as known is what a clean build would have left it.
    assert saved_digests(config) == saved_digests(clean_config)
    # Pages were reused, or the comparison would prove nothing about keys.
    assert result.pages_rendered > 0
    assert (result.pages_rendered == result.pages) == (change in EVERY_PAGE)


def saved_digests(config: Path) -> PaperDigests:
    """The paper digests a build of `config`'s project kept for the next, but for which
    build (of which output folder) kept them."""
    folder = config.parent / confsite.cache.manifest.CACHE_FOLDER
    _, kept = confsite.cache.inputs.saved_paper_digests(folder, build_fingerprint(None))
    assert kept is not None
    return dataclasses.replace(kept, build="", token="")


def built_clean(config: Path, out: Path) -> Path:
    """`config`'s site built into `out` without any cache: what a rebuild must equal."""
    build(BuildOptions(config, out, jobs=2, use_cache=False), Diagnostics())
    return out


def keys_counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The papers and authors whose pages are keyed, by id and name (in this process)."""
    keyed: dict[str, list[str]] = {"papers": [], "authors": []}
    paper_key, author_key = Views.paper_key, Views.author_key

    def paper_counted(views: Views, paper: Paper, salt: bytes) -> str:
        keyed["papers"].append(paper.id)
        return paper_key(views, paper, salt)

    def author_counted(views: Views, author: Author, salt: bytes, number: int = 1) -> str:
        keyed["authors"].append(author.name)
        return author_key(views, author, salt, number)

    monkeypatch.setattr(Views, "paper_key", paper_counted)
    monkeypatch.setattr(Views, "author_key", author_counted)
    return keyed


def test_a_rebuild_keys_only_the_pages_that_show_a_changed_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited abstract: the paper's page, its neighbours' in its session and its authors'
    pages are keyed, with the pages of the few papers whose related papers changed; not the
    6,000 others. (Its authors, and the papers before and after it, read in the dump.) A
    project of its own: other tests build the shared one to other folders, whose paper
    digests this folder's site does not take."""
    config = make_project(tmp_path / "project")
    out = config.parent / "_site"
    run(config, out)
    edit_abstract(config)
    keyed = keys_counted(monkeypatch)
    run(config, out, jobs=1)
    assert sorted(keyed["authors"]) == [
        "Cornelia Fermuller", "Eadom Dessalene", "Michael Maynord", "Yiannis Aloimonos"
    ]  # fmt: skip
    neighbours = {"few-shot-backdoor-attacks-via-neural-tangent-kernels", NEIGHBOUR_ID}
    assert {EDITED_ID} | neighbours <= set(keyed["papers"])
    assert len(keyed["papers"]) <= 10


def test_a_rebuild_makes_only_the_session_and_collection_pages_that_show_a_changed_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited abstract: of the session and collection pages, only those listing the
    edited paper are made to key them; the others are known unchanged (render/unchanged.py).
    A project of its own, as above."""
    config = make_project(tmp_path / "project")
    out = config.parent / "_site"
    first = run(config, out)
    made: list[str] = []
    session, collection = Views.session, Views.collection

    def session_made(views: Views, group: SessionGroup, number: int = 1) -> Page:
        made.append(group.slug)
        return session(views, group, number)

    def collection_made(views: Views, shown: Collection, number: int = 1) -> Page:
        made.append(shown.slug)
        return collection(views, shown, number)

    monkeypatch.setattr(Views, "session", session_made)
    monkeypatch.setattr(Views, "collection", collection_made)
    edit_abstract(config)
    run(config, out, jobs=1)
    (edited,) = [paper for paper in first.papers if paper.id == EDITED_ID]
    program = site_program(first.config, first.papers, (), None)
    listing_it = {g.slug for g in program.sessions if edited in g.papers} | {
        c.slug for c in program.collections if edited in c.papers
    }
    assert made and set(made) <= listing_it
    pages = sum(1 for folder in ("sessions", "collections") for _ in (out / folder).rglob("*.html"))
    assert len(made) < pages / 4


def test_a_rebuild_makes_the_all_papers_listing_only_when_a_brief_card_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited abstract leaves every brief card as it was: no page of the all-papers
    listing is made, though a paper with an override is never known unchanged (its card is
    compared all the same). A title in another case changes one brief card, and every page
    of the listing is made again (its order is by title). That the pages then equal a clean
    build's is `test_a_rebuild_after_any_change_equals_a_clean_build`'s. A project of its
    own, as above."""
    config = make_project(tmp_path / "project")
    override(config, f"{NEIGHBOUR_ID}:\n  room: Hall C\n")
    out = config.parent / "_site"
    first = run(config, out)
    made: list[int] = []
    all_papers = Views.all_papers

    def all_papers_made(views: Views, number: int = 1) -> Page:
        made.append(number)
        return all_papers(views, number)

    monkeypatch.setattr(Views, "all_papers", all_papers_made)
    edit_abstract(config)
    run(config, out, jobs=1)
    assert made == []
    edit_dump(config, NEIGHBOUR_TITLE, NEIGHBOUR_TITLE.replace(" with ", " With "))
    run(config, out, jobs=1)
    pages = -(-len(first.papers) // LINES_PER_PAGE)
    assert pages > 1  # the listing is paged: more than its first page is checked
    assert sorted(made) == list(range(1, pages + 1))


def test_a_build_to_another_folder_between_two_leaves_no_page_stale(
    seeds_project, tmp_path: Path
) -> None:
    """The paper digests are the project's, the manifest each folder's: after a build of an
    edited abstract to another folder (as `confsite deploy` builds beside `confsite serve`'s
    site), the digests say the paper is unchanged, but this folder's page is not."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)
    run(config, config.parent / "elsewhere")
    result = run(config, out)
    assert 0 < result.pages_rendered < result.pages
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def test_a_build_whose_swap_failed_leaves_no_page_stale_for_the_next(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that fails as its site is swapped in has saved its paper digests; the site and
    the manifest are the build's before. A retry must not take that site's page of the edited
    paper as unchanged."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)

    def swap_failed(folders: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(confsite.output.staging, "_swap_in", swap_failed)
        with pytest.raises(ConfsiteError):
            run(config, out)
    assert EDITED_TEXT in (out / f"papers/{EDITED_ID}/index.html").read_text()
    run(config, out)
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


@pytest.mark.parametrize(
    "overridden",
    [
        # An award, which its cite key does not show: the downloads would keep the
        # overridden paper's pieces.
        "awards: [Outstanding Paper]",
        # An abstract: the search index and related papers would keep its terms.
        "abstract: We measure heat transport through salt-crusted ceramic hull insulation.",
    ],
)
def test_a_rebuild_after_an_override_is_taken_away_equals_a_clean_build(
    seeds_project, tmp_path: Path, overridden: str
) -> None:
    """The paper an override changed is merged from the same entries again, but what the
    last build made of it (its digests, its terms) was of the overridden paper: it must not
    be taken."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    override(config, f"{NEIGHBOUR_ID}:\n  {overridden}\n")
    run(config, out)
    (config.parent / "overrides.yaml").unlink()
    result = run(config, out)
    assert 0 < result.pages_rendered < result.pages
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def test_a_build_that_fails_after_merging_leaves_no_digests_a_rebuild_takes(
    seeds_project, tmp_path: Path
) -> None:
    """A build that fails after merging (`--strict`: the seeds give warnings) has saved its
    input cache, not its paper digests, and left the site as it was: the digests on disk are
    the build's before. Taken for the edited paper, merged from the same entries as in the
    failed build, they would key its page as that build did, and the old abstract would stay."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)
    with pytest.raises(ConfsiteError):
        build(BuildOptions(config, out, strict=True, jobs=2), Diagnostics(strict=True))
    run(config, out)
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def told_of_authors(result: BuildResult) -> list[str]:
    return [str(p) for p in result.diagnostics.problems if p.kind.startswith("author")]


def made_counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often a build makes the authors and the cite keys anew (see cache/site_model.py)."""
    made: Counter[str] = Counter()
    for name in ("build_authors", "cite_keys"):
        make = getattr(confsite.cache.site_model, name)

        def counted(*args, name=name, make=make):
            made[name] += 1
            return make(*args)

        monkeypatch.setattr(confsite.cache.site_model, name, counted)
    return made


def test_a_rebuild_keys_for_merging_only_the_entries_of_the_edited_source(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What merging groups entries by (their titles made plain, TeX parsed) is kept with each
    source in the input cache: a rebuild makes it for the edited source's entries alone, and
    the site is the one a clean build makes."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)
    keyed: list[str] = []
    group_key = confsite.cache.inputs.group_key

    def counted(entry: Entry) -> tuple[str, ...]:
        keyed.append(entry.loc.path)
        return group_key(entry)

    monkeypatch.setattr(confsite.cache.inputs, "group_key", counted)
    monkeypatch.setattr(confsite.model.merge, "group_key", counted)
    run(config, out, jobs=1)
    edited = f"seeds/{EDITED_DUMP}"
    records = (config.parent / edited).read_text(encoding="utf-8").count("\n\n")
    assert set(keyed) == {edited} and 0 < len(keyed) <= records
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def edit_text(config: Path, dump: str, old: str, new: str) -> str:
    """`old` (once in `dump`, checked by hand) made `new`; the dump's path as entries give it."""
    path = config.parent / "seeds" / dump
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    return f"seeds/{dump}"


# Edits of three dumps, each in one abstract: the pages of their papers and few others change.
EDITS_IN_THREE_DUMPS: list[Callable[[Path], str]] = [
    lambda c: edit_text(c, EDITED_DUMP, EDITED_TEXT, "top down integration of logic systems"),
    lambda c: edit_text(
        c, "iclr2024-poster-session-3.txt", "We propose Heuristic Blending (HUBL), a simple",
        "We propose Heuristic Blending (HUBL), a plain",
    ),
    lambda c: edit_text(
        c, "trending-papers.txt", "Zero-shot learning (ZSL) enables the recognition of novel",
        "Zero-shot learning (ZSL) allows the recognition of novel",
    ),
]


def saved_input_cache(config: Path) -> tuple[bytes, confsite.cache.inputs.CacheChanges | None]:
    """The input cache as last saved whole (its bytes), and the changes saved against it."""
    folder = config.parent / confsite.cache.manifest.CACHE_FOLDER
    changes = folder / confsite.cache.inputs.CHANGES_FILE
    whole = (folder / confsite.cache.inputs.CACHE_FILE).read_bytes()
    return whole, pickle.loads(changes.read_bytes())[1] if changes.exists() else None


def test_rebuilds_save_what_changed_and_the_next_take_it_with_the_cache_saved_whole(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild whose edits reach few papers saves the input cache as what changed since it
    was saved whole, which it leaves as it was; the next rebuild takes both as the last
    build's cache, down to the very entry objects merging knows a group of one source
    unchanged by: each of three rebuilds in a row merges only the papers of the source it
    edited. Each site is the one a clean build makes."""
    # The seeds' sources are each 1-45% of the papers: each edit is "few" at this share.
    monkeypatch.setattr(confsite.cache.inputs, "MAX_CHANGED_SHARE", 0.5)
    config, out = clone(seeds_project, tmp_path / "incremental")
    whole, changes = saved_input_cache(config)
    assert changes is None
    merged: list[set[str]] = []  # the sources of each group merged
    merge_group = confsite.model.merge.merge_group

    def counted(paper_id: str, entries: list[Entry], diagnostics: Diagnostics) -> Paper:
        merged.append({entry.loc.path for entry in entries})
        return merge_group(paper_id, entries, diagnostics)

    monkeypatch.setattr(confsite.model.merge, "merge_group", counted)
    edited: list[str] = []
    for number, edit in enumerate(EDITS_IN_THREE_DUMPS):
        edited.append(edit(config))
        merged.clear()
        run(config, out, jobs=2)
        assert merged and all(edited[-1] in sources for sources in merged)
        now, changes = saved_input_cache(config)
        assert now == whole and changes is not None
        changed = {path for source in changes.sources.values() for path in entry_paths(source)}
        assert changed == set(edited)  # since the cache was saved whole, however many builds
        assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / f"clean{number}"))


def entry_paths(source: confsite.cache.inputs.CachedSource) -> set[str]:
    return {entry.loc.path for entry in source.entries}


def test_changes_reaching_many_papers_save_the_cache_whole_and_leave_older_changes_unread(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_CHANGED_SHARE of the papers, the input cache and the paper digests are saved
    whole again, under new tokens: changes saved against the ones before are then not taken
    with them, though every source and paper they name is still there (the next rebuild reads
    and merges as that whole cache says, and its site is a clean build's)."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    folder = config.parent / confsite.cache.manifest.CACHE_FOLDER
    monkeypatch.setattr(confsite.cache.inputs, "MAX_CHANGED_SHARE", 0.5)
    EDITS_IN_THREE_DUMPS[0](config)
    run(config, out)
    whole, stale = saved_input_cache(config)
    stale_digests = folder / confsite.cache.inputs.DIGEST_CHANGES_FILE
    assert stale is not None and stale_digests.exists()
    monkeypatch.setattr(confsite.cache.inputs, "MAX_CHANGED_SHARE", -1.0)  # any change is many
    override(config, f"{NEIGHBOUR_ID}:\n  room: Hall C\n")  # the same sources, other inputs
    result = run(config, out)
    now, changes = saved_input_cache(config)
    assert now != whole and changes == stale  # left, but saved against another token
    _, cache = pickle.loads(now)
    assert cache.token not in ("", stale.base_token)
    base, digests = confsite.cache.inputs.saved_paper_digests(folder, build_fingerprint(None))
    assert stale_digests.exists() and base is digests is not None  # the changes not applied
    assert digests.inputs_key == cache.inputs_key and digests.build == load_manifest(
        confsite.cache.manifest.manifest_path(config.parent, out)
    ).build
    assert result.pages_rendered < result.pages
    monkeypatch.setattr(confsite.cache.inputs, "MAX_CHANGED_SHARE", 0.5)
    reading = confsite.cache.inputs.CachedReading
    loaded: list[confsite.cache.inputs.InputCache] = []
    read = reading.read

    def read_noted(self: confsite.cache.inputs.CachedReading, jobs: int = 1) -> Any:
        loaded.append(self.cache)
        return read(self, jobs)

    monkeypatch.setattr(reading, "read", read_noted)
    EDITS_IN_THREE_DUMPS[2](config)
    run(config, out)
    assert loaded[0].token == cache.token and loaded[0].inputs_key == cache.inputs_key
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def record_digests_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cite keys of the papers whose record digests are made (in this process)."""
    made: list[str] = []
    digest = confsite.render.views.digest

    def counted(value: object) -> bytes:
        if isinstance(value, tuple) and isinstance(value[1], Citation):  # a record digest
            made.append(value[1].key)
        return digest(value)

    monkeypatch.setattr(confsite.render.views, "digest", counted)
    return made


@pytest.mark.parametrize(("share", "as_changes"), [(0.5, True), (0, False)])
def test_a_rebuild_saves_the_paper_digests_as_changes_or_whole_and_the_next_takes_them(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share: float, as_changes: bool
) -> None:
    """After an edit of few papers, the paper digests are saved as what changed since they
    were saved whole, which are left as they were; past the share worth saving as such, the
    digests the build found its changes from are saved whole instead, as a new base. Either
    way the next rebuild takes them: it makes the record digest of its own edited paper alone,
    not of the paper the edit before changed."""
    monkeypatch.setattr(confsite.cache.inputs, "MAX_CHANGED_SHARE", share)
    config, out = clone(seeds_project, tmp_path / "incremental")
    folder = config.parent / confsite.cache.manifest.CACHE_FOLDER
    whole = (folder / confsite.cache.inputs.PAPER_DIGESTS_FILE).read_bytes()
    made = record_digests_counted(monkeypatch)
    for number, edit in enumerate(EDITS_IN_THREE_DUMPS[:2]):
        edit(config)
        made.clear()
        run(config, out, jobs=1)
        assert len(made) == 1, made  # of 1,557 papers
        kept_whole = (folder / confsite.cache.inputs.PAPER_DIGESTS_FILE).read_bytes() == whole
        assert kept_whole is as_changes
        assert (folder / confsite.cache.inputs.DIGEST_CHANGES_FILE).exists() is as_changes
        assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / f"clean{number}"))


def test_a_rebuild_takes_the_record_digests_of_unchanged_papers(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A paper's record digest (its record with its citation) is what the downloads are
    spliced by: a rebuild takes the last build's for every paper known unchanged, and makes
    only the edited paper's (in one process here: the workers' and the one kept for the next
    build are the same); the site is the one a clean build makes. Rebuilds whose record digests
    a worker makes (one after a change of structure) keep them all for the next build."""
    config, out = clone(seeds_project, tmp_path / "incremental")
    made = record_digests_counted(monkeypatch)
    edit_abstract(config)
    run(config, out, jobs=1)
    assert len(made) == 1  # of 1,557 papers
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))
    dump = config.parent / "seeds" / EDITED_DUMP
    for number, (old, new) in enumerate(
        [("Mid-Vision Feedback\n", "Mid-Vision Feedback Loops\n"), ("symbolic reasoning", "")]
    ):  # a new title changes the structure (ids, cite keys): no paper is known unchanged
        text = dump.read_text(encoding="utf-8")
        assert text.count(old) == 1
        dump.write_text(text.replace(old, new), encoding="utf-8")
        run(config, out, jobs=2)  # the record digests made in a worker
        assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / f"clean{number}"))
        folder = config.parent / confsite.cache.manifest.CACHE_FOLDER
        _, kept = confsite.cache.inputs.saved_paper_digests(folder, build_fingerprint(None))
        assert kept is not None and kept.records.keys() == kept.digests.keys() != set()


def test_a_rebuild_that_changes_no_author_or_title_takes_the_authors_and_cite_keys_kept(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited abstract changes no paper's id, authors, title, year or place: the authors
    and cite keys are taken as the last build made them, and what joining the authors told is
    told again."""
    first = seeds_project[2]
    config, out = clone(seeds_project, tmp_path / "incremental")
    edit_abstract(config)
    made = made_counted(monkeypatch)
    result = run(config, out)
    assert made == {}
    assert told_of_authors(result) == told_of_authors(first) != []
    assert result.authors == first.authors
    assert tree_digest(out) == tree_digest(built_clean(config, tmp_path / "clean"))


def test_a_warning_joining_the_authors_gave_is_told_again_when_they_are_kept(
    seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = clone(seeds_project, tmp_path / "incremental")
    override(config, "_authors:\n  same:\n    - [Nobody Known, Somebody Unknown]\n")
    made = made_counted(monkeypatch)
    first = run(config, out)
    warned = [str(p) for p in first.diagnostics.problems if p.kind == "overrides"]
    assert made["build_authors"] == 1 and len(warned) == 2  # "no paper lists the author"
    edit_abstract(config)
    again = run(config, out)
    assert made["build_authors"] == 1  # taken, not made again
    assert [str(p) for p in again.diagnostics.problems if p.kind == "overrides"] == warned


MADE_AGAIN = {
    "a neighbour's authors": {"build_authors": 1},  # its first author is as it was
    "a neighbour's first author": {"build_authors": 1, "cite_keys": 1},
    "source lines moved": {"build_authors": 1},  # the notes name where a name was first seen
    "a neighbour's title": {"build_authors": 1, "cite_keys": 1},  # its id follows its title
    "a venue's year folded into its name": {"cite_keys": 1},
}


@pytest.mark.parametrize("change", MADE_AGAIN)
def test_authors_and_cite_keys_are_made_again_when_what_they_are_made_from_changes(
    change: str, seeds_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, out = clone(seeds_project, tmp_path / "incremental")
    CHANGES[change](config)
    made = made_counted(monkeypatch)
    result = run(config, out)
    assert made == MADE_AGAIN[change]
    clean = build(BuildOptions(config, tmp_path / "clean", jobs=2, use_cache=False), Diagnostics())
    assert told_of_authors(result) == told_of_authors(clean)
    assert tree_digest(out) == tree_digest(tmp_path / "clean")


def test_a_rebuild_with_a_new_base_url_equals_a_clean_build(seeds_project, tmp_path: Path) -> None:
    config, out = clone(seeds_project, tmp_path / "incremental")
    base_url = "https://example.org/iclr/"
    result = build(BuildOptions(config, out, base_url=base_url, jobs=2), Diagnostics())
    assert result.pages_rendered == result.pages  # every page's canonical link
    clean_out = tmp_path / "clean"
    build(
        BuildOptions(config, clean_out, base_url=base_url, jobs=2, use_cache=False), Diagnostics()
    )
    assert tree_digest(out) == tree_digest(clean_out)
