"""Benchmark confsite at archive scale, side by side with MkDocs.

For each shape and size a synthetic corpus (bench/corpus.py: dumps in the seed formats, in the
shapes of real programs: many sessions, one giant list, prolific authors, long abstracts with
math) is built four ways, each in a fresh process: a full build (no output, no cache), a
rebuild with nothing changed, a rebuild after a new word is added to one abstract, and one
after a common word is added to it (`common_word`). Reported: wall and CPU
seconds per phase, peak memory of the whole process tree (PSS, sampled in one more full build:
see `SAMPLE_SECONDS`), files and bytes written, search index bytes, and how many files each
rebuild rewrote (by inode and mtime). Up to 10,000 papers the four builds are repeated
(`--repeat`, default 3) and each is the median run, as the same build varies by 10-20% from
run to run on this machine. Where MkDocs is installed
(`pip install -e .[bench]`), it builds the same papers as one Markdown page each with its
search plugin, and the ratio is given. Its navigation lists the sections (a session, or the
list), not every paper: MkDocs renders the whole navigation into every page, and a 10,000-entry
one would measure that rather than the pages. Nothing is deleted between builds (see `Trash`).
A fixed task is timed before each build (`reference_seconds`), and its median reported: the
seconds of two tables measured on different machines compare only through it. A shape whose
reference tasks ran a quarter slower than the run's median is named at the end, to be timed
again: it met a slow stretch of the machine.

    python bench/run.py                           # every shape at 1,000, 10,000 and 100,000
    python bench/run.py --sizes 1000 10000 --shapes prolific giant-list --mkdocs-up-to 10000
    python bench/run.py --sizes --real-world      # the real-world dumps alone (bench/corpus.py)
    python bench/run.py --sizes --site ~/exports  # a folder of site.yaml and dumps/ only
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import psutil

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import targets  # noqa: E402
from corpus import (  # noqa: E402
    REAL_WORLD,
    SHAPES,
    real_world_corpus,
    real_world_records,
    write_corpus,
    write_real_world_site,
)

RESULTS = BENCH / "results"
# Reading a process's PSS walks its page tables under its memory lock, which stalls the
# process's own page faults: sampled every 0.1 s, it made a 10,000-paper build 2 s slower, and
# every 0.5 s still about 0.5 s. So the timed builds are not sampled; the peak is that of one
# more full build, sampled this often.
SAMPLE_SECONDS = 0.5
# Builds start this long after the previous one ends, as a person's edits would: what a build
# leaves to a background process (deleting the replaced site, readying the spare) is done.
SETTLE_SECONDS = 2.0
# Seconds of it at 100,000 papers: after the pause a build waits, up to IDLE_WAIT_SECONDS,
# until the machine's cores are busy less than IDLE_CORES together (as /proc/stat counts
# them; time stolen by other guests is not ours).
IDLE_CORES = 0.2
IDLE_WAIT_SECONDS = 60.0
# On ext4 without a journal (this machine's disk), creating a file skips, one by one, the free
# inodes deleted in the last minute or so: a build made right after deleting the last run's
# 30,000 files spent up to 6 s more in the kernel. So the benchmark never deletes between
# builds: what it would delete is moved aside (`Trash`) and deleted once every build is done,
# and a run that had to delete an earlier run's files first waits this long.
INODE_RECENCY_SECONDS = 65


class Trash:
    """A folder things are moved into instead of deleted, emptied once at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._count = 0

    def put(self, path: Path) -> None:
        if path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            self._count += 1
            path.rename(self.folder / f"{self._count}-{path.name}")

    def empty(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


BUILD_CHILD = """
import json, os, sys
from pathlib import Path
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build
r = build(BuildOptions(config_path=Path(sys.argv[1]), out=Path(sys.argv[2])), Diagnostics())
print(json.dumps({
    "papers": len(r.papers), "pages": r.pages, "pages_rendered": r.pages_rendered,
    "files": r.files_written, "bytes": r.bytes_written, "files_changed": r.files_changed,
    "up_to_date": r.up_to_date, "authors": r.authors,
    "wall": r.timings, "cpu": r.cpu_timings,
}))
sys.stdout.flush()
os._exit(0)  # as the command line exits (confsite.cli.commands.run)
"""


def tree_pss(process: psutil.Process) -> int:
    """Proportional memory of a process and its descendants: shared pages counted once."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            total += member.memory_full_info().pss
    return total


def measure(
    command: list[str],
    cwd: Path | None = None,
    timeout: float | None = None,
    sampled: bool = False,
) -> dict:
    """Run a command; wall time, CPU time of it and its waited-for descendants, and the
    largest resident set of any of them (`max_rss_bytes`, from the kernel: the peak of a
    single process such as MkDocs, at no cost); `sampled`, also the peak PSS of the whole
    process tree (`peak_bytes`), which slows the command (see `SAMPLE_SECONDS`).
    Past `timeout` seconds the command is killed and the run marked as timed out."""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watched = psutil.Process(child.pid)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            try:
                peak = max(peak, tree_pss(watched))
            except psutil.NoSuchProcess:
                return
            done.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True) if sampled else None
    if sampler:
        sampler.start()
    killer = threading.Timer(timeout, child.kill) if timeout else None
    if killer:
        killer.start()
    _, status, usage = os.wait4(child.pid, 0)
    timed_out = killer is not None and not killer.is_alive() and status != 0
    if killer:
        killer.cancel()
    wall = time.perf_counter() - started
    done.set()
    if sampler:
        sampler.join()
    stdout, stderr = child.stdout.read(), child.stderr.read()
    child.returncode = os.waitstatus_to_exitcode(status)
    if not timed_out and child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr.decode()[-3000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_bytes": peak if sampler else None,
        "max_rss_bytes": usage.ru_maxrss * 1024,
        "stdout": "" if timed_out else stdout.decode(),
        "timed_out": timed_out,
    }


def file_states(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(folder)): (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def compile_confsite() -> None:
    """Byte-compile confsite's modules, as installing it does (pip compiles a wheel's modules):
    with PYTHONDONTWRITEBYTECODE set, or an editable install not yet imported, every build would
    compile its modules again (0.1 s of a 1,000-paper build)."""
    import confsite

    if not compileall.compile_dir(Path(confsite.__file__).parent, quiet=1):
        print("warning: confsite's modules could not all be compiled", file=sys.stderr)


def confsite_build(config: Path, out: Path, sampled: bool = False) -> dict:
    run = measure([sys.executable, "-c", BUILD_CHILD, str(config), str(out)], sampled=sampled)
    return {**run, **{"result": json.loads(run.pop("stdout"))}}


def editable_abstract(folder: Path, site: Path) -> tuple[dict, Path, str]:
    """The first paper (by id) whose abstract's opening is in a dump as the site shows it,
    the dump, and the opening. (A real dump also has long lines that are no paper's
    abstract: an awards post's introduction.)"""
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    dumps = {}
    for dump in sorted(path for path in (folder / "dumps").rglob("*") if path.is_file()):
        with contextlib.suppress(UnicodeDecodeError):  # a PDF beside the dumps, say
            dumps[dump] = dump.read_text(encoding="utf-8")
    for paper in papers:
        opening = (paper["abstract"] or "")[:60]
        if len(opening) < 60 or " " not in opening:
            continue
        for dump, text in dumps.items():
            if opening in text:
                return paper, dump, opening
    raise SystemExit(f"no abstract of {site} is found as it is in a dump of {folder}")


def change_one_abstract(folder: Path, site: Path, word: str = "revised") -> str:
    """Add `word` to the `editable_abstract`; returns its dump's path under dumps/."""
    _, dump, opening = editable_abstract(folder, site)
    text = dump.read_text(encoding="utf-8")
    edited = opening.replace(" ", f" {word} ", 1)
    dump.write_text(text.replace(opening, edited, 1), encoding="utf-8")
    return str(dump.relative_to(folder / "dumps"))


# The common word of the second edit is held by at most this share of abstracts: a word in
# more is left out of related papers (render/related.py's MAX_DOCUMENT_SHARE).
COMMON_WORD_SHARE = 0.1


def common_word(folder: Path, site: Path) -> str:
    """A word of letters of the site's abstracts whose index term is held by the most papers
    (in title or abstract, as related papers count them) within COMMON_WORD_SHARE of them,
    and not by the `editable_abstract`'s paper. Added to it, the word changes its term's
    weight in every paper that holds it, and a rebuild's related papers must follow: an edit
    as likely as a new word, and much more work."""
    from confsite.render.terms import field_terms, term, tokens

    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))

    def paper_terms(paper: dict) -> set[str]:
        return set(field_terms(f"{paper['title'] or ''}\n{paper['abstract'] or ''}"))

    held = Counter(held_term for paper in papers for held_term in paper_terms(paper))
    edited = paper_terms(editable_abstract(folder, site)[0])
    limit = COMMON_WORD_SHARE * len(papers)
    texts = [paper["abstract"] or "" for paper in papers]
    words = {term(word): word for text in texts for word in tokens(text) if word.isalpha()}
    within = [
        (count, held_term)
        for held_term, count in held.items()
        if count <= limit and held_term in words and held_term not in edited
    ]
    if not within:
        raise SystemExit(f"no word of {site}'s abstracts is held by at most {limit:.0f} papers")
    return words[max(within)[1]]


def mkdocs_build(site: Path, folder: Path, timeout: float) -> dict | None:
    """The same papers as one Markdown page each, built by MkDocs with its search plugin, in a
    folder per section (session, or the collection's list) with an index page listing its
    papers; the navigation names the sections only."""
    if shutil.which("mkdocs") is None:
        return None
    docs = folder / "docs"
    docs.mkdir(parents=True)
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    (docs / "index.md").write_text(f"# Proceedings\n\n{len(papers)} papers.\n", encoding="utf-8")
    sections: dict[str, list[dict]] = {}
    for paper in papers:
        where = paper["sessions"][0] if paper["sessions"] else paper["conference"] or "papers"
        sections.setdefault(str(where), []).append(paper)
    nav = ["  - Home: index.md"]
    for number, (name, members) in enumerate(sorted(sections.items())):
        section = docs / f"s{number}"
        section.mkdir()
        listing = [f"# {name}\n"]
        for paper in members:
            title = paper["title"] or "Untitled paper"
            page = f"# {title}\n\n*{', '.join(paper['authors'])}*\n\n{paper['abstract'] or ''}\n"
            (section / f"{paper['id']}.md").write_text(page, encoding="utf-8")
            listing.append(f"- [{title}]({paper['id']}.md)")
        (section / "index.md").write_text("\n".join(listing) + "\n", encoding="utf-8")
        nav.append(f"  - {json.dumps(name)}: s{number}/index.md")
    (folder / "mkdocs.yml").write_text(
        "site_name: Proceedings\nplugins:\n  - search\nnav:\n" + "\n".join(nav) + "\n",
        encoding="utf-8",
    )
    run = measure(["mkdocs", "build", "-q", "-d", str(folder / "site")], folder, timeout)
    run.pop("stdout")
    index = folder / "site" / "search" / "search_index.json"
    run["search_index_bytes"] = index.stat().st_size if index.exists() else None
    return run


def settle() -> float:
    """Between builds: the disk writes the last step left behind, a pause, then the
    reference task timed, whose seconds it returns. A lent machine's speed drifts by a
    quarter within minutes, so one timing before all the builds would not stand for them."""
    os.sync()
    idle_machine(SETTLE_SECONDS)
    return reference_seconds(runs=3)


def idle_machine(pause: float) -> None:
    """Waits `pause` seconds, then until the machine is idle (see IDLE_CORES)."""
    time.sleep(pause)
    deadline = time.monotonic() + IDLE_WAIT_SECONDS
    while time.monotonic() < deadline and busy_cores(0.25) > IDLE_CORES:
        pass


def median_run(runs: list[dict]) -> dict:
    """The run with the median wall time, with every run's wall time beside it: on this
    virtual machine the same build varies by 10-20% from run to run."""
    chosen = dict(sorted(runs, key=lambda run: run["wall"])[len(runs) // 2])
    chosen["walls"] = [run["wall"] for run in runs]
    return chosen


def own_copy(corpus: Path, folder: Path) -> Path:
    """A copy of a corpus's config and dumps, whose abstracts a benchmark may change; the
    copy's folder. Nothing else is copied: a site with content pages, overrides or a theme of
    its own is not measured whole."""
    folder.mkdir(parents=True)
    shutil.copy2(corpus / "site.yaml", folder / "site.yaml")
    shutil.copytree(corpus / "dumps", folder / "dumps")
    return folder


def bench_size(
    count: int,
    shape: str,
    work: Path,
    trash: Trash,
    with_mkdocs: bool,
    mkdocs_timeout: float,
    repeat: int,
    site: Path | None = None,
) -> dict:
    folder = work / f"corpus-{shape}-{count}"
    if site is not None:
        config = own_copy(site, folder) / "site.yaml"
    elif shape == REAL_WORLD:
        config = write_real_world_site(folder)
        assert config is not None, "main() checks that the corpus is there"
    else:
        config = write_corpus(count, folder, shape=shape)
    out = folder / "_site"
    report: dict = {"shape": shape, "size": count}
    runs: dict[str, list[dict]] = {"full": [], "noop": [], "one_abstract": [], "common_word": []}
    references = report["reference_seconds"] = []

    def full_build(sampled: bool = False) -> dict:
        """A build from nothing: no output folder, no cache."""
        for leftover in (out, folder / ".confsite-cache"):
            trash.put(leftover)
        references.append(settle())
        return confsite_build(config, out, sampled)

    pristine = folder / "dumps-as-made"  # each repeat edits the dumps as they were made
    shutil.copytree(folder / "dumps", pristine)
    for _ in range(repeat):
        trash.put(folder / "dumps")
        shutil.copytree(pristine, folder / "dumps")
        runs["full"].append(full_build())
        states = file_states(out)
        references.append(settle())
        noop = confsite_build(config, out)
        noop["files_rewritten"] = _rewritten(states, file_states(out))
        runs["noop"].append(noop)
        states = file_states(out)
        report["edited_dump"] = change_one_abstract(folder, out)
        references.append(settle())
        one = confsite_build(config, out)
        one["files_rewritten"] = _rewritten(states, file_states(out))
        runs["one_abstract"].append(one)
        states = file_states(out)
        report["added_word"] = word = common_word(folder, out)
        change_one_abstract(folder, out, word)
        references.append(settle())
        common = confsite_build(config, out)
        common["files_rewritten"] = _rewritten(states, file_states(out))
        runs["common_word"].append(common)
    report.update({kind: median_run(measured) for kind, measured in runs.items()})
    report["full"]["peak_bytes"] = full_build(sampled=True)["peak_bytes"]
    report["papers"] = report["full"]["result"]["papers"]  # as the site holds them, merged
    search = out / "search"
    report["search_index_bytes"] = sum(p.stat().st_size for p in search.rglob("*.js"))
    if with_mkdocs:
        report["mkdocs"] = mkdocs_build(out, work / f"mkdocs-{shape}-{count}", mkdocs_timeout)
    trash.put(folder)
    trash.put(work / f"mkdocs-{shape}-{count}")
    return report


def _rewritten(before: dict, after: dict) -> int:
    return sum(1 for path, state in after.items() if before.get(path) != state)


PHASES = ("read", "normalize", "site", "render", "write")


def table(reports: list[dict]) -> str:
    lines = [
        "| shape | papers | full build wall / CPU | "
        + " | ".join(f"{p} wall / CPU" for p in PHASES)
        + " | peak memory | files | bytes | search index | no-op rebuild | "
        "one abstract changed | common word added | MkDocs wall / max RSS | MkDocs ÷ confsite |",
        "|" + "---|" * (12 + len(PHASES)),
    ]
    for r in reports:
        full = r["full"]
        phases = " | ".join(
            f"{full['result']['wall'].get(p, 0):.2f} / {full['result']['cpu'].get(p, 0):.2f} s"
            for p in PHASES
        )
        mk = r.get("mkdocs")
        if not mk:
            mk_cells = "– | –"
        elif mk["timed_out"]:
            mk_cells = f"unfinished after {mk['wall']:.0f} s | > {mk['wall'] / full['wall']:.0f}×"
        else:
            mk_cells = (
                f"{mk['wall']:.1f} s / {mk['max_rss_bytes'] / 2**20:,.0f} MiB | "
                f"{mk['wall'] / full['wall']:.1f}×"
            )
        noop, one, common = r["noop"], r["one_abstract"], r["common_word"]
        lines.append(
            f"| {r.get('shape', 'sessions')} | {r['papers']:,} | "
            f"{full['wall']:.1f} / {full['cpu']:.1f} s | {phases} | "
            f"{full['peak_bytes'] / 2**20:,.0f} MiB | {full['result']['files']:,} | "
            f"{full['result']['bytes'] / 2**20:,.0f} MiB | "
            f"{r['search_index_bytes'] / 2**10:,.0f} KiB | "
            f"{noop['wall']:.2f} s, {noop['files_rewritten']} files rewritten | "
            f"{one['wall']:.2f} s, {one['files_rewritten']} files rewritten "
            f"({one['result']['pages_rendered']} pages rendered) | "
            f'{common["wall"]:.2f} s ("{r["added_word"]}"), '
            f"{common['files_rewritten']} files rewritten | {mk_cells} |"
        )
    return "\n".join(lines)


def busy_cores(seconds: float) -> float:
    """The cores busy on average over the next `seconds` (user, system and interrupts, from
    /proc/stat); 0 where there is no /proc/stat."""

    def ticks() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            values = [int(value) for value in stat.readline().split()[1:]]
        user, nice, system, _idle, _iowait, irq, softirq = values[:7]
        return sum(values), user + nice + system + irq + softirq

    try:
        total, busy = ticks()
        time.sleep(seconds)
        total_after, busy_after = ticks()
    except OSError:
        return 0.0
    elapsed = total_after - total
    return (os.cpu_count() or 1) * (busy_after - busy) / elapsed if elapsed else 0.0


def reference_seconds(runs: int = 5) -> float:
    """Seconds this machine takes for a fixed interpreter-bound task (the fastest of `runs`):
    strings split, counted, joined and escaped, as a build's own work is. Machines lent for
    a session differ by up to twice in speed, so a table is compared with another through
    this, not by its seconds alone."""
    import html
    from collections import Counter

    words = [f"word{n % 997}" for n in range(200_000)]
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        counts = Counter(words)
        text = " ".join(f"<li>{html.escape(word)} {counts[word]}</li>" for word in words)
        sorted(text.split(), key=len)
        best = min(best, time.perf_counter() - started)
    return best


def upper_median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def reference_line(references: list[float]) -> str:
    if not references:
        return "reference task: not timed"
    ordered = sorted(references)
    return (
        f"reference task: median {upper_median(ordered):.3f} s over {len(ordered)} builds "
        f"({ordered[0]:.3f}-{ordered[-1]:.3f} s)"
    )


# A shape whose reference tasks ran this much slower than the run's median met a slow stretch
# of the machine: its builds are likely slow too, and worth running again.
NOISY_REFERENCE = 1.25


def noisy_lines(reports: list[dict], references: list[float]) -> list[str]:
    """A line for each shape whose builds met a slow stretch, with the command that times it
    again: the machine's speed drifts by a third within minutes."""
    if not references:
        return []
    median, lines = upper_median(references), []
    for report in reports:
        shape, slowest = report["shape"], max(report["reference_seconds"], default=0.0)
        if slowest <= NOISY_REFERENCE * median:
            continue
        again = f" with --sizes {report['size']} --shapes {shape}" if shape in SHAPES else ""
        lines.append(
            f"{shape} met a slow stretch (reference task up to {slowest:.3f} s against "
            f"{median:.3f} s): time it again{again}"
        )
    return lines


def processor() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument(
        "--mkdocs-up-to", type=int, default=100000, help="largest size MkDocs also builds"
    )
    parser.add_argument(
        "--mkdocs-timeout", type=float, default=900, help="seconds before MkDocs is stopped"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per build up to --repeat-up-to; the median"
    )
    parser.add_argument("--repeat-up-to", type=int, default=10000)
    parser.add_argument(
        "--real-world",
        action="store_true",
        help="also every dump of the real-world corpus as one site (bench/corpus.py)",
    )
    parser.add_argument(
        "--site",
        type=Path,
        action="append",
        default=[],
        help="also this site: a folder of only site.yaml and the dumps it names under dumps/ "
        "(real exports, say; content pages, overrides and themes are not copied); built with "
        "MkDocs and repeated whatever its size",
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/confsite-bench"))
    parser.add_argument("--json", type=Path, default=RESULTS / "run.json")
    args = parser.parse_args()
    for site in args.site:
        if not (site / "site.yaml").is_file() or not (site / "dumps").is_dir():
            raise SystemExit(f"--site {site}: needs site.yaml and a dumps/ folder")
    if args.work.exists():  # an earlier run's files
        shutil.rmtree(args.work)
        print(f"waiting {INODE_RECENCY_SECONDS} s after deleting {args.work} ...", file=sys.stderr)
        os.sync()
        time.sleep(INODE_RECENCY_SECONDS)
    trash = Trash(args.work / "trash")
    compile_confsite()
    reports = []
    runs = [(count, shape) for count in args.sizes for shape in args.shapes]
    if args.real_world:
        if real_world_corpus() is None:
            raise SystemExit("--real-world: no corpus in $CONFSITE_CORPUS or ../shared/realworld")
        runs.append((real_world_records(), REAL_WORLD))
    for count, shape in runs:
        print(f"{count:,} papers, {shape} ...", file=sys.stderr, flush=True)
        with_mkdocs = count <= args.mkdocs_up_to
        repeat = args.repeat if count <= args.repeat_up_to else 1
        reports.append(
            bench_size(count, shape, args.work, trash, with_mkdocs, args.mkdocs_timeout, repeat)
        )
        print(table(reports[-1:]), file=sys.stderr, flush=True)
    for number, site in enumerate(args.site):
        print(f"{site} ...", file=sys.stderr, flush=True)
        label = f"site-{site.resolve().name}"
        reports.append(
            bench_size(
                number, label, args.work, trash, True, args.mkdocs_timeout, args.repeat, site
            )
        )
        print(table(reports[-1:]), file=sys.stderr, flush=True)
    trash.empty()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    references = [seconds for report in reports for seconds in report["reference_seconds"]]
    environment = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "processor": processor(),
        "reference_seconds": [round(seconds, 4) for seconds in references],
    }
    args.json.write_text(json.dumps({"environment": environment, "runs": reports}, indent=2))
    print(table(reports))
    print(f"\n{reference_line(references)} ({environment['processor']})")
    for line in noisy_lines(reports, references):
        print(line)
    print(f"\nIssue 20's targets:\n\n{targets.table(targets.rows(reports))}")
    print(f"JSON: {args.json}")


if __name__ == "__main__":
    main()
