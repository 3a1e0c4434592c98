#!/usr/bin/env python3
"""Measures what ddplint adds to the cost of parsing a LibTorch translation unit.

Times, in one run and interleaved so machine noise hits every command alike:
  * clang++-16 -fsyntax-only on the unit (the parse alone),
  * build/bin/ddplint with every ddp check on the same unit and flags,
  * clang-tidy-16 loading the plugin with the same checks,
  * clang-tidy-16 with three stock checks, for reference,
and prints the median of each and its ratio to the parse.

Usage: bench/overhead.py [--runs N] [FILE]   (default: examples/src/train.cpp)
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def flags_for(path):
    """The unit's flags from the compile_flags.txt above it, as clang would."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(d, "compile_flags.txt")
        if os.path.exists(candidate):
            with open(candidate) as f:
                return d, [l.strip() for l in f if l.strip()]
        parent = os.path.dirname(d)
        if parent == d:
            sys.exit("no compile_flags.txt above " + path)
        d = parent


def timed(cmd, cwd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, proc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?",
                        default=os.path.join(ROOT, "examples", "src", "train.cpp"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    ddplint = os.path.join(ROOT, "build", "bin", "ddplint")
    if not os.access(ddplint, os.X_OK):
        sys.exit("build ddplint first: scripts/build")
    cwd, flags = flags_for(args.file)
    unit = os.path.abspath(args.file)

    commands = {
        "clang++-16 -fsyntax-only": ["clang++-16", "-fsyntax-only", *flags, unit],
        "ddplint (all ddp checks)": [ddplint, "--quiet", "--no-cache",
                                     "--no-preamble", unit, "--", *flags],
        "clang-tidy-16 + ddplint plugin": [
            "clang-tidy-16", "--quiet", "-load",
            os.path.join(ROOT, "build", "lib", "ddplint-plugin.so"),
            "-checks=-*,ddp-*", unit, "--", *flags],
        "clang-tidy-16 (3 stock checks)": [
            "clang-tidy-16", "--quiet",
            "-checks=-*,bugprone-use-after-move,bugprone-unused-return-value,"
            "performance-unnecessary-copy-initialization",
            unit, "--", *flags],
    }
    times = {name: [] for name in commands}
    # One warm-up round fills the page cache, then interleaved rounds.
    for round_ in range(args.runs + 1):
        for name, cmd in commands.items():
            elapsed, proc = timed(cmd, cwd)
            if proc.returncode not in (0, 1):
                sys.exit(f"{name} failed ({proc.returncode}):\n"
                         f"{shlex.join(cmd)}\n{proc.stderr[-2000:]}")
            if round_:
                times[name].append(elapsed)

    base = statistics.median(times["clang++-16 -fsyntax-only"])
    print(f"unit: {os.path.relpath(unit, ROOT)}   runs: {args.runs} "
          f"(medians, interleaved)")
    print(f"{'command':34} {'median s':>9} {'min s':>7} {'ratio':>7}")
    for name, samples in times.items():
        med = statistics.median(samples)
        print(f"{name:34} {med:9.2f} {min(samples):7.2f} {med / base:6.2f}x")


if __name__ == "__main__":
    main()
