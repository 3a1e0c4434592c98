#!/usr/bin/env python3
"""check-gone.py PIDFILE...: fails if a process whose pid a file holds still
exists (running or as a zombie nobody reaped)."""
import os
import sys

alive = []
for path in sys.argv[1:]:
    with open(path) as f:
        pid = int(f.read().strip())
    if os.path.exists(f"/proc/{pid}"):
        with open(f"/proc/{pid}/stat") as f:
            alive.append(f"{pid} ({f.read().split(')')[-1].split()[0]})")
if alive:
    sys.exit("check-gone: still present: " + ", ".join(alive))
print(f"check-gone: {len(sys.argv) - 1} processes gone")
