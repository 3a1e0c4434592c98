#!/usr/bin/env python3
"""probe-files.py RUN_DIR RANK: reads probe-rank<RANK>.{jsonl,bin} the way the
format in docs/harness.md defines them, independently of ddp-harness, and
prints one line per step and parameter: its name, numel, whether the hash
recomputed from the .bin matches (the sum modulo 2^64 of splitmix64's
finalizer over (i << 32) | the float32 bits of element i), whether the norm
matches, and the gradient's (or `grad=null`). A parameter whose .bin holds a
sample (`stored` below `numel`) prints `stored=K sample`: a sample cannot be
checked against the hash or the norm. Offsets must tile the .bin without gaps
or overlaps. Exits 1 on any mismatch."""
import json
import math
import struct
import sys


MASK = 0xFFFFFFFFFFFFFFFF


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    return z ^ (z >> 31)


def probe_hash(raw):
    words = struct.unpack("<%dI" % (len(raw) // 4), raw)
    return "%016x" % (sum(mix64((i << 32) | w) for i, w in enumerate(words))
                      & MASK)


def check(blob, entry, numel, stored, expect_offset):
    raw = blob[entry["offset"]:entry["offset"] + 4 * stored]
    ok_offset = entry["offset"] == expect_offset
    gap = "" if ok_offset else " OFFSET-GAP"
    if len(raw) != 4 * stored:
        return False, "SHORT-BIN" + gap
    if stored < numel:
        return ok_offset, "sample" + gap
    values = struct.unpack("<%df" % numel, raw)
    norm = math.sqrt(sum(v * v for v in values))
    ok_hash = probe_hash(raw) == entry["hash"]
    ok_norm = math.isclose(norm, entry["norm"], rel_tol=1e-6, abs_tol=1e-12)
    return ok_hash and ok_norm and ok_offset, \
        ("hash" if ok_hash else "HASH-MISMATCH") + \
        ("" if ok_norm else " NORM-MISMATCH") + gap


run_dir, rank = sys.argv[1], sys.argv[2]
with open(f"{run_dir}/probe-rank{rank}.bin", "rb") as f:
    blob = f.read()
failed = False
offset = 0
with open(f"{run_dir}/probe-rank{rank}.jsonl") as f:
    for line in f:
        rec = json.loads(line)
        print(f"step {rec['step']} epoch {rec['epoch']} rank {rec['rank']} "
              f"world_size {rec['world_size']}"
              + (f" indices {rec['indices']}" if "indices" in rec else ""))
        for p in rec["params"]:
            numel = p["numel"]
            stored = p.get("stored", numel)
            ok, what = check(blob, p, numel, stored, offset)
            offset += 4 * stored
            failed |= not ok
            out = f"  {p['name']} numel={numel}" + \
                (f" stored={stored}" if stored < numel else "") + f" {what}"
            if p["grad"] is None:
                out += " grad=null"
            else:
                ok, what = check(blob, p["grad"], numel, stored, offset)
                offset += 4 * stored
                failed |= not ok
                out += f" grad={what}"
            print(out)
if offset != len(blob):
    print(f"bin has {len(blob)} bytes, records cover {offset}")
    failed = True
sys.exit(1 if failed else 0)
