"""`confsite deploy`: build the site and publish it as a commit on a `gh-pages` branch.

Publishing uses git's plumbing only: the site's files become blobs (`hash-object`), a tree made
in a temporary index (`GIT_INDEX_FILE`, `update-index`, `write-tree`) and a commit on top of
the branch's previous tip (`commit-tree`, `update-ref`). The user's working tree, index and
current branch are never touched, and the branch keeps its history.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..cache.manifest import CACHE_FOLDER
from ..diagnostics import ConfsiteError, Diagnostics
from .terminal import Painter, print_error, print_failure

DEFAULT_BRANCH = "gh-pages"
DEFAULT_REMOTE = "origin"
# The build's folder, beside site.yaml in the project's cache, reused (and so rebuilt
# incrementally) by every deploy. A fresh temporary folder each time would leave its cache
# entries and spare copy (see output/spare.py) behind in the project's cache.
DEPLOY_BUILD_FOLDER = f"{CACHE_FOLDER}/deploy"
NO_JEKYLL = ".nojekyll"  # GitHub Pages would otherwise run Jekyll, which drops `_`-folders
ZERO_COMMIT = "0" * 40
# git@github.com:owner/repo.git, https://github.com/owner/repo, ssh://git@github.com/owner/repo
GITHUB_REMOTE = re.compile(
    r"^(?:[a-z+]+://(?:[^@/]+@)?|[^@/]+@)?github\.com[:/]"
    r"(?P<owner>[A-Za-z0-9-]+)/(?P<repo>[A-Za-z0-9._-]+?)(?:\.git)?/?$"
)


class DeployError(Exception):
    """A reason not to deploy, said in one line."""


@dataclass(frozen=True)
class GitRepository:
    """A git work tree, driven through the `git` executable."""

    git: str  # the executable's path
    top: Path  # the work tree's top folder

    def run(self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
        """git's standard output; DeployError with git's own complaint when it fails."""
        done = self.attempt(*args, stdin=stdin, env=env)
        if done.returncode != 0:
            raise DeployError(f"git {args[0]} failed: {git_complaint(done.stderr)}")
        return done.stdout.decode("utf-8", "replace").rstrip("\n")

    def attempt(
        self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [self.git, *args],
            cwd=self.top,
            input=stdin,
            capture_output=True,
            env={**os.environ, **(env or {})},
        )

    def resolve(self, ref: str) -> str | None:
        """The commit `ref` names, or None when there is no such ref."""
        done = self.attempt("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return done.stdout.decode().strip() if done.returncode == 0 else None


def git_complaint(stderr: bytes) -> str:
    """The line of git's error output that says what went wrong (not its hints)."""
    lines = [" ".join(line.split()) for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line and not line.startswith("hint:")]
    for line in lines:
        if "[rejected]" in line or "[remote rejected]" in line:
            return line.lstrip("! ")
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line.split(":", 1)[1].strip()
    return lines[-1] if lines else "no message"


def find_repository(folder: Path) -> GitRepository:
    """The git work tree holding `folder`; DeployError when git or the repository is missing."""
    git = shutil.which("git")
    if git is None:
        raise DeployError("git is not installed (no 'git' on PATH); deploy publishes with git")
    done = subprocess.run(
        [git, "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise DeployError(
            f"{folder} is not inside a git repository (git init, commit the site, then deploy)"
        )
    return GitRepository(git, Path(done.stdout.strip()).resolve())


def uncommitted_files(repo: GitRepository, folder: Path) -> list[str]:
    """Tracked files under `folder` that differ from HEAD, staged or not. `--no-optional-locks`
    keeps git status from refreshing (rewriting) the user's index."""
    output = repo.run(
        "--no-optional-locks",
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        os.path.relpath(folder, repo.top),
    )
    return [line[3:] for line in output.splitlines() if line.strip()]


def remote_url(repo: GitRepository, remote: str) -> str | None:
    done = repo.attempt("remote", "get-url", remote)
    return done.stdout.decode().strip() if done.returncode == 0 else None


def github_pages_url(url: str | None) -> str | None:
    """The GitHub Pages address of a GitHub repository's remote URL, else None:
    https://OWNER.github.io/REPO/, or https://OWNER.github.io/ for the OWNER.github.io repo."""
    match = GITHUB_REMOTE.match(url or "")
    if match is None:
        return None
    owner, name = match["owner"], match["repo"]
    if name.lower() == f"{owner.lower()}.github.io":
        return f"https://{owner.lower()}.github.io/"
    return f"https://{owner.lower()}.github.io/{name}/"


def choose_base_url(
    option: str | None, configured: str | None, remote: str, url: str | None
) -> tuple[str | None, str]:
    """The base URL to build with, and where it came from (said to the user)."""
    if option is not None:
        return option, "from --base-url"
    if configured is not None:
        return configured, "from base_url in site.yaml"
    derived = github_pages_url(url)
    if derived is not None:
        return derived, f"GitHub Pages address of the {remote!r} remote"
    return None, (
        f"none: no --base-url, no base_url in site.yaml, and the {remote!r} remote is not a "
        "GitHub repository; the site has no canonical links, sitemap.xml or robots.txt"
    )


def check_build_folder(repo: GitRepository, out_dir: Path) -> None:
    """Refuse a build folder that git would take into the user's next commit."""
    target, top = out_dir.resolve(), repo.top
    if target != top and top not in target.parents:
        return
    relative = target.relative_to(top).as_posix()
    ignored = target != top and repo.attempt("check-ignore", "--quiet", relative).returncode == 0
    if not ignored:
        raise DeployError(
            f"{out_dir}: the deploy build folder is inside the repository and not ignored by "
            f"git, so the built site could be committed with the sources; add "
            f"{relative if target != top else '.'}/ to .gitignore or pass --out a folder "
            "outside the repository"
        )


@dataclass(frozen=True)
class SiteFile:
    path: str  # relative to the site folder, with "/"
    source: Path
    mode: str  # git's file mode


def site_files(out_dir: Path) -> list[SiteFile]:
    """Every file of the built site, sorted by path; anything but a regular file is refused."""
    files = []
    for folder, folders, names in os.walk(out_dir):
        folders.sort()
        for name in sorted(names):
            source = Path(folder) / name
            path = source.relative_to(out_dir).as_posix()
            if source.is_symlink() or not source.is_file() or "\n" in path:
                raise DeployError(f"{source}: not a regular file; a built site has only files")
            mode = "100755" if os.access(source, os.X_OK) else "100644"
            files.append(SiteFile(path, source, mode))
    return sorted(files, key=lambda file: file.path)


def write_tree(repo: GitRepository, files: list[SiteFile]) -> str:
    """A git tree of `files` plus an empty .nojekyll, made in a temporary index."""
    paths = "".join(f"{file.source.resolve()}\n" for file in files).encode()
    # --no-filters: the site's bytes exactly, whatever autocrlf or attributes say
    blobs = repo.run("hash-object", "-w", "--no-filters", "--stdin-paths", stdin=paths).split()
    empty = repo.run("hash-object", "-w", "--no-filters", "--stdin", stdin=b"")
    entries = [(file.mode, blob, file.path) for file, blob in zip(files, blobs, strict=True)]
    entries.append(("100644", empty, NO_JEKYLL))
    index_info = b"".join(f"{mode} {blob}\t{path}\0".encode() for mode, blob, path in entries)
    with tempfile.TemporaryDirectory(prefix="confsite-deploy-") as folder:
        index = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        repo.run("update-index", "--add", "-z", "--index-info", stdin=index_info, env=index)
        return repo.run("write-tree", env=index)


@dataclass(frozen=True)
class Published:
    commit: str  # the branch's tip after publishing
    parent: str | None  # its tip before (or the remote's, for a branch not yet local)
    created: bool  # a new commit was made; False when the site is the tip's site already


def publish(
    repo: GitRepository, files: list[SiteFile], branch: str, remote: str, message: str
) -> Published:
    """Commit the site on `branch`, on top of its tip (or of the remote's copy of it, so a
    fresh clone continues the published history)."""
    ref = f"refs/heads/{branch}"
    local = repo.resolve(ref)
    parent = local or repo.resolve(f"refs/remotes/{remote}/{branch}")
    tree = write_tree(repo, files)
    if parent is not None and repo.run("rev-parse", f"{parent}^{{tree}}") == tree:
        if local is None:
            repo.run("update-ref", "-m", "confsite deploy", ref, parent, ZERO_COMMIT)
        return Published(parent, parent, created=False)
    parents = ["-p", parent] if parent else []
    commit = repo.run("commit-tree", tree, *parents, "-m", message)
    # the expected old value makes a concurrent change of the branch fail instead of being lost
    repo.run("update-ref", "-m", "confsite deploy", ref, commit, local or ZERO_COMMIT)
    return Published(commit, parent, created=True)


def push(repo: GitRepository, remote: str, branch: str) -> None:
    ref = f"refs/heads/{branch}"
    done = repo.attempt("push", remote, f"{ref}:{ref}")
    if done.returncode != 0:
        raise DeployError(
            f"git push to {remote!r} failed: {git_complaint(done.stderr)} (the local "
            f"{branch} branch has the new commit; fix the cause and push it, or deploy again)"
        )


def commit_message(head: str, folder: str, base_url: str | None, dirty: bool) -> str:
    where = f" (folder {folder})" if folder != "." else ""
    lines = [
        f"Deploy {head[:12]} with confsite {__version__}",
        "",
        f"Built from commit {head}{where}"
        + (", with uncommitted changes to tracked files" if dirty else "")
        + ".",
        f"Base URL: {base_url or 'none'}",
    ]
    return "\n".join(lines) + "\n"


def run_deploy(args: argparse.Namespace) -> int:
    """The `deploy` command: 0 published (or planned), 1 refused or failed."""
    try:
        return _deploy(args)
    except DeployError as err:
        print_error(str(err), sys.stderr)
        return 1


def _deploy(args: argparse.Namespace) -> int:
    # Imported here: the pipeline and the config pull in Jinja, the readers and more, which
    # --help (which names this module's defaults) need not wait for.

    from ..config import load_config
    from ..pipeline import BuildOptions
    from .summary import build_and_report, display_path, human_bytes

    paint = Painter.for_stream(sys.stdout)
    config_path = Path(args.config)
    if not config_path.is_file():
        raise DeployError(f"{config_path}: no such file (run deploy in the site's folder)")
    folder = config_path.resolve().parent
    repo = find_repository(folder)
    head = repo.resolve("HEAD")
    if head is None:
        raise DeployError("the repository has no commit yet; commit the site, then deploy")
    branch_ref = f"refs/heads/{args.branch}"
    current = repo.attempt("symbolic-ref", "--quiet", "HEAD").stdout.decode().strip()
    if current == branch_ref:
        raise DeployError(f"{args.branch} is the checked-out branch; deploy from the sources")
    dirty = uncommitted_files(repo, folder)
    if dirty and not args.allow_dirty:
        shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        raise DeployError(
            f"uncommitted changes to tracked files ({shown}): commit or stash them so the "
            "published site matches a commit, or pass --allow-dirty"
        )
    url = remote_url(repo, args.remote)
    if url is None and args.push:
        raise DeployError(
            f"no remote {args.remote!r} to push to: add one (git remote add {args.remote} URL), "
            "name another with --remote, or pass --no-push"
        )

    try:
        config = load_config(config_path, Diagnostics())
    except ConfsiteError as err:
        print_failure(err, sys.stderr)
        return 1
    base_url, origin = choose_base_url(args.base_url, config.base_url, args.remote, url)
    out_dir = args.out if args.out is not None else config.root / DEPLOY_BUILD_FOLDER
    check_build_folder(repo, out_dir)
    print(f"base URL: {base_url or '-'} ({origin})", flush=True)

    options = BuildOptions(config_path, out_dir, base_url, args.strict, args.jobs, args.use_cache)
    if build_and_report(options, args) is None:
        return 1

    files = site_files(out_dir)
    size = sum(file.source.stat().st_size for file in files)
    parent = repo.resolve(branch_ref) or repo.resolve(f"refs/remotes/{args.remote}/{args.branch}")
    verb = "would publish" if args.dry_run else "publishing"
    print(
        f"{verb}: {len(files) + 1:,} files ({NO_JEKYLL} included), {human_bytes(size)}, "
        f"built from commit {head[:12]} into {display_path(out_dir)}"
    )
    print(f"to branch: {args.branch} ({f'on top of {parent[:12]}' if parent else 'a new branch'})")
    print(f"push to: {f'{args.remote} ({url})' if args.push else 'nowhere (--no-push)'}")
    if args.dry_run:
        print("dry run: no commit made, no ref written, nothing pushed")
        return 0

    relative_folder = os.path.relpath(folder, repo.top)
    message = commit_message(head, Path(relative_folder).as_posix(), base_url, bool(dirty))
    published = publish(repo, files, args.branch, args.remote, message)
    if published.created:
        print(f"committed {paint(published.commit[:12], 'bold')} to {args.branch}")
    else:
        print(f"{args.branch} already holds this site ({published.commit[:12]}): no new commit")
    if args.push:
        push(repo, args.remote, args.branch)
        print(f"pushed {args.branch} to {args.remote} ({url})")
    return 0
