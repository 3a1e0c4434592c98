#!/usr/bin/env python3
"""ddplint on labelled public training code: recall, precision and false findings, per check.

Usage: MIRROR=<folder of repository copies> bench/realcode.py [--list-other] [-j N] [--repo OWNER/NAME]
                                                              [--table NAME=PATH] [--project]

Tables scored, side by side in one run:
  dev    ../shared/realcode/devset.tsv (the development set), where present;
  bench  bench/realcode/benchmark.tsv and the first-look batches bench/realcode/firstlook/*/ (this
         project's benchmark);
  NAME   with --table NAME=PATH, that table alone (a batch of new repositories labelled for a first
         look, scored before they join the benchmark), with the flags.tsv beside it.
Each row names a repository, a commit, a file, a check, a line range and a verdict (BUG: the check
must report inside the range; OK: it must stay silent there). flags.tsv beside each table gives the
flags a user's build passes; `--via=FILE:UNIT` there analyses a labelled FILE that does not stand
alone (a `.tpp` a header includes at its end) through the unit UNIT that includes it;
`--configure=PATH.in` writes the header the project's build generates from that CMake template (its
`@VAR@`s replaced by the values of the `-DVAR=value` flags) beside it. Each repository must be present as a git directory at
MIRROR/<owner>+<name>/repo (what the search tool's fetch brings).

Each labelled file is analysed as its own unit (as the clang-tidy plugin sees it), or with
--project together with up to 24 other sources of its repository, nearest folders first, in one
`ddplint -p` run over a compile database of them (as the driver sees a project: a unit is analysed
with the summaries of the functions the other units define).

Every finding outside a BUG row is looked up in bench/realcode/reviewed.tsv, where each was read by
hand and judged TRUE (a real problem the labels did not list) or FALSE; the false ones count against
the check, per analysed file. Findings nobody has read yet are printed as UNREVIEWED.
"""
import collections
import concurrent.futures
import functools
import json
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent
# DDPLINT: another ddplint than the build tree's (a copy taken before a rebuild).
DRIVER = pathlib.Path(os.environ.get("DDPLINT", ROOT / "build" / "bin" / "ddplint"))
HERE = ROOT / "bench" / "realcode"
TABLES = [("dev", ROOT.parent / "shared" / "realcode" / "devset.tsv"),
          ("bench", HERE / "benchmark.tsv")]
REVIEWED = HERE / "reviewed.tsv"
FINDING = re.compile(r"^(.*?):(\d+):\d+: warning: .* \[(ddp-[a-z0-9-]+)[^\]]*\]$", re.M)

Row = collections.namedtuple("Row", "table repo commit path check first last verdict")


def read_tsv(path):
    if not path.exists():
        return []
    return [line.split("\t") for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def bench_tables():
    """The benchmark: benchmark.tsv, and every first-look batch once it was scored."""
    return TABLES + [("bench", batch) for batch in sorted(HERE.glob("firstlook/*/labels.tsv"))]


def load_rows(tables):
    rows, flags = [], {}
    for name, table in tables:
        for repo, commit, path, check, span, verdict in read_tsv(table):
            first, last = (int(x) for x in span.split("-"))
            rows.append(Row(name, repo, commit, path, check, first, last, verdict))
        for repo, repo_flags in read_tsv(table.parent / "flags.tsv"):
            flags[repo] = repo_flags.split()
    return rows, flags


def git_dir(mirror, repo):
    d = mirror / repo.replace("/", "+") / "repo"
    return d / ".git" if (d / ".git").exists() else d


def git(gd, *args):
    return subprocess.run(["git", "--git-dir", str(gd), *args], capture_output=True)


def extract(mirror, work, repo, commit):
    """The repository's tree at the commit (blob by blob where the copy lacks some)."""
    dest = work / repo.replace("/", "+") / commit[:12]
    if (dest / ".done").exists():
        return dest
    gd = git_dir(mirror, repo)
    if not gd.exists():
        return None
    dest.mkdir(parents=True, exist_ok=True)
    archive = git(gd, "archive", "--format=tar", commit)
    try:
        with tempfile.TemporaryFile() as tmp:
            tmp.write(archive.stdout)
            tmp.seek(0)
            with tarfile.open(fileobj=tmp) as tar:
                tar.extractall(dest)
        if archive.returncode:
            raise tarfile.TarError("incomplete archive")
    except tarfile.TarError:
        for entry in git(gd, "ls-tree", "-r", commit).stdout.decode().splitlines():
            meta, name = entry.split("\t", 1)
            _, kind, sha = meta.split()
            blob = git(gd, "cat-file", "blob", sha) if kind == "blob" else None
            if blob is not None and blob.returncode == 0:
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                (dest / name).write_bytes(blob.stdout)
    (dest / ".done").write_text(commit)
    return dest


def dependency_flags(mirror, work, repo_flags):
    """`-I@owner/name:dir`: an include folder of another repository of the mirror (a dependency the
    project's build installs first), taken at that copy's HEAD."""
    out = []
    for fl in repo_flags:
        if not fl.startswith("-I@"):
            out.append(fl)
            continue
        dep, _, sub = fl[3:].partition(":")
        head = git(git_dir(mirror, dep), "rev-parse", "HEAD").stdout.decode().strip()
        dep_root = extract(mirror, work, dep, head) if head else None
        if dep_root is not None:
            out.append(f"-I{dep_root / sub}")
    return out


def configure(root, repo_flags):
    """Writes the headers `--configure=PATH.in` names, as CMake's configure_file would; returns the
    other flags."""
    defines = dict(fl[2:].split("=", 1) for fl in repo_flags if fl.startswith("-D") and "=" in fl)
    rest = []
    for fl in repo_flags:
        if not fl.startswith("--configure="):
            rest.append(fl)
            continue
        template = root / fl[len("--configure="):]
        header = template.with_suffix("")
        if template.is_file() and not header.exists():
            text = re.sub(r"@(\w+)@", lambda m: defines.get(m.group(1), m.group(0)),
                          template.read_text())
            partial = header.with_name(f"{header.name}.{os.getpid()}.{threading.get_ident()}")
            partial.write_text(text)
            os.replace(partial, header)
    return rest


LIBTORCH2_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def fetched_libtorch2_headers():
    dest = ROOT / "build" / "libtorch2"
    fetched = subprocess.run([str(ROOT / "scripts" / "libtorch2-headers"), str(dest)],
                             capture_output=True)
    return dest / "usr" / "include" if fetched.returncode == 0 else None


def libtorch2_headers():
    with LIBTORCH2_LOCK:
        return fetched_libtorch2_headers()


def libtorch_flags(repo_flags):
    """LibTorch's include folders: bookworm's 1.13, or with `--libtorch2` (a project that builds
    against 2.x only) trixie's 2.6 headers as scripts/libtorch2-headers fetches them."""
    if "--libtorch2" not in repo_flags:
        prefix = pathlib.Path("/usr/include")
        return ["-isystem", f"{prefix}/torch/csrc/api/include", "-isystem", f"{prefix}/torch/csrc/distributed"]
    prefix = libtorch2_headers()
    if prefix is None:
        return None
    return ["-isystem", str(prefix), "-isystem", f"{prefix}/torch/csrc/api/include",
            "-isystem", f"{prefix}/torch/csrc/distributed"]


def compile_flags(root, f, repo_flags):
    cuda = f.suffix in (".cu", ".cuh")
    flags = ["-x", "cuda", "--cuda-host-only"] if cuda else ["-x", "c++"]
    flags += ["-std=c++17", "-Wno-everything", "-DUSE_C10D_GLOO", "-DUSE_C10D_MPI"]
    libtorch = libtorch_flags(repo_flags)
    if libtorch is None:
        return None
    flags += libtorch
    flags += ["-isystem", "/usr/lib/x86_64-linux-gnu/openmpi/include"]
    if pathlib.Path("/usr/local/cuda/include").is_dir():
        flags += ["-isystem", "/usr/local/cuda/include"]
    flags += [f"-I{p}" for p in (root, root / "include", f.parent, f.parent.parent / "include")
              if p.is_dir()]
    for fl in (fl for fl in repo_flags if fl != "--libtorch2"):
        relative = fl.startswith("-I") and not fl.startswith("-I/")
        flags.append(f"-I{root / fl[2:]}" if relative else fl)
    return flags


def analyse(mirror, work, flags, unit):
    repo, commit, path = unit
    root = extract(mirror, work, repo, commit)
    if root is None:
        return unit, None, "not present"
    f = root / path
    repo_flags = configure(root, dependency_flags(mirror, work, flags.get(repo, [])))
    via = [fl.split(":", 1)[1] for fl in repo_flags
           if fl.startswith("--via=") and fl[len("--via="):].split(":", 1)[0] == path]
    repo_flags = [fl for fl in repo_flags if not fl.startswith("--via=")]
    analysed = root / via[0] if via else f
    cmd = [str(DRIVER), "--no-cache", "--checks=-*,ddp-*", str(analysed), "--"]
    if via:
        cmd[1:1] = [f"--header-filter={re.escape(f.name)}$"]
    unit_flags = compile_flags(root, analysed, repo_flags)
    if unit_flags is None:
        return unit, None, "no LibTorch 2.x headers (scripts/libtorch2-headers)"
    r = subprocess.run(cmd + unit_flags,
                       capture_output=True, text=True, timeout=900)
    note = "" if r.returncode in (0, 1) else f"ddplint exited {r.returncode}"
    found = {(int(m.group(2)), m.group(3)) for m in FINDING.finditer(r.stdout + r.stderr)
             if pathlib.Path(m.group(1)).resolve() == f.resolve()}
    return unit, found, note


SOURCES = {".c", ".cc", ".cpp", ".cxx", ".cu"}
# How many of a repository's other sources join its project, nearest folders first.
NEIGHBOURS = 24


def neighbours(root, labelled):
    """The repository's other sources, those sharing the deepest folder with a labelled unit
    first (where its helpers and step loops usually live)."""
    def shared(p):
        parts = p.relative_to(root).parts[:-1]
        return max(len(os.path.commonprefix([parts, u.relative_to(root).parts[:-1]]))
                   for u in labelled)
    others = [p for p in root.rglob("*") if p.suffix in SOURCES and p.is_file()
              and p not in labelled]
    return sorted(others, key=lambda p: (-shared(p), str(p)))[:NEIGHBOURS]


def analyse_project(mirror, work, flags, repo, commit, paths):
    """The repository's labelled units analysed together with its nearest other sources, as
    `ddplint -p` analyses a project: a unit sees the summaries of the functions other units
    define."""
    units = [(repo, commit, path) for path in paths]
    root = extract(mirror, work, repo, commit)
    if root is None:
        return [(u, None, "not present") for u in units]
    repo_flags = configure(root, dependency_flags(mirror, work, flags.get(repo, [])))
    via = dict(fl[len("--via="):].split(":", 1) for fl in repo_flags if fl.startswith("--via="))
    repo_flags = [fl for fl in repo_flags if not fl.startswith("--via=")]
    labelled = list(dict.fromkeys(root / via.get(p, p) for p in paths))
    commands = []
    for f in labelled + neighbours(root, labelled):
        unit_flags = compile_flags(root, f, repo_flags)
        if unit_flags is None:
            return [(u, None, "no LibTorch 2.x headers (scripts/libtorch2-headers)") for u in units]
        commands.append({"directory": str(root), "file": str(f),
                         "arguments": ["clang++", *unit_flags, str(f)]})
    db = work / "projects" / repo.replace("/", "+") / commit[:12]
    db.mkdir(parents=True, exist_ok=True)
    (db / "compile_commands.json").write_text(json.dumps(commands))
    cmd = [str(DRIVER), "--no-cache", "-j", "1", "--checks=-*,ddp-*", "-p", str(db)]
    if via:
        cmd.append("--header-filter=(" + "|".join(re.escape(pathlib.Path(p).name) for p in via) + ")$")
    r = subprocess.run(cmd + [c["file"] for c in commands], capture_output=True, text=True,
                       timeout=3600)
    note = "" if r.returncode in (0, 1, 3) else f"ddplint exited {r.returncode}"
    found = collections.defaultdict(set)
    for m in FINDING.finditer(r.stdout + r.stderr):
        found[pathlib.Path(m.group(1)).resolve()].add((int(m.group(2)), m.group(3)))
    return [(u, found[(root / u[2]).resolve()], note) for u in units]


class Tally:
    def __init__(self):
        self.bugs = self.hits = self.oks = self.ok_fp = self.ok_findings = 0
        self.true_other = self.false_other = self.unreviewed = 0
        self.files = set()


def score(rows, results, reviewed, list_other):
    """Per table and check: prints the misses, the false positives and the unread findings."""
    tallies = collections.defaultdict(Tally)
    by_file = collections.defaultdict(list)
    for r in rows:
        by_file[(r.table, r.repo, r.path)].append(r)
    for r in rows:
        found = results.get((r.repo, r.commit, r.path))
        if found is None:
            continue
        t = tallies[(r.table, r.check)]
        inside = sorted(ln for ln, c in found if c == r.check and r.first <= ln <= r.last)
        if r.verdict == "BUG":
            t.bugs += 1
            t.hits += bool(inside)
            if not inside:
                print(f"MISS {r.table} {r.repo}:{r.path}:{r.first}-{r.last} [{r.check}]")
        else:
            t.oks += 1
            t.ok_fp += bool(inside)
            t.ok_findings += len(inside)
            if inside:
                print(f"FALSE-POSITIVE {r.table} {r.repo}:{r.path}:{inside} [{r.check}] (OK row)")
    for (table, repo, path), file_rows in sorted(by_file.items()):
        found = results.get((repo, file_rows[0].commit, path))
        if found is None:
            continue
        for check in {c for _, c in found} | {r.check for r in file_rows}:
            tallies[(table, check)].files.add((repo, path))
        for ln, check in sorted(found):
            # Findings in a BUG row are hits, in an OK row false positives (above).
            if any(r.check == check and r.first <= ln <= r.last for r in file_rows):
                continue
            t = tallies[(table, check)]
            verdict = reviewed.get((repo, path, ln, check))
            if verdict == "TRUE":
                t.true_other += 1
            elif verdict == "FALSE":
                t.false_other += 1
            else:
                t.unreviewed += 1
                print(f"UNREVIEWED {table} {repo}:{path}:{ln} [{check}]")
            if list_other and verdict:
                print(f"OTHER-{verdict} {table} {repo}:{path}:{ln} [{check}]")
    return tallies


def analysed_files(rows, results, table):
    return {(r.repo, r.path) for r in rows if r.table == table
            and results.get((r.repo, r.commit, r.path)) is not None}


def print_table(tallies, rows, results):
    print()
    print(f"{'table':6} {'check':34} {'bugs found':>10} {'OK rows hit':>11} "
          f"{'other T/F/?':>12} {'files':>5} {'false/file':>10}")
    print("(files: where the check has a row or a finding; false/file: findings on OK rows and "
          "other findings read as false, over every analysed file of the table)")
    for table in sorted({t for t, _ in tallies}):
        total = Tally()
        all_files = len(analysed_files(rows, results, table))
        for (tb, check), t in sorted(tallies.items()):
            if tb != table:
                continue
            for field in ("bugs", "hits", "oks", "ok_fp", "ok_findings", "true_other",
                          "false_other", "unreviewed"):
                setattr(total, field, getattr(total, field) + getattr(t, field))
            # False findings: on OK rows and elsewhere, per analysed file of the table.
            per_file = (t.ok_findings + t.false_other) / max(all_files, 1)
            print(f"{table:6} {check:34} {t.hits:>4}/{t.bugs:<5} {t.ok_fp:>4}/{t.oks:<6} "
                  f"{t.true_other:>3}/{t.false_other}/{t.unreviewed:<4} {len(t.files):>5} {per_file:>10.2f}")
        files = analysed_files(rows, results, table)
        repos = {repo for repo, _ in files}
        recall = total.hits / total.bugs if total.bugs else 1.0
        print(f"{table:6} {'all checks':34} {total.hits:>4}/{total.bugs:<5} {total.ok_fp:>4}/{total.oks:<6} "
              f"{total.true_other:>3}/{total.false_other}/{total.unreviewed:<4} {len(files):>5} "
              f"{(total.ok_findings + total.false_other) / max(len(files), 1):>10.2f}")
        print(f"{table}: {len(repos)} repositories, {len(files)} files: recall {recall:.2f}, "
              f"{total.ok_findings} findings on {total.ok_fp} OK rows, {total.false_other} false findings elsewhere, "
              f"{total.unreviewed} unreviewed")
        print()


def main():
    argv = sys.argv[1:]
    if "MIRROR" not in os.environ or "-h" in argv or "--help" in argv:
        sys.exit(__doc__)
    if not DRIVER.exists():
        sys.exit("no build/bin/ddplint: run scripts/build first")
    jobs = int(argv[argv.index("-j") + 1]) if "-j" in argv else (os.cpu_count() or 2)
    only = argv[argv.index("--repo") + 1] if "--repo" in argv else None
    mirror = pathlib.Path(os.environ["MIRROR"])
    work = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "ddplint-realcode-bench"
    tables = bench_tables()
    if "--table" in argv:
        name, _, path = argv[argv.index("--table") + 1].partition("=")
        tables = [(name, pathlib.Path(path).resolve())]
    rows, flags = load_rows(tables)
    if only:
        rows = [r for r in rows if r.repo == only]
    reviewed = {(repo, path, int(line), check): verdict
                for repo, path, line, check, verdict, *_ in read_tsv(REVIEWED)}
    units = sorted({(r.repo, r.commit, r.path) for r in rows})
    results = {}
    if "--project" in argv:
        projects = collections.defaultdict(list)
        for repo, commit, path in units:
            projects[(repo, commit)].append(path)
        tasks = [functools.partial(analyse_project, mirror, work, flags, repo, commit, paths)
                 for (repo, commit), paths in sorted(projects.items())]
    else:
        tasks = [functools.partial(lambda u: [analyse(mirror, work, flags, u)], u) for u in units]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for analysed in pool.map(lambda task: task(), tasks):
            for unit, found, note in analysed:
                results[unit] = found
                if note:
                    print(f"note: {unit[0]}:{unit[2]}: {note}")
    tallies = score(rows, results, reviewed, "--list-other" in argv)
    print_table(tallies, rows, results)


if __name__ == "__main__":
    main()
