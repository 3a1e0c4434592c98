#!/usr/bin/env python3
"""Measures what ddp-harness adds to starting a job's ranks.

Times, in one run and interleaved so machine noise hits every command alike:
  * starting N trivial ranks directly (torchrun's environment, one process
    group each, waiting for all), as a minimal launcher would,
  * `ddp-harness run --nproc N -- PROGRAM` with the same ranks (port, run
    directory, output streaming, reaping, analysis, report, drift plot),
  * `ddp-harness --help`, the harness's own process start (it loads LLVM's
    shared Support library for JSON),
and prints the median of each, the ratio of the harness to direct starts and
the absolute difference.

Usage: bench/harness_launch.py [--runs R] [--nproc N] [PROGRAM [ARGS...]]
(default program: /bin/true)
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HARNESS = os.path.join(ROOT, "build", "bin", "ddp-harness")


def start_directly(program, nproc, run_dir):
    env = dict(os.environ)
    env.update({"WORLD_SIZE": str(nproc), "LOCAL_WORLD_SIZE": str(nproc),
                "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500",
                "DDP_HARNESS_RUN_DIR": run_dir})
    ranks = []
    for rank in range(nproc):
        env["RANK"] = env["LOCAL_RANK"] = str(rank)
        ranks.append(subprocess.Popen(program, env=dict(env),
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL,
                                      start_new_session=True))
    codes = [r.wait() for r in ranks]
    if any(codes):
        sys.exit(f"{program[0]} exited {codes} when started directly")


def timed(action):
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = args.program or ["/bin/true"]
    if not os.access(HARNESS, os.X_OK):
        sys.exit("build ddp-harness first: scripts/build")

    scratch = tempfile.mkdtemp(prefix="harness-bench-")
    counter = [0]

    def fresh_dir():
        counter[0] += 1
        path = os.path.join(scratch, f"run{counter[0]}")
        os.mkdir(path)
        return path

    def harness():
        proc = subprocess.run(
            [HARNESS, "run", "--nproc", str(args.nproc), "--run-dir",
             fresh_dir(), "--", *program],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit(f"ddp-harness exited {proc.returncode}:\n{proc.stderr}")

    def help_only():
        subprocess.run([HARNESS, "--help"], stdout=subprocess.DEVNULL,
                       check=True)

    commands = {
        f"{args.nproc} ranks started directly":
            lambda: start_directly(program, args.nproc, fresh_dir()),
        f"ddp-harness run --nproc {args.nproc}": harness,
        "ddp-harness --help (process start)": help_only,
    }
    times = {name: [] for name in commands}
    try:
        # One warm-up round fills the page cache, then interleaved rounds.
        for round_ in range(args.runs + 1):
            for name, action in commands.items():
                elapsed = timed(action)
                if round_:
                    times[name].append(elapsed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    direct = statistics.median(times[f"{args.nproc} ranks started directly"])
    print(f"program: {' '.join(program)}   ranks: {args.nproc}   runs: "
          f"{args.runs} (medians, interleaved)")
    print(f"{'command':38} {'median ms':>10} {'min ms':>8} {'ratio':>7}")
    for name, samples in times.items():
        med = statistics.median(samples)
        print(f"{name:38} {med * 1e3:10.1f} {min(samples) * 1e3:8.1f} "
              f"{med / direct:6.2f}x")
    harness_med = statistics.median(
        times[f"ddp-harness run --nproc {args.nproc}"])
    print(f"harness overhead per job: {(harness_med - direct) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
