#!/usr/bin/env python3
"""fork-compare.py DIR A B CASE...: compares two ways of running the same
variants, DIR/A-CASE.txt and its run directory DIR/A-CASE against DIR/B-CASE:
the report without the ranks' own lines (their interleaving differs), the
port and the run directory's path; harness.json without pids, port and wall
time; and the run directories' file names. In a crash, which rank failed
first may differ from run to run, so rank numbers are masked there. Prints
per CASE whether all three are the same, then its verdict line and, where
there is one, its replicas line."""
import json
import os
import re
import sys


def report(path, run_dir, mask_ranks):
    lines = []
    with open(path) as f:
        for line in f:
            if line.startswith("[rank ") or line.startswith("ddp-harness: "):
                continue
            line = line.replace(run_dir, "RUNDIR")
            line = re.sub(r"\d+\.\d+ s\b", "N s", line)
            if mask_ranks:
                line = re.sub(r"rank \d", "rank N", line)
            lines.append(line.rstrip("\n"))
    return lines


def record(run_dir, mask_ranks):
    with open(os.path.join(run_dir, "harness.json")) as f:
        data = json.load(f)
    for key in ("master_port", "wall_seconds", "command"):
        data.pop(key, None)
    for rank in data.get("ranks", []):
        rank.pop("pid", None)
    if mask_ranks:
        data.pop("crashed_rank", None)
        data["ranks"] = sorted(json.dumps(r, sort_keys=True).replace(
            f'"rank {r["rank"]}', '"rank N').replace(
            f'"rank": {r["rank"]}', '"rank": 0') for r in data["ranks"])
    return data


top, a, b = sys.argv[1:4]
for case in sys.argv[4:]:
    mask = case == "crash"
    dirs = [os.path.join(top, f"{w}-{case}") for w in (a, b)]
    reports = [report(d + ".txt", d, mask) for d in dirs]
    records = [record(d, mask) for d in dirs]
    files = [sorted(os.listdir(d)) for d in dirs]
    same = []
    for name, pair in (("report", reports), ("records", records),
                       ("files", files)):
        if pair[0] == pair[1]:
            same.append(f"same {name}")
        else:
            same.append(f"DIFFERENT {name}: {pair[0]!r} vs {pair[1]!r}")
    print(f"{case}: " + ", ".join(same))
    for line in reports[0]:
        if line.startswith("verdict:"):
            print(f"{case}: {line}")
        if line.startswith("replicas:"):
            print(f"{case}: " + re.sub(r",.*", "", line))
