#!/usr/bin/env python3
"""probe-files.py RUN_DIR RANK: reads probe-rank<RANK>.{jsonl,bin} the way the
format in docs/harness.md defines them, independently of ddp-harness, and
prints one line per step and parameter: its name, numel, whether the hash
recomputed from the .bin matches (FNV-1a 64 over the float32 bytes), whether
the norm matches, and the gradient's (or `grad=null`). Offsets must tile the
.bin without gaps or overlaps. Exits 1 on any mismatch."""
import json
import math
import struct
import sys


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def check(blob, entry, numel, expect_offset):
    raw = blob[entry["offset"]:entry["offset"] + 4 * numel]
    values = struct.unpack("<%df" % numel, raw)
    norm = math.sqrt(sum(v * v for v in values))
    ok_hash = fnv1a(raw) == entry["hash"]
    ok_norm = math.isclose(norm, entry["norm"], rel_tol=1e-6, abs_tol=1e-12)
    ok_offset = entry["offset"] == expect_offset
    return ok_hash and ok_norm and ok_offset, ("hash" if ok_hash else "HASH-MISMATCH") + \
        ("" if ok_norm else " NORM-MISMATCH") + ("" if ok_offset else " OFFSET-GAP")


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
            ok, what = check(blob, p, p["numel"], offset)
            offset += 4 * p["numel"]
            failed |= not ok
            out = f"  {p['name']} numel={p['numel']} {what}"
            if p["grad"] is None:
                out += " grad=null"
            else:
                ok, what = check(blob, p["grad"], p["numel"], offset)
                offset += 4 * p["numel"]
                failed |= not ok
                out += f" grad={what}"
            print(out)
if offset != len(blob):
    print(f"bin has {len(blob)} bytes, records cover {offset}")
    failed = True
sys.exit(1 if failed else 0)
