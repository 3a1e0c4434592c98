#!/usr/bin/env python3
"""Scores ddplint's findings on the labelled corpora against their ground truth.

Runs build/bin/ddplint on every program of each corpus (*.cpp and *.hpp; a
header is analysed on its own, as an editor or a pre-commit hook would),
matches each warning to an entry of the corpus's EXPECTED with the same check
and file whose line is within --window lines, and prints per corpus and per
check the expected and found counts, true and false positives, false
negatives, precision and recall, then every false positive and false
negative as file:line, and a summary per corpus.

Corpora (default: both):

  bench/corpus  self-contained trainers, parsed with the mock headers of
                test/Inputs (no compile_flags.txt there);
  bench/shapes  programs in the shapes public training code takes (class
                templates in headers, collective helpers, communicator
                classes, NCCL and MPI check macros, #ifdef-gated code, a unit
                that does not type-check), parsed with the real LibTorch 1.13
                headers named in its compile_flags.txt.

Compile flags: --headers=default uses the corpus's compile_flags.txt (one
flag per line, relative paths taken from the corpus directory) when it has
one, else the mock headers; --headers=real or --headers=mock forces one.
A program whose first lines hold a comment `// flags: -DNAME ...` gets those
flags too. Programs with the same flags are analysed in one ddplint run, so
units with the same leading includes share a precompiled preamble.

Exit status: 0 when every miss and every false positive is listed in the
corpus's KNOWN-MISSES (see --known), 1 when a labelled finding is missed or
a false positive appears that the list does not hold (a regression), 2 when
ddplint cannot be run, fails as a tool, or analyses a unit vacuously (exit
3: its headers not found). --measure-only always exits 0
(except on tool errors), as a measurement. Known entries that are now
right are reported so that the list can shrink; they do not fail the run.

KNOWN-MISSES holds one entry per line: `FILE:LINE CHECK-NAME` for a labelled
finding ddplint does not report yet (it must be an EXPECTED entry), and
`FILE:LINE CHECK-NAME false-positive` for a finding it reports on correct
code (matched within --window lines). '#' starts a comment.

By default only the checks that `ddplint --list-checks` reports are scored;
the other checks of EXPECTED are shown as "not built". --all scores them too.

Usage: bench/precision_recall.py [--corpus DIR]... [--headers default|real|mock]
                                 [--window N] [--all] [--measure-only]
                                 [--known FILE | --no-known] [--expected FILE]
                                 [--build-dir DIR] [--ddplint PATH]
                                 [--cache-dir DIR | --no-cache] [-j N]
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFAULT_CORPORA = [os.path.join(ROOT, "bench", "corpus"), os.path.join(ROOT, "bench", "shapes")]

# The two header sets. Mock: test/Inputs (fast, no SDK needed). Real: the
# installed LibTorch 1.13 (Debian's libtorch-dev) with c10d's Gloo backend.
MOCK_FLAGS = ["-std=c++17", "-isystem", os.path.join(ROOT, "test", "Inputs")]
REAL_FLAGS = ["-std=c++17", "-DUSE_C10D_GLOO", "-isystem", "/usr/include/torch/csrc/api/include"]

SOURCE_PATTERNS = ("*.cpp", "*.hpp")
PER_FILE_FLAGS = re.compile(r"^\s*//\s*flags:\s*(?P<flags>.*?)\s*$")

# clang's diagnostic form: file:line:col: warning: message [check]
FINDING = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<msg>.*) \[(?P<check>[\w.-]+)\]$")
ENTRY = re.compile(r"^(?P<file>\S+):(?P<line>\d+)\s+(?P<check>[\w.-]+)(?:\s+(?P<kind>\S+))?$")


def fail(message):
    print("precision_recall.py: " + message, file=sys.stderr)
    sys.exit(2)


def read_entries(path, kinds):
    """[(file, line, check, kind)] from an EXPECTED or KNOWN-MISSES file."""
    entries = []
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        m = ENTRY.match(text)
        kind = m.group("kind") if m else None
        if not m or kind not in kinds:
            fail("%s:%d: expected 'FILE:LINE CHECK-NAME%s', got %r" % (
                path, number, " [false-positive]" if len(kinds) > 1 else "", raw.rstrip()))
        entries.append((m.group("file"), int(m.group("line")), m.group("check"), kind))
    return entries


def built_checks(ddplint):
    """The checks ddplint enables by default, from --list-checks."""
    try:
        proc = subprocess.run([ddplint, "--list-checks"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        fail("cannot run %s: %s" % (ddplint, e))
    if proc.returncode != 0:
        fail("%s --list-checks exited with %d:\n%s" % (ddplint, proc.returncode, proc.stderr))
    return {line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("ddp-")}


def corpus_flags(corpus, headers):
    """The flags every program of the corpus is parsed with, and where they came from."""
    if headers == "real":
        return list(REAL_FLAGS), "real LibTorch headers (--headers=real)"
    if headers == "mock":
        return list(MOCK_FLAGS), "mock headers, test/Inputs (--headers=mock)"
    path = os.path.join(corpus, "compile_flags.txt")
    if not os.path.exists(path):
        return list(MOCK_FLAGS), "mock headers, test/Inputs"
    flags = []
    with open(path) as f:
        for line in f:
            flag = line.strip()
            if flag:
                flags.append(flag)
    # clang reads compile_flags.txt's relative paths from its directory.
    for i, flag in enumerate(flags):
        if i > 0 and flags[i - 1] in ("-isystem", "-I", "-idirafter", "-include") \
                and not os.path.isabs(flag):
            flags[i] = os.path.normpath(os.path.join(corpus, flag))
    return flags, os.path.relpath(path, ROOT)


def file_flags(path):
    """Extra flags from a `// flags: ...` comment among the first lines of the file."""
    with open(path) as f:
        for _ in range(5):
            line = f.readline()
            if not line:
                break
            m = PER_FILE_FLAGS.match(line)
            if m:
                return shlex.split(m.group("flags"))
    return []


def run_ddplint(ddplint, files, flags, corpus, cache_args, jobs):
    """[(file relative to the corpus, line, col, check, message)] and stderr."""
    command = [ddplint, "--quiet"] + cache_args + (["-j", str(jobs)] if jobs else []) + [
        os.path.relpath(f, ROOT) for f in files] + ["--"] + flags
    try:
        proc = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
    except OSError as e:
        fail("cannot run %s: %s" % (ddplint, e))
    # 0: nothing found, 1: findings; anything else is a usage or tool error,
    # or (3) a unit whose analysis was vacuous (a header not found), which
    # would make its misses meaningless: stderr names the unit and the cause.
    if proc.returncode not in (0, 1):
        fail("ddplint exited with %d\ncommand: %s\n%s" % (
            proc.returncode, " ".join(command), proc.stderr))
    findings = set()
    for line in proc.stdout.splitlines():
        m = FINDING.match(line)
        if not m:
            continue
        path = m.group("file")
        if not os.path.isabs(path):
            path = os.path.join(ROOT, path)
        rel = os.path.relpath(os.path.normpath(path), corpus)
        findings.add((rel, int(m.group("line")), int(m.group("col")), m.group("check"),
                      m.group("msg")))
    return findings, proc.stderr


def match(expected, findings, window):
    """Pairs findings with expected entries of the same file and check, nearest first.

    Returns (true positives as (entry, finding), unmatched findings, unmatched entries).
    """
    candidates = []
    for i, (e_file, e_line, e_check) in enumerate(expected):
        for j, (f_file, f_line, _col, f_check, _msg) in enumerate(findings):
            if e_file == f_file and e_check == f_check and abs(e_line - f_line) <= window:
                candidates.append((abs(e_line - f_line), i, j))
    candidates.sort()
    used_e, used_f, pairs = set(), set(), []
    for _distance, i, j in candidates:
        if i in used_e or j in used_f:
            continue
        used_e.add(i)
        used_f.add(j)
        pairs.append((expected[i], findings[j]))
    false_pos = [f for j, f in enumerate(findings) if j not in used_f]
    false_neg = [e for i, e in enumerate(expected) if i not in used_e]
    return pairs, false_pos, false_neg


def ratio(num, den):
    return "%.3f" % (num / den) if den else "n/a"


ROW = "%-34s %8s %5s %4s %4s %4s %9s %6s"


class Score:
    def __init__(self):
        self.expected = self.found = self.tp = self.fp = self.fn = 0

    def add(self, other):
        for k in ("expected", "found", "tp", "fp", "fn"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def row(self, name):
        return ROW % (name, self.expected, self.found, self.tp, self.fp, self.fn,
                      ratio(self.tp, self.tp + self.fp), ratio(self.tp, self.tp + self.fn))


def score_corpus(args, ddplint, built, corpus, cache_args):
    """Runs and scores one corpus; prints its report. Returns (Score, new misses, new FPs, seconds)."""
    files = sorted(f for pattern in SOURCE_PATTERNS for f in glob.glob(os.path.join(corpus, pattern)))
    if not files:
        fail("no %s files in %s" % (" or ".join(SOURCE_PATTERNS), corpus))
    expected_path = os.path.abspath(args.expected or os.path.join(corpus, "EXPECTED"))
    expected = [e[:3] for e in read_entries(expected_path, (None,))]
    known_files = {os.path.relpath(f, corpus) for f in files}
    for e_file, e_line, _check in expected:
        if e_file not in known_files:
            fail("%s names %s:%d, which is not in the corpus" % (expected_path, e_file, e_line))

    known_path = None if args.no_known else os.path.abspath(
        args.known or os.path.join(corpus, "KNOWN-MISSES"))
    known_misses, known_fps = set(), []
    if known_path and (args.known or os.path.exists(known_path)):
        for k_file, k_line, k_check, kind in read_entries(known_path, (None, "false-positive")):
            if kind is None:
                if (k_file, k_line, k_check) not in expected:
                    fail("%s: %s:%d %s is not an entry of %s" % (
                        known_path, k_file, k_line, k_check, expected_path))
                known_misses.add((k_file, k_line, k_check))
            else:
                known_fps.append((k_file, k_line, k_check))
    else:
        known_path = None

    base_flags, flags_from = corpus_flags(corpus, args.headers)
    groups = {}
    for f in files:
        groups.setdefault(tuple(file_flags(f)), []).append(f)

    started = time.time()
    findings, stderr = set(), []
    for extra in sorted(groups):
        found, err = run_ddplint(ddplint, groups[extra], base_flags + list(extra), corpus,
                                 cache_args, args.jobs)
        findings |= found
        if err.strip():
            stderr.append(err.strip())
    seconds = time.time() - started
    findings = sorted(findings)

    all_checks = sorted(built | {e[2] for e in expected} | {f[3] for f in findings})
    scored = {c for c in all_checks if args.all or c in built}
    pairs, false_pos, false_neg = match(
        [e for e in expected if e[2] in scored], [f for f in findings if f[3] in scored],
        args.window)

    def is_known_fp(f):
        return any(k_file == f[0] and k_check == f[3] and abs(k_line - f[1]) <= args.window
                   for k_file, k_line, k_check in known_fps)

    new_fps = [f for f in false_pos if not is_known_fp(f)]
    new_misses = [e for e in false_neg if e not in known_misses]
    now_found = sorted(k for k in known_misses if k[2] in scored and k not in false_neg)
    gone_fps = sorted(k for k in known_fps if k[2] in scored and not any(
        k[0] == f[0] and k[2] == f[3] and abs(k[1] - f[1]) <= args.window for f in false_pos))

    rel = os.path.relpath(corpus, ROOT)
    print("=" * 81)
    print("corpus:   %s, %d files, %d expected findings; line window +-%d%s" % (
        rel, len(files), len(expected), args.window, "; scoring all checks" if args.all else ""))
    print("flags:    %s: %s" % (flags_from, " ".join(base_flags)))
    for extra in sorted(groups):
        if extra:
            print("          + %s for %s" % (" ".join(extra), ", ".join(
                os.path.relpath(f, corpus) for f in groups[extra])))
    print("known:    %s" % (os.path.relpath(known_path, ROOT) if known_path else "(none)"))
    print("time:     %.1f s" % seconds)
    print()
    header = ROW % ("check", "expected", "found", "TP", "FP", "FN", "precision", "recall")
    print(header)
    print("-" * len(header))
    total = Score()
    for check in all_checks:
        n_expected = sum(1 for e in expected if e[2] == check)
        if check not in scored:
            print(ROW % (check, n_expected, "-", "-", "-", "-", "not built", ""))
            continue
        s = Score()
        s.expected = n_expected
        s.found = sum(1 for f in findings if f[3] == check)
        s.tp = sum(1 for e, _f in pairs if e[2] == check)
        s.fp = sum(1 for f in false_pos if f[3] == check)
        s.fn = sum(1 for e in false_neg if e[2] == check)
        total.add(s)
        print(s.row(check))
    print("-" * len(header))
    print(total.row("total (%d scored checks)" % len(scored)))
    print()
    print("False positives (%d, %d not in the known list):" % (len(false_pos), len(new_fps)))
    for f in false_pos:
        print("  %s %s:%d:%d %s: %s" % ("known" if is_known_fp(f) else "NEW  ", f[0], f[1], f[2],
                                         f[3], f[4]))
    print("False negatives (%d, %d not in the known list):" % (len(false_neg), len(new_misses)))
    for e in sorted(false_neg):
        print("  %s %s:%d %s" % ("known" if e in known_misses else "NEW  ", e[0], e[1], e[2]))
    if now_found or gone_fps:
        print("Known entries this run got right (remove them from %s once fixed for good):" % (
            os.path.relpath(known_path, ROOT)))
        for k in now_found:
            print("  found    %s:%d %s" % k)
        for k in gone_fps:
            print("  silent   %s:%d %s false-positive" % k)
    if stderr:
        print()
        print("ddplint also reported on standard error:")
        for block in stderr:
            for line in block.splitlines():
                print("  " + line)
    print()
    return total, new_misses, new_fps, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="build directory holding bin/ddplint (default: build/)")
    parser.add_argument("--ddplint", help="ddplint binary (default: BUILD_DIR/bin/ddplint)")
    parser.add_argument("--corpus", action="append",
                        help="directory of corpus programs; repeat for several "
                             "(default: bench/corpus and bench/shapes)")
    parser.add_argument("--headers", choices=("default", "real", "mock"), default="default",
                        help="real LibTorch headers, the mocks of test/Inputs, or per corpus: "
                             "its compile_flags.txt, else the mocks (default)")
    parser.add_argument("--expected", help="ground truth (default: CORPUS/EXPECTED; one corpus only)")
    parser.add_argument("--known", help="known misses and false positives "
                                        "(default: CORPUS/KNOWN-MISSES when present; one corpus only)")
    parser.add_argument("--no-known", action="store_true",
                        help="ignore KNOWN-MISSES: every miss and false positive fails the run")
    parser.add_argument("--measure-only", action="store_true",
                        help="a measurement: exit 0 whatever the scores (2 on tool errors)")
    parser.add_argument("--window", type=int, default=3,
                        help="a finding matches an expected entry of the same check and file "
                             "when their lines differ by at most this much (default: 3)")
    parser.add_argument("--all", action="store_true",
                        help="score every check in EXPECTED, built or not")
    parser.add_argument("--cache-dir", help="ddplint's cache directory (findings and shared "
                                            "preambles; default: ddplint's own)")
    parser.add_argument("--no-cache", action="store_true",
                        help="run ddplint with --no-cache (every unit analysed afresh)")
    parser.add_argument("-j", "--jobs", type=int, help="units ddplint analyses at a time")
    args = parser.parse_args()

    corpora = [os.path.abspath(c) for c in (args.corpus or DEFAULT_CORPORA)]
    if len(corpora) > 1 and (args.expected or args.known):
        fail("--expected and --known name one corpus's files: give one --corpus with them")
    ddplint = os.path.abspath(args.ddplint or os.path.join(args.build_dir, "bin", "ddplint"))
    if not os.access(ddplint, os.X_OK):
        fail("no ddplint at %s (build it first: scripts/build, or pass --ddplint)" % ddplint)
    cache_args = ["--no-cache"] if args.no_cache else (
        ["--cache-dir", os.path.abspath(args.cache_dir)] if args.cache_dir else [])

    built = built_checks(ddplint)
    print("ddplint:  %s (%d checks built)" % (os.path.relpath(ddplint, ROOT), len(built)))
    results = []
    for corpus in corpora:
        results.append((corpus,) + score_corpus(args, ddplint, built, corpus, cache_args))

    print("=" * 81)
    header = ROW % ("corpus", "expected", "found", "TP", "FP", "FN", "precision", "recall") + \
        " %6s %6s %6s" % ("new FN", "new FP", "time")
    print(header)
    print("-" * len(header))
    overall = Score()
    regressions = []
    for corpus, score, new_misses, new_fps, seconds in results:
        overall.add(score)
        name = os.path.relpath(corpus, ROOT)
        print(score.row(name) + " %6d %6d %5.1fs" % (len(new_misses), len(new_fps), seconds))
        regressions += ["%s: missed %s:%d %s" % (name, e[0], e[1], e[2]) for e in new_misses]
        regressions += ["%s: false positive %s:%d %s" % (name, f[0], f[1], f[3]) for f in new_fps]
    if len(results) > 1:
        print("-" * len(header))
        print(overall.row("all corpora"))

    print()
    if not regressions:
        print("OK: every miss and false positive is a known one.")
        return 0
    print("%s: %d not in the known lists:" % (
        "Measured" if args.measure_only else "FAILED", len(regressions)))
    for r in regressions:
        print("  " + r)
    return 0 if args.measure_only else 1


if __name__ == "__main__":
    sys.exit(main())
