"""The spare: the site a build replaced, kept in the cache for the next build to start its
staging folder from (see confsite.output.spare). It is never trusted: whatever it holds, the next
site equals a clean build, and nothing is written outside the site.

Builds run as `python -m confsite build`, each in a process of its own: a build readies the
spare in a forked process, which it does not fork from a process with other threads (as the
test process may have by now)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import copy_seeds_project, wait_for_spare
from test_build import tree_digest
from test_incremental import edit_abstract, file_states


def run(config: Path, out: Path) -> int:
    """Build; returns how many files the build changed (by inode and mtime)."""
    before = file_states(out) if out.exists() else {}
    command = [sys.executable, "-m", "confsite", "build", "--config", str(config)]
    subprocess.run([*command, "--out", str(out)], check=True, capture_output=True, timeout=300)
    after = file_states(out)
    return sum(1 for path, state in after.items() if before.get(path) != state)


def built_project(folder: Path) -> tuple[Path, Path]:
    config = copy_seeds_project(folder / "project") / "site.yaml"
    out = folder / "project" / "_site"
    run(config, out)
    return config, out


def clean_build(config: Path, folder: Path) -> Path:
    """The same project built into a folder of its own (its own manifest, no spare)."""
    out = folder / "reference"
    run(config, out)
    return out


def site_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


def tamper(site: Path, outside: Path) -> None:
    """What hands (or other tools) may do to a site folder."""
    (site / "stray.html").write_text("a file no build made", encoding="utf-8")
    # A paper's folder replaced by a link out of the site: a build writing through it would
    # write into `outside`.
    paper_folder = sorted((site / "papers").iterdir())[3]
    shutil.rmtree(paper_folder)
    paper_folder.symlink_to(outside, target_is_directory=True)
    # A folder where a file must go, and a file where a folder must go.
    authors_index = site / "authors" / "index.html"
    authors_index.unlink()
    (authors_index / "inner").mkdir(parents=True)
    (authors_index / "inner" / "page.html").write_text("inside", encoding="utf-8")
    session_folder = sorted((site / "sessions").iterdir())[0]
    shutil.rmtree(session_folder)
    session_folder.write_text("not a folder", encoding="utf-8")
    # Other bytes at a path the site has (a new file: the old one may be linked elsewhere).
    (site / "index.html").unlink()
    (site / "index.html").write_text("a stale home page", encoding="utf-8")


def test_a_site_changed_by_hand_is_not_carried_over_by_its_spare(tmp_path: Path) -> None:
    """The changed site is replaced by the next build and becomes the spare of the build
    after that, which must neither keep what was added nor follow the link."""
    config, out = built_project(tmp_path)
    wait_for_spare(config.parent)
    outside = tmp_path / "outside"
    outside.mkdir()
    tamper(out, outside)
    run(config, out)
    spare = wait_for_spare(config.parent)
    assert (spare / "stray.html").exists(), "the replaced site did not become the spare"
    edit_abstract(config)
    run(config, out)
    assert tree_digest(out) == tree_digest(clean_build(config, tmp_path))
    assert list(outside.iterdir()) == [], "a build wrote through a link in the spare"
    assert [path for path in out.rglob("*") if path.is_symlink()] == []


def test_a_spare_without_its_listing_is_checked_by_the_build(tmp_path: Path) -> None:
    """The listing the background process saves is the build's only trust in the spare;
    without it (or with another folder's), the build walks the spare itself."""
    config, out = built_project(tmp_path)
    spare = wait_for_spare(config.parent)
    outside = tmp_path / "outside"
    outside.mkdir()
    tamper(spare, outside)
    spare.with_suffix(".spare-listing").unlink()
    edit_abstract(config)
    run(config, out)
    assert tree_digest(out) == tree_digest(clean_build(config, tmp_path))
    assert list(outside.iterdir()) == [], "a build wrote through a link in the spare"
    assert [path for path in out.rglob("*") if path.is_symlink()] == []


def test_the_replaced_site_is_kept_as_the_spare_only_while_it_shares_most_files(
    tmp_path: Path,
) -> None:
    config, out = built_project(tmp_path)
    wait_for_spare(config.parent)
    edit_abstract(config)
    changed = run(config, out)
    # The replaced site is the spare now: beyond the site's own files (by inode), it holds
    # only the previous versions of the files this build changed.
    spare = wait_for_spare(config.parent)
    site_inodes = {path.stat().st_ino for path in site_files(out)}
    extra = [path for path in site_files(spare) if path.stat().st_ino not in site_inodes]
    # An abstract edit moves the average abstract length, which weighs every term as lunr.js
    # weighs it (BM25), so every shard of the search's terms changes too.
    shards = len(list((out / "search" / "terms").iterdir()))
    assert 0 < len(extra) <= changed < 20 + shards

    # A change every page shows: the replaced site shares almost nothing, so it is deleted,
    # and the spare linked up afterwards holds nothing but the new site's files.
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("title:", "title: Renamed", 1), encoding="utf-8")
    assert run(config, out) > len(site_inodes) // 2
    spare = wait_for_spare(config.parent)
    site_inodes = {path.stat().st_ino for path in site_files(out)}
    assert [path for path in site_files(spare) if path.stat().st_ino not in site_inodes] == []
    assert sorted(os.listdir(out)) == sorted(os.listdir(spare))


def test_a_file_written_in_parts_links_the_current_one_when_its_bytes_are_the_same(
    tmp_path: Path,
) -> None:
    """`StagingWriter.put_parts` (the downloads): parts written one after the other give the
    bytes joined; bytes the current site's file already has are a link to it, as `put`
    gives, so the file keeps its inode and mtime for a deploy that syncs by them."""
    from confsite.cache.digests import bytes_digest
    from confsite.cache.manifest import Manifest
    from confsite.output.staging import staged_site

    def parts_of(*parts: bytes | memoryview) -> Callable[[], contextlib.nullcontext]:
        return lambda: contextlib.nullcontext(iter(parts))

    out = tmp_path / "site"
    with staged_site(out, Manifest(), None) as writer:
        first = {
            "same.txt": writer.put_parts("same.txt", parts_of(b"ab", memoryview(b"xcdx")[1:3]))
        }
        first["other.txt"] = writer.put_parts("other.txt", parts_of(b"old"))
        first["papers.json"] = writer.put("papers.json", b"{}")
    assert (out / "same.txt").read_bytes() == b"abcd"
    assert first["same.txt"].digest == bytes_digest(b"abcd")
    assert (first["same.txt"].size, first["same.txt"].key) == (4, "")
    with staged_site(out, Manifest(files=first), None) as writer:
        second = {
            "same.txt": writer.put_parts("same.txt", parts_of(b"a", b"bcd")),
            "other.txt": writer.put_parts("other.txt", parts_of(b"new", b"")),
            "papers.json": writer.put("papers.json", b"{}"),
        }
    assert second["same.txt"] == first["same.txt"]
    assert (out / "same.txt").stat().st_ino == first["same.txt"].inode
    assert (out / "other.txt").read_bytes() == b"new"
    assert second["other.txt"].inode != first["other.txt"].inode
    assert second["other.txt"].digest != first["other.txt"].digest


def test_a_new_file_is_written_as_its_pieces_are_made_with_the_digest_of_its_bytes(
    tmp_path: Path,
) -> None:
    """`StagingWriter.put_new` (a first build's downloads): a piece is written before the
    next is made, and the entry is the one `put` gives the joined bytes. A file the last
    build wrote is refused: it may be linked instead, which needs its digest first."""
    from confsite.cache.digests import bytes_digest
    from confsite.cache.manifest import Manifest
    from confsite.output.staging import staged_site

    out = tmp_path / "site"
    # The first piece larger than a write buffer, which then writes it at once.
    larger = max(os.stat(tmp_path).st_blksize, io.DEFAULT_BUFFER_SIZE) + 1
    pieces = (b"<" * larger, memoryview(b"xabx")[1:3], b"", b">" * 9_000)
    joined = b"".join(pieces)
    written_before: list[int] = []  # the file's size as each piece is made

    def made() -> Iterator[bytes | memoryview]:
        for piece in pieces:
            target = next(tmp_path.rglob("new.txt"), None)
            written_before.append(target.stat().st_size if target else -1)
            yield piece

    with staged_site(out, Manifest(), None) as writer:
        entry = writer.put_new("papers/new.txt", made)
        same = writer.put("joined.txt", joined)
    assert (out / "papers" / "new.txt").read_bytes() == joined
    assert entry.digest == bytes_digest(joined)
    assert entry._replace(mtime_ns=0, inode=0) == same._replace(mtime_ns=0, inode=0)
    assert written_before[0] == 0 and written_before[1] >= larger
    with staged_site(out, Manifest(files={"papers/new.txt": entry}), None) as writer:
        with pytest.raises(ValueError, match="papers/new.txt"):
            writer.put_new("papers/new.txt", made)
        writer.put("papers/new.txt", b"kept")


def test_a_file_missing_while_bytes_are_made_is_not_taken_for_a_missing_folder(
    tmp_path: Path,
) -> None:
    """A folder missing when a file is opened is made, and the file written again; an error
    raised once the file exists comes from making its bytes, and is the one told (not the
    file's existing, as writing it again would say)."""
    from confsite.cache.manifest import Manifest
    from confsite.diagnostics import ConfsiteError
    from confsite.output.staging import staged_site

    def pieces() -> Iterator[bytes]:
        yield b"begun"
        raise FileNotFoundError("a source gone while the pieces were made")

    out = tmp_path / "site"
    with (
        pytest.raises(ConfsiteError, match="a source gone"),
        staged_site(out, Manifest(), None) as writer,
    ):
        writer.put_new("papers/new.txt", pieces)
    assert not out.exists()
