#!/usr/bin/env python3
"""Scores ddplint's findings on the evaluation corpus against its ground truth.

Runs build/bin/ddplint on every bench/corpus/*.cpp with the mock LibTorch
headers, matches each warning to an entry of bench/corpus/EXPECTED with the
same check and file whose line is within --window lines, and prints per check
the expected and found counts, true and false positives, false negatives,
precision and recall, the totals, and then every false positive and false
negative as file:line.

By default only the checks that `ddplint --list-checks` reports are scored;
the other checks of EXPECTED are shown as "not built". --all scores them too.

This is a measurement, not a test: the exit code is 0 whatever the scores,
and 2 only when ddplint cannot be run or fails as a tool.

Usage: bench/precision_recall.py [--window N] [--all] [--build-dir DIR]
                                 [--ddplint PATH] [--corpus DIR] [--expected FILE]
"""

import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# clang's diagnostic form: file:line:col: warning: message [check]
FINDING = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<msg>.*) \[(?P<check>[\w.-]+)\]$")
ENTRY = re.compile(r"^(?P<file>\S+):(?P<line>\d+)\s+(?P<check>[\w.-]+)$")


def fail(message):
    print("precision_recall.py: " + message, file=sys.stderr)
    sys.exit(2)


def read_expected(path):
    """[(file, line, check)] from EXPECTED; '#' starts a comment."""
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
        if not m:
            fail("%s:%d: expected 'FILE:LINE CHECK-NAME', got %r" % (path, number, raw.rstrip()))
        entries.append((m.group("file"), int(m.group("line")), m.group("check")))
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
    checks = set()
    for line in proc.stdout.splitlines():
        name = line.strip()
        if name.startswith("ddp-"):
            checks.add(name)
    return checks


def run_ddplint(ddplint, files, corpus):
    """[(file relative to the corpus, line, col, check, message)] and stderr."""
    command = [ddplint, "--quiet"] + [os.path.relpath(f, ROOT) for f in files] + [
        "--", "-std=c++17", "-isystem", os.path.join("test", "Inputs")]
    try:
        proc = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
    except OSError as e:
        fail("cannot run %s: %s" % (ddplint, e))
    # 0: nothing found, 1: findings; anything else is a usage or tool error.
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
    return sorted(findings), proc.stderr


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="build directory holding bin/ddplint (default: build/)")
    parser.add_argument("--ddplint", help="ddplint binary (default: BUILD_DIR/bin/ddplint)")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "bench", "corpus"),
                        help="directory of the corpus programs (default: bench/corpus/)")
    parser.add_argument("--expected", help="ground truth (default: CORPUS/EXPECTED)")
    parser.add_argument("--window", type=int, default=3,
                        help="a finding matches an expected entry of the same check and file "
                             "when their lines differ by at most this much (default: 3)")
    parser.add_argument("--all", action="store_true",
                        help="score every check in EXPECTED, built or not")
    args = parser.parse_args()

    ddplint = os.path.abspath(args.ddplint or os.path.join(args.build_dir, "bin", "ddplint"))
    corpus = os.path.abspath(args.corpus)
    expected_path = os.path.abspath(args.expected or os.path.join(corpus, "EXPECTED"))
    if not os.access(ddplint, os.X_OK):
        fail("no ddplint at %s (build it first: scripts/build, or pass --ddplint)" % ddplint)
    files = sorted(glob.glob(os.path.join(corpus, "*.cpp")))
    if not files:
        fail("no .cpp files in %s" % corpus)

    expected = read_expected(expected_path)
    known_files = {os.path.relpath(f, corpus) for f in files}
    for e_file, e_line, _check in expected:
        if e_file not in known_files:
            fail("%s names %s:%d, which is not in the corpus" % (expected_path, e_file, e_line))

    built = built_checks(ddplint)
    findings, stderr = run_ddplint(ddplint, files, corpus)

    all_checks = sorted(built | {e[2] for e in expected} | {f[3] for f in findings})
    scored = [c for c in all_checks if args.all or c in built]
    scored_set = set(scored)

    pairs, false_pos, false_neg = match(
        [e for e in expected if e[2] in scored_set],
        [f for f in findings if f[3] in scored_set], args.window)

    print("ddplint:  %s (%d checks built)" % (os.path.relpath(ddplint, ROOT), len(built)))
    print("corpus:   %s, %d files, %d expected findings; line window +-%d%s" % (
        os.path.relpath(corpus, ROOT), len(files), len(expected), args.window,
        "; scoring all checks" if args.all else ""))
    print()
    header = "%-34s %8s %5s %4s %4s %4s %9s %6s" % (
        "check", "expected", "found", "TP", "FP", "FN", "precision", "recall")
    print(header)
    print("-" * len(header))
    totals = [0, 0, 0, 0, 0]
    for check in all_checks:
        n_expected = sum(1 for e in expected if e[2] == check)
        if check not in scored_set:
            print("%-34s %8d %5s %4s %4s %4s %9s %6s" % (check, n_expected, "-", "-", "-", "-",
                                                         "not built", ""))
            continue
        n_found = sum(1 for f in findings if f[3] == check)
        tp = sum(1 for e, _f in pairs if e[2] == check)
        fp = sum(1 for f in false_pos if f[3] == check)
        fn = sum(1 for e in false_neg if e[2] == check)
        for k, v in enumerate((n_expected, n_found, tp, fp, fn)):
            totals[k] += v
        print("%-34s %8d %5d %4d %4d %4d %9s %6s" % (
            check, n_expected, n_found, tp, fp, fn, ratio(tp, tp + fp), ratio(tp, tp + fn)))
    print("-" * len(header))
    n_expected, n_found, tp, fp, fn = totals
    print("%-34s %8d %5d %4d %4d %4d %9s %6s" % (
        "total (%d scored checks)" % len(scored), n_expected, n_found, tp, fp, fn,
        ratio(tp, tp + fp), ratio(tp, tp + fn)))

    print()
    print("False positives (%d):" % len(false_pos))
    for f_file, f_line, f_col, f_check, f_msg in false_pos:
        print("  %s:%d:%d %s: %s" % (f_file, f_line, f_col, f_check, f_msg))
    print("False negatives (%d):" % len(false_neg))
    for e_file, e_line, e_check in sorted(false_neg):
        print("  %s:%d %s" % (e_file, e_line, e_check))

    if stderr.strip():
        print()
        print("ddplint also reported on standard error:")
        for line in stderr.strip().splitlines():
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
