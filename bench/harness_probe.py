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
    args = parser.parse_args()
    for path in (HARNESS, SCENARIO) + (() if args.no_probe else
                                       (PROBE_BENCH,)):
        if not os.path.exists(path):
            sys.exit(f"{path} is not built; run scripts/build")

    tmp = tempfile.mkdtemp(prefix="harness-probe-bench-")
    try:
        start, starts, scenario, spawned = [], [], [], []
        off, every100, every1 = [], [], []
        for i in range(args.runs):
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
