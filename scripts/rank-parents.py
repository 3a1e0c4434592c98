#!/usr/bin/env python3
"""rank-parents.py: samples /proc until interrupted and prints, for every
ddp-scenario process it saw, which program its parent was: ranks forked
from one scenario process have a ddp-scenario parent (the supervisor, itself
started by ddp-harness); ranks started one process each have ddp-harness."""
import os
import signal
import time
from collections import Counter

stop = False


def interrupted(*_):
    global stop
    stop = True


def comm_and_parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    # pid (comm) state ppid ...: comm may hold spaces, so split at the last ')'
    comm = text[text.index("(") + 1:text.rindex(")")]
    return comm, int(text[text.rindex(")") + 2:].split()[1])


def comm_of(pid):
    seen = comm_and_parent(pid)
    return seen[0] if seen else "?"


signal.signal(signal.SIGINT, interrupted)
parents = {}
while not stop:
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in parents:
            seen = comm_and_parent(int(name))
            if seen and seen[0] == "ddp-scenario":
                parents[int(name)] = comm_of(seen[1])
    time.sleep(0.1)
counts = Counter(parents.values())
print("ddp-scenario processes seen: %d; by parent: %s" % (
    len(parents), ", ".join("%s %d" % kv for kv in sorted(counts.items()))
    or "none"))
