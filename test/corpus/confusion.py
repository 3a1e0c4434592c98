#!/usr/bin/env python3
"""Static findings against run-time verdicts over the labelled corpus.

Each program in this directory carries its expectations in header comments:

  // CORPUS-STATIC: check[, check...]    the ddplint findings expected (may be
                                         empty: no finding)
  // CORPUS-RUNTIME: KIND EXPECTED       how the run is measured, and the
                                         verdict expected:
       divergence     diverged | consistent    (the replicas' verdict)
       hang           hang | crash | ok        (the processes' verdict)
       data-order     same-order | reshuffled  (the data-order verdict)
       gradient-scale RATIO                    (grad_ratio metric, +-0.05)
       progress       frozen | training        (whether the parameters move)
  // CORPUS-LIMIT: reason                (optional) static and run time are
                                         expected to disagree, for this reason

The script lints every program in one ddplint run, runs every built program
under `ddp-harness run --nproc 2`, checks both against the labels, and prints
the confusion matrix of "ddplint reports a finding" against "the run showed
the bug". It fails when a label is not met, when static and run time disagree
without a CORPUS-LIMIT, or when a CORPUS-LIMIT no longer applies (the two
agree), so that stale labels cannot hide a regression.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
TOLERANCE = 0.05


def parse_labels(path):
    labels = {"static": None, "runtime": None, "limit": None}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*CORPUS-(STATIC|RUNTIME|LIMIT):(.*)$", line)
            if not m:
                continue
            key, value = m.group(1).lower(), m.group(2).strip()
            if key == "static":
                labels["static"] = sorted(
                    c.strip() for c in value.split(",") if c.strip())
            elif key == "runtime":
                parts = value.split()
                if len(parts) != 2:
                    raise SystemExit(f"{path}: CORPUS-RUNTIME needs KIND EXPECTED")
                labels["runtime"] = tuple(parts)
            else:
                labels["limit"] = value
    if labels["static"] is None or labels["runtime"] is None:
        raise SystemExit(f"{path}: missing CORPUS-STATIC or CORPUS-RUNTIME")
    return labels


def lint(build_dir, sources):
    """{source: sorted list of checks}, from one ddplint run over all."""
    flags = ["-std=c++17", "-DUSE_C10D_GLOO",
             "-isystem", "/usr/include/torch/csrc/api/include",
             "-I", os.path.join(SOURCE_ROOT, "runtime-harness", "lib", "include")]
    cmd = [os.path.join(build_dir, "bin", "ddplint"), "--format=json",
           "--no-cache"] + sources + ["--"] + flags
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"ddplint failed with exit code {proc.returncode}")
    doc = json.loads(proc.stdout)
    if doc.get("compile_errors"):
        # A program ddplint cannot compile would silently show no findings.
        raise SystemExit("ddplint: compile errors in the corpus:\n" +
                         json.dumps(doc["compile_errors"], indent=1)[:4000])
    found = {os.path.realpath(s): set() for s in sources}
    for finding in doc.get("findings", []):
        found.setdefault(os.path.realpath(finding["file"]), set()).add(
            finding["check"])
    return {s: sorted(found[os.path.realpath(s)]) for s in sources}


def run_harness(build_dir, program, timeout, scratch):
    # Each run directory goes under one temporary folder, removed at exit.
    run_dir = os.path.join(scratch, os.path.basename(program))
    cmd = [os.path.join(build_dir, "bin", "ddp-harness"), "run", "--nproc", "2",
           "--timeout", str(timeout), "--run-dir", run_dir, "--format", "json",
           "--", program]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"ddp-harness printed no JSON for {program} "
                         f"(exit code {proc.returncode})")


def measure(kind, report):
    """(measured verdict as a word, whether the run showed a bug)."""
    process = (report.get("verdict") or "").split(" ")[0]
    if process != "ok":
        # A hang or a crash is a bug shown whatever the kind.
        return process, True
    if kind == "hang":
        return "ok", False
    if kind == "divergence":
        replicas = (report.get("replicas") or "").split(" ")[0]
        return replicas, replicas == "diverged"
    if kind == "data-order":
        order = report.get("data_order")
        if isinstance(order, dict):
            order = order.get("verdict")
        order = order or ""
        return order, order.startswith("same-order") or "overlap" in order
    if kind == "gradient-scale":
        ratio = (report.get("metrics") or {}).get("grad_ratio")
        if ratio is None:
            return "no grad_ratio", False
        return f"{ratio:.2f}", abs(ratio - 1.0) > TOLERANCE
    if kind == "progress":
        progress = report.get("progress") or "fewer than two steps"
        return progress, progress == "frozen"
    raise SystemExit(f"unknown run-time kind {kind}")


def matches(kind, expected, measured):
    if kind == "gradient-scale":
        try:
            return abs(float(measured) - float(expected)) <= TOLERANCE
        except ValueError:
            return False
    return measured == expected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--programs", required=True,
                    help="directory holding the built corpus programs")
    ap.add_argument("--timeout", type=int, default=20,
                    help="ddp-harness --timeout of a program labelled to hang")
    ap.add_argument("--run-timeout", type=int, default=120,
                    help="ddp-harness --timeout of the others: they end by "
                    "themselves, so a long limit only guards a loaded machine "
                    "(ctest -j) from a false hang")
    args = ap.parse_args()
    start = time.monotonic()

    sources = sorted(os.path.join(HERE, f) for f in os.listdir(HERE)
                     if f.endswith(".cpp"))
    labels = {s: parse_labels(s) for s in sources}

    # The hang waits out its timeout; lint and the other runs go meanwhile.
    with tempfile.TemporaryDirectory(prefix="ddplint-corpus-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        lint_job = pool.submit(lint, args.build_dir, sources)
        run_jobs = {}
        for s in sources:
            program = os.path.join(args.programs,
                                   os.path.splitext(os.path.basename(s))[0])
            if not os.access(program, os.X_OK):
                raise SystemExit(f"{program}: not built")
            timeout = (args.timeout if labels[s]["runtime"][0] == "hang"
                       else args.run_timeout)
            run_jobs[s] = pool.submit(run_harness, args.build_dir, program,
                                      timeout, scratch)
        found = lint_job.result()
        reports = {s: job.result() for s, job in run_jobs.items()}

    cells = {(a, b): [] for a in (True, False) for b in (True, False)}
    failures = []
    limits = 0
    width = max([15] + [len(", ".join(f)) for f in found.values()])
    print(f"{'program':23} | {'static findings':{width}} | "
          f"{'run time (kind: measured)':25} | cell | status")
    for s in sources:
        name = os.path.splitext(os.path.basename(s))[0]
        lab = labels[s]
        kind, expected = lab["runtime"]
        measured, shown = measure(kind, reports[s])
        static = bool(found[s])
        cell = {(True, True): "TP", (True, False): "FP",
                (False, True): "FN", (False, False): "TN"}[(static, shown)]
        cells[(static, shown)].append(name)
        problems = []
        if found[s] != lab["static"]:
            problems.append(f"findings {found[s] or '[]'}, labelled "
                            f"{lab['static'] or '[]'}")
        if not matches(kind, expected, measured):
            problems.append(f"run time {measured}, labelled {expected}")
        disagree = static != shown
        if disagree and not lab["limit"]:
            problems.append(f"{cell} without a CORPUS-LIMIT")
        if not disagree and lab["limit"]:
            problems.append("CORPUS-LIMIT given but static and run time agree")
        if disagree and lab["limit"] and not problems:
            limits += 1
            status = "known limit: " + lab["limit"]
        else:
            status = "FAIL: " + "; ".join(problems) if problems else "ok"
        if problems:
            failures.append(name)
        print(f"{name:23} | {', '.join(found[s]) or '-':{width}} | "
              f"{kind + ': ' + measured:25} | {cell:4} | {status}")

    print()
    print("                  | run-time bug shown | no run-time bug")
    print(f"static finding    | TP {len(cells[(True, True)]):<15} | "
          f"FP {len(cells[(True, False)])}")
    print(f"no static finding | FN {len(cells[(False, True)]):<15} | "
          f"TN {len(cells[(False, False)])}")
    print(f"\n{len(sources)} programs, {limits} disagreement(s) explained by "
          f"a known limit, {len(failures)} failure(s); "
          f"{time.monotonic() - start:.1f} s")
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
