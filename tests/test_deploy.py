"""`confsite deploy` with real git in temporary folders (a site repository and a bare "origin"),
and the GitHub Pages workflow `confsite init` writes."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import Ran, run_cli

from confsite.cli.deploy import github_pages_url
from confsite.cli.init import init_site


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """git without the user's or the system's configuration, with an identity to commit as."""
    config = tmp_path / "gitconfig"
    config.write_text("[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    env = {
        "GIT_CONFIG_GLOBAL": str(config),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path.parent),
        "GIT_AUTHOR_NAME": "Ada Example",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada Example",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def confsite(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Ran:
    return run_cli(*args, cwd=cwd, env=env)


def refs(repo: Path) -> str:
    return git("for-each-ref", "--format=%(refname) %(objectname)", cwd=repo)


def untouched_state(repo: Path) -> tuple[str, str, str]:
    """What deploy must leave alone: the status, the index file's bytes and the checked-out
    branch. `--no-optional-locks` keeps this status from rewriting the index itself."""
    status = git("--no-optional-locks", "status", "--porcelain", "--untracked-files=all", cwd=repo)
    index = hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()
    return status, index, git("symbolic-ref", "HEAD", cwd=repo)


@pytest.fixture
def site_repo(tmp_path: Path, git_env: dict[str, str]) -> Path:
    """The starter site, committed on main, with a local bare repository as its origin."""
    site = tmp_path / "site"
    init_site(site)
    git("init", "-q", cwd=site)
    git("add", "-A", cwd=site)
    git("commit", "-q", "-m", "The starter site", cwd=site)
    git("init", "-q", "--bare", str(tmp_path / "origin.git"), cwd=tmp_path)
    git("remote", "add", "origin", str(tmp_path / "origin.git"), cwd=site)
    return site


def published_files(repo: Path, ref: str) -> dict[str, bytes]:
    names = git("ls-tree", "-r", "--name-only", ref, cwd=repo).splitlines()
    return {
        name: subprocess.run(
            ["git", "show", f"{ref}:{name}"], cwd=repo, capture_output=True, check=True
        ).stdout
        for name in names
    }


def built_files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


# --- the base URL a GitHub remote gives ---------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "git@github.com:Example-Org/proceedings.git",
            "https://example-org.github.io/proceedings/",
        ),
        ("https://github.com/ada/ews-2025", "https://ada.github.io/ews-2025/"),
        ("https://github.com/ada/ews-2025.git/", "https://ada.github.io/ews-2025/"),
        ("ssh://git@github.com/ada/site.v2.git", "https://ada.github.io/site.v2/"),
        ("https://token@github.com/ada/p.git", "https://ada.github.io/p/"),
        ("git@github.com:Ada/ada.github.io.git", "https://ada.github.io/"),
        ("https://gitlab.com/ada/proceedings.git", None),
        ("https://github.com.evil.example/ada/p.git", None),
        ("/srv/git/proceedings.git", None),
        (None, None),
    ],
)
def test_github_pages_address_of_a_remote(url: str | None, expected: str | None) -> None:
    assert github_pages_url(url) == expected


# --- dry run and real deploys -------------------------------------------------------------------


def test_dry_run_builds_prints_the_plan_and_writes_no_ref(site_repo: Path) -> None:
    git("remote", "set-url", "origin", "git@github.com:Example-Org/ews-2025.git", cwd=site_repo)
    before, state = refs(site_repo), untouched_state(site_repo)
    result = confsite("deploy", "--dry-run", cwd=site_repo)
    assert result.returncode == 0, result.stderr
    head = git("rev-parse", "HEAD", cwd=site_repo)
    lines = result.stdout.splitlines()
    assert (
        "base URL: https://example-org.github.io/ews-2025/ "
        "(GitHub Pages address of the 'origin' remote)"
    ) in lines
    plan = next(line for line in lines if line.startswith("would publish: "))
    built = built_files(site_repo / ".confsite-cache" / "deploy")
    assert f"{len(built) + 1} files (.nojekyll included)" in plan
    assert f"{sum(map(len, built.values())):,} bytes" in plan
    assert f"built from commit {head[:12]}" in plan
    assert "to branch: gh-pages (a new branch)" in lines
    assert "push to: origin (git@github.com:Example-Org/ews-2025.git)" in lines
    assert "dry run: no commit made, no ref written, nothing pushed" in lines
    # built with the derived base URL, though nothing was published
    assert "https://example-org.github.io/ews-2025/papers/" in built["sitemap.xml"].decode()
    assert refs(site_repo) == before
    assert untouched_state(site_repo) == state


@pytest.mark.slow
def test_deploy_commits_on_gh_pages_pushes_and_keeps_the_history(site_repo: Path) -> None:
    origin = site_repo.parent / "origin.git"
    state = untouched_state(site_repo)
    first = confsite("deploy", "--base-url", "https://example.org/ews/", cwd=site_repo)
    assert first.returncode == 0, first.stderr
    assert "base URL: https://example.org/ews/ (from --base-url)" in first.stdout
    assert untouched_state(site_repo) == state

    tip = git("rev-parse", "refs/heads/gh-pages", cwd=site_repo)
    head = git("rev-parse", "HEAD", cwd=site_repo)
    assert git("rev-parse", "refs/heads/gh-pages", cwd=origin) == tip
    assert git("log", "--format=%P", "-1", tip, cwd=site_repo) == ""  # the branch's first commit
    assert head in git("log", "--format=%B", "-1", tip, cwd=site_repo)
    published = published_files(site_repo, "gh-pages")
    built = built_files(site_repo / ".confsite-cache" / "deploy")
    assert published.pop(".nojekyll") == b""
    assert published == built
    assert {"index.html", "papers.json", "about/index.html", "sitemap.xml"} <= set(published)
    assert b"https://example.org/ews/" in published["sitemap.xml"]

    about = site_repo / "content" / "about.md"
    about.write_text(about.read_text() + "\nA sentence added after the first deploy.\n")
    git("commit", "-q", "-am", "About: one more sentence", cwd=site_repo)
    # A tracked file touched but unchanged: a plain `git status` would now rewrite the index.
    later = (site_repo / "site.yaml").stat().st_mtime + 100
    os.utime(site_repo / "site.yaml", (later, later))
    state = untouched_state(site_repo)
    second = confsite("deploy", "--base-url", "https://example.org/ews/", cwd=site_repo)
    assert second.returncode == 0, second.stderr
    assert f"to branch: gh-pages (on top of {tip[:12]})" in second.stdout
    assert untouched_state(site_repo) == state
    assert about.read_text().endswith("after the first deploy.\n")

    new_tip = git("rev-parse", "refs/heads/gh-pages", cwd=site_repo)
    assert new_tip != tip
    assert git("log", "--format=%P", "-1", new_tip, cwd=site_repo) == tip
    assert git("rev-parse", "HEAD", cwd=site_repo) in git(
        "log", "--format=%B", "-1", new_tip, cwd=site_repo
    )
    assert git("rev-parse", "refs/heads/gh-pages", cwd=origin) == new_tip
    page = published_files(site_repo, "gh-pages")["about/index.html"]
    assert b"A sentence added after the first deploy." in page

    third = confsite("deploy", "--base-url", "https://example.org/ews/", cwd=site_repo)
    assert third.returncode == 0, third.stderr
    assert "gh-pages already holds this site" in third.stdout
    assert git("rev-parse", "refs/heads/gh-pages", cwd=site_repo) == new_tip


@pytest.mark.slow
def test_a_fresh_clone_continues_the_published_history(site_repo: Path, tmp_path: Path) -> None:
    assert confsite("deploy", "--no-push", cwd=site_repo).returncode == 0
    origin = tmp_path / "origin.git"
    assert not git("for-each-ref", "refs/heads/gh-pages", cwd=origin)  # --no-push: not pushed
    git("push", "-q", "origin", "main", "gh-pages", cwd=site_repo)
    published = git("rev-parse", "refs/heads/gh-pages", cwd=origin)

    clone = tmp_path / "clone"
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    (clone / "site.yaml").write_text(
        (clone / "site.yaml").read_text().replace("Example Workshop", "Sample Workshop")
    )
    git("commit", "-q", "-am", "A new title", cwd=clone)
    result = confsite("deploy", cwd=clone)
    assert result.returncode == 0, result.stderr
    tip = git("rev-parse", "refs/heads/gh-pages", cwd=origin)
    assert git("log", "--format=%P", "-1", tip, cwd=origin) == published


# --- refusals: exit 1, one line, no traceback, nothing written ----------------------------------


def assert_refused(result: subprocess.CompletedProcess, words: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and words in result.stderr
    assert "Traceback" not in result.stderr


def test_refuses_outside_a_git_repository(tmp_path: Path, git_env: dict[str, str]) -> None:
    init_site(tmp_path / "site")
    result = confsite("deploy", "--dry-run", cwd=tmp_path / "site")
    assert_refused(result, "is not inside a git repository")


def test_refuses_without_git(site_repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    result = confsite("deploy", cwd=site_repo, env={"PATH": str(empty)})
    assert_refused(result, "git is not installed")


def test_refuses_uncommitted_changes_to_tracked_files(site_repo: Path) -> None:
    overrides = site_repo / "overrides.yaml"
    overrides.write_text(overrides.read_text() + "# an edit not yet committed\n")
    before = refs(site_repo)
    assert_refused(confsite("deploy", cwd=site_repo), "uncommitted changes to tracked files")
    assert "overrides.yaml" in confsite("deploy", cwd=site_repo).stderr
    git("add", "overrides.yaml", cwd=site_repo)  # staged counts too
    assert_refused(confsite("deploy", cwd=site_repo), "uncommitted changes")
    assert refs(site_repo) == before
    assert not (site_repo / ".confsite-cache" / "deploy").exists()  # refused before building


def test_an_untracked_file_is_no_reason_to_refuse(site_repo: Path) -> None:
    (site_repo / "notes.txt").write_text("not part of the site")
    result = confsite("deploy", "--dry-run", cwd=site_repo)
    assert result.returncode == 0, result.stderr


def test_refuses_to_push_without_the_remote(site_repo: Path) -> None:
    git("remote", "remove", "origin", cwd=site_repo)
    assert_refused(confsite("deploy", cwd=site_repo), "no remote 'origin' to push to")
    assert_refused(confsite("deploy", "--remote", "pages", cwd=site_repo), "no remote 'pages'")
    assert "refs/heads/gh-pages" not in refs(site_repo)


def test_refuses_a_build_folder_git_would_commit(site_repo: Path) -> None:
    inside = confsite("deploy", "--dry-run", "--out", "public", cwd=site_repo)
    assert_refused(inside, "inside the repository and not ignored by git")
    git("rm", "-q", ".gitignore", cwd=site_repo)  # .confsite-cache/ is no longer ignored
    git("commit", "-q", "-m", "No .gitignore", cwd=site_repo)
    assert_refused(confsite("deploy", "--dry-run", cwd=site_repo), "add .confsite-cache/deploy/")


def test_refuses_to_deploy_onto_the_checked_out_branch(site_repo: Path) -> None:
    git("checkout", "-q", "-b", "gh-pages", cwd=site_repo)
    assert_refused(confsite("deploy", cwd=site_repo), "gh-pages is the checked-out branch")


# --- the workflow `confsite init` writes --------------------------------------------------------


def test_init_writes_a_github_pages_workflow_that_builds_and_deploys(tmp_path: Path) -> None:
    written = init_site(tmp_path / "site")
    assert ".github/workflows/pages.yml" in written
    workflow = yaml.safe_load((tmp_path / "site" / ".github/workflows/pages.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}

    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    uses = [step.get("uses", "") for step in build["steps"]]
    runs = [step.get("run", "") for step in build["steps"]]
    assert any(use.startswith("actions/checkout@") for use in uses)
    assert any(use.startswith("actions/setup-python@") for use in uses)
    assert any(use.startswith("actions/configure-pages@") for use in uses)
    install = runs.index(next(run for run in runs if run.startswith("pip install")))
    command = next(run for run in runs if run.startswith("confsite build"))
    assert install < runs.index(command)
    assert workflow["env"]["CONFSITE"] and "$CONFSITE" in runs[install]
    assert "--base-url" in command and "steps.pages.outputs.base_url" in command
    assert "--out _site" in command
    upload = next(
        step for step in build["steps"] if "upload-pages-artifact" in step.get("uses", "")
    )
    assert upload["with"]["path"] == "_site"
    assert uses.index(upload["uses"]) > runs.index(command)

    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert [step["uses"].split("@")[0] for step in deploy["steps"]] == ["actions/deploy-pages"]


def test_the_starter_ignores_the_build_and_the_cache(tmp_path: Path) -> None:
    init_site(tmp_path / "site")
    ignored = (tmp_path / "site" / ".gitignore").read_text().split()
    assert "_site/" in ignored and ".confsite-cache/" in ignored
