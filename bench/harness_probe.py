#!/usr/bin/env python3
"""Measures a scenario under ddp-harness and the probe's cost per step.

1. One scenario on N ranks (default `unwrapped-forward fixed`, 2 ranks,
   Gloo): the median wall time of `ddp-harness run --nproc N -- ddp-scenario
   ...`, against the median start of one LibTorch process (`ddp-scenario
   --list`, which loads LibTorch and exits), as a ratio; and N such starts
   at once, what N ranks cost before they do anything (on a machine with
   fewer free cores than N, more than one start). The run twice: the ranks
   forked from one process (the harness's default for ddp-scenario) and one
   process per rank (DDP_HARNESS_SPAWN_RANKS=1).
2. The probe on a small model (build/libexec/ddp-probe-bench, a 64-256-256-10
   MLP, one process): with the probe disabled (no DDP_HARNESS_RUN_DIR),
   recording every 100th step, and recording every step. Per mode: the
   time per step, its ratio to the disabled run's, and the time spent in
   the probe's calls over the time spent training in the same run (the
   robust figure on a loaded machine).

3. The collective trace on the same scenario (one process per rank): the
   time of a step without the trace, from runs of --trace-steps and 4x as
   many steps (the difference over the extra steps, so the ranks' start
   cancels out); the collectives rank 0 issues per step; the time the trace
   itself spent per record and per step (its own totals, written at exit),
   and that over the step: the cost of leaving it on.

Commands are interleaved round by round so machine noise hits each alike;
medians are printed.

Usage: bench/harness_probe.py [--runs R] [--nproc N] [--steps S]
                              [--scenario NAME VARIANT] [--no-probe]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.path.join(ROOT, "build")
HARNESS = os.path.join(BUILD, "bin", "ddp-harness")
SCENARIO = os.path.join(BUILD, "libexec", "ddp-scenario")
PROBE_BENCH = os.path.join(BUILD, "libexec", "ddp-probe-bench")


def harness_run(args, run_dir, spawn):
    env = dict(os.environ)
    env.pop("DDP_HARNESS_SPAWN_RANKS", None)
    if spawn:
        env["DDP_HARNESS_SPAWN_RANKS"] = "1"
    return run([HARNESS, "run", "--nproc", str(args.nproc), "--run-dir",
                run_dir, "--", SCENARIO] + args.scenario, env)[0]


def run(cmd, env=None):
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    return took, done.stdout


def trace_run(args, run_dir, steps, trace):
    """Wall time of the scenario over `steps` steps, with the trace or not
    (one process per rank, which exits through exit() and so writes the
    trace's totals), and rank 0's trace: collectives issued, records
    written, seconds spent in the trace."""
    shutil.rmtree(run_dir, ignore_errors=True)
    env = dict(os.environ, DDP_HARNESS_SPAWN_RANKS="1")
    cmd = [HARNESS, "run", "--nproc", str(args.nproc), "--run-dir", run_dir]
    cmd += [] if trace else ["--no-trace"]
    cmd += ["--", SCENARIO] + args.scenario + ["--steps", str(steps)]
    took = run(cmd, env)[0]
    issued, records, spent = 0, 0, 0.0
    path = os.path.join(run_dir, "collectives-rank0.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if fields[0] == "C":
                    issued += 1
                elif fields[0] == "S" and len(fields) == 3:
                    records, spent = int(fields[1]), int(fields[2]) / 1e9
    return took, issued, records, spent


def print_trace(args, timings, traces):
    """The step's time without the trace (the extra steps of the longer run
    over their count), the trace's own time per step in the same runs, and
    their ratio: the cost of leaving the trace on."""
    m = statistics.median
    steps = args.trace_steps
    extra = 3 * steps
    per_step = (m(timings[4 * steps]) - m(timings[steps])) / extra
    issued = m([t[0] for t in traces]) / (4 * steps)
    records = m([t[1] for t in traces])
    spent = m([t[2] for t in traces])
    per_record = spent / records if records else 0.0
    trace_per_step = per_record * records / (4 * steps)
    print()
    print(f"| Collective trace (`{' '.join(args.scenario)}`, {args.nproc} "
          f"ranks, one process each) | Median |")
    print("| --- | --- |")
    print(f"| step without the trace ({steps} and {4 * steps} steps, "
          f"difference) | {per_step * 1e3:.3f} ms |")
    print(f"| collectives per step and rank | {issued:.1f} |")
    print(f"| time in the trace per record (issue, wait, return) | "
          f"{per_record * 1e6:.2f} us |")
    print(f"| time in the trace per step | {trace_per_step * 1e6:.1f} us |")
    print(f"| trace / step | {100 * trace_per_step / per_step:.2f} % |")


def parallel_starts(n):
    """Wall time of n `ddp-scenario --list` started at once."""
    start = time.perf_counter()
    procs = [subprocess.Popen([SCENARIO, "--list"], stdout=subprocess.DEVNULL)
             for _ in range(n)]
    if any(p.wait() != 0 for p in procs):
        sys.exit("ddp-scenario --list failed")
    return time.perf_counter() - start


def probe_step_seconds(steps, interval, run_dir):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("DDP_HARNESS_PROBE_INTERVAL", None)
    env.pop("DDP_HARNESS_RUN_DIR", None)
    if run_dir:
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(run_dir)
        env["DDP_HARNESS_RUN_DIR"] = run_dir
    _, out = run([PROBE_BENCH, "--steps", str(steps), "--interval",
                  str(interval)], env)
    result = json.loads(out)
    if result["probe_enabled"] != bool(run_dir):
        sys.exit("ddp-probe-bench: the probe was not in the expected state")
    return result


def print_starts(args, start, starts, scenario, spawned):
    m = statistics.median
    name = " ".join(args.scenario)
    print(f"{args.runs} rounds, medians; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print()
    print("| Command | Median | Ratio |")
    print("| --- | --- | --- |")
    print(f"| one LibTorch process start (`ddp-scenario --list`) | "
          f"{m(start):.2f} s | 1.00x |")
    print(f"| {args.nproc} LibTorch process starts at once | "
          f"{m(starts):.2f} s | {m(starts) / m(start):.2f}x |")
    print(f"| `ddp-harness run --nproc {args.nproc} -- ddp-scenario {name}`, "
          f"ranks forked from one process | "
          f"{m(scenario):.2f} s | {m(scenario) / m(start):.2f}x |")
    print(f"| the same, one process per rank (`DDP_HARNESS_SPAWN_RANKS=1`) | "
          f"{m(spawned):.2f} s | {m(spawned) / m(start):.2f}x |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--scenario", nargs=2,
                        default=["unwrapped-forward", "fixed"])
    parser.add_argument("--no-probe", action="store_true",
                        help="measure the scenario run only")
    parser.add_argument("--trace-steps", type=int, default=200,
                        help="steps of the shorter traced run (default 200)")
    args = parser.parse_args()
    for path in (HARNESS, SCENARIO) + (() if args.no_probe else
                                       (PROBE_BENCH,)):
        if not os.path.exists(path):
            sys.exit(f"{path} is not built; run scripts/build")

    tmp = tempfile.mkdtemp(prefix="harness-probe-bench-")
    try:
        start, starts, scenario, spawned = [], [], [], []
        off, every100, every1 = [], [], []
        timings = {args.trace_steps: [], 4 * args.trace_steps: []}
        traces = []
        for i in range(args.runs):
            for steps in timings:
                timings[steps].append(trace_run(
                    args, os.path.join(tmp, "t"), steps, False)[0])
            traces.append(trace_run(args, os.path.join(tmp, "t"),
                                    4 * args.trace_steps, True)[1:])
            start.append(run([SCENARIO, "--list"])[0])
            starts.append(parallel_starts(args.nproc))
            scenario.append(harness_run(args, os.path.join(tmp, f"f{i}"),
                                        spawn=False))
            spawned.append(harness_run(args, os.path.join(tmp, f"s{i}"),
                                       spawn=True))
            if args.no_probe:
                continue
            off.append(probe_step_seconds(args.steps, 1, None))
            every100.append(probe_step_seconds(args.steps, 100,
                                               os.path.join(tmp, "p100")))
            every1.append(probe_step_seconds(args.steps, 1,
                                             os.path.join(tmp, "p1")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print_starts(args, start, starts, scenario, spawned)
    print_trace(args, timings, traces)
    m = statistics.median
    if args.no_probe:
        return
    print()
    print(f"| Probe ({args.steps} steps, 64-256-256-10 MLP) | Per step | "
          f"Ratio to disabled | Probe / training, same run |")
    print("| --- | --- | --- | --- |")
    base = m([r["seconds_per_step"] for r in off])
    for label, runs in (("disabled (no DDP_HARNESS_RUN_DIR)", off),
                        ("interval 100", every100), ("interval 1", every1)):
        per_step = m([r["seconds_per_step"] for r in runs])
        own = m([r["probe_seconds_per_step"] / r["training_seconds_per_step"]
                 for r in runs])
        print(f"| {label} | {per_step * 1e6:.1f} us | {per_step / base:.3f}x "
              f"| {own * 100:.3f} % |")

if __name__ == "__main__":
    main()
