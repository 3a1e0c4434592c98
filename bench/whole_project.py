#!/usr/bin/env python3
"""Whole-project runs: ddplint -p against clang-tidy with the plugin.

On a generated LibTorch project (bench/project.py, 12 units by default),
with the same checks and the same parallelism, measures in one run:
  * clang-tidy-16 -load build/lib/ddplint-plugin.so on each unit, N at a
    time, the way run-clang-tidy drives it (one process per unit);
  * a cold ddplint -p -j N (empty cache: shared preambles built, every unit
    analysed);
  * the same with the findings cache emptied but the preambles kept;
  * a warm rerun with nothing changed;
  * a rerun after changing one file, and which units it re-analysed;
and prints wall times, ratios and each command's peak memory (the largest
resident set of any one process, from GNU time).

Usage: bench/whole_project.py [--units N] [-j N] [--keep DIR]
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import project  # noqa: E402

DDPLINT = os.path.join(ROOT, "build", "bin", "ddplint")
PLUGIN = os.path.join(ROOT, "build", "lib", "ddplint-plugin.so")


def run(cmd, cwd, env=None):
    """Runs cmd; returns (seconds, stdout, stderr, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    return time.perf_counter() - start, out, err, proc.returncode


def timed(cmd, cwd, env=None):
    """Runs cmd under GNU time; returns (seconds, peak RSS MiB, out, err)."""
    marker = "__peak_kib="
    full = ["/usr/bin/time", "-f", marker + "%M"] + cmd
    seconds, out, err, code = run(full, cwd, env)
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({code}):\n{err[-2000:]}")
    peak = 0
    lines = []
    for line in err.splitlines():
        if line.startswith(marker):
            peak = int(line[len(marker):]) / 1024
        else:
            lines.append(line)
    return seconds, peak, out, "\n".join(lines)


def clang_tidy_all(units, build, jobs):
    """One clang-tidy-16 process per unit, jobs at a time."""
    def one(unit):
        return timed(["clang-tidy-16", "-load", PLUGIN, "-checks=-*,ddp-*",
                      "-p", build, "--quiet", unit], build)

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, units))
    seconds = time.perf_counter() - start
    warnings = sum(len(re.findall(r": warning: ", r[2])) for r in results)
    return seconds, max(r[1] for r in results), warnings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=12)
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", help="generate the project here and keep it")
    args = parser.parse_args()
    for tool in (DDPLINT, PLUGIN, "/usr/bin/time"):
        if not os.path.exists(tool):
            sys.exit(f"missing {tool} (run scripts/setup; GNU time is "
                     "Debian's 'time' package)")

    work = args.keep or tempfile.mkdtemp(prefix="ddplint-bench-")
    units = project.generate(work, args.units)
    build = os.path.join(work, "build")
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    ddplint = [DDPLINT, "-p", build, "-j", str(args.j), "--cache-dir", cache]
    print(f"project: {args.units} LibTorch units in {work}; "
          f"{args.j} at a time; checks ddp-*")

    tidy_s, tidy_mem, tidy_warnings = clang_tidy_all(units, build, args.j)
    cold_s, cold_mem, cold_out, _ = timed(ddplint, work)
    # The findings forgotten, the PCH kept: a CI job whose cache directory
    # survives while every unit changed.
    shutil.rmtree(os.path.join(cache, "units"))
    kept_s, kept_mem, kept_out, _ = timed(ddplint, work)
    warm_s, warm_mem, warm_out, _ = timed(ddplint, work)
    with open(units[0], "a") as f:
        f.write("// changed\n")
    touch_s, touch_mem, touch_out, touch_err = timed(ddplint + ["-v"], work)
    reanalysed = [l.split("analysed ")[1].split(" (")[0]
                  for l in touch_err.splitlines()
                  if l.startswith("ddplint: analysed ")]

    cold_warnings = len(re.findall(r": warning: ", cold_out))
    if not (cold_out == kept_out == warm_out == touch_out):
        sys.exit("the cached runs printed other findings than the cold run")
    if cold_warnings != tidy_warnings:
        print(f"note: clang-tidy printed {tidy_warnings} warnings, "
              f"ddplint {cold_warnings}")

    rows = [
        ("clang-tidy-16 + plugin, per unit", tidy_s, tidy_mem, ""),
        ("ddplint -p, cold", cold_s, cold_mem,
         f"{tidy_s / cold_s:.1f}x faster than clang-tidy"),
        ("ddplint -p, no findings cached, PCH kept", kept_s, kept_mem,
         f"{tidy_s / kept_s:.1f}x faster than clang-tidy"),
        ("ddplint -p, warm (nothing changed)", warm_s, warm_mem,
         f"{cold_s / warm_s:.0f}x faster than cold"),
        ("ddplint -p, one file changed", touch_s, touch_mem,
         f"{cold_s / touch_s:.1f}x faster than cold"),
    ]
    print(f"\n{'run':38} {'wall s':>8} {'peak MiB':>9}  ratio")
    for name, s, mem, ratio in rows:
        print(f"{name:38} {s:8.2f} {mem:9.0f}  {ratio}")
    print(f"\nfindings: {cold_warnings} (same in every ddplint run)")
    print("re-analysed after changing "
          f"{os.path.relpath(units[0], work)}: "
          + (", ".join(reanalysed) or "nothing"))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
