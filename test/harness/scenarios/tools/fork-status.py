#!/usr/bin/env python3
"""fork-status.py RUNDIR SCENARIO ARGS...: runs SCENARIO (ddp-scenario) on
two Gloo ranks the way ddp-harness forks them from one process: one process
with DDP_HARNESS_FORKED_RANKS naming a status pipe and rank 1's stdout and
stderr (rank 0's are its own). Prints the status pipe's lines with the pids
replaced by whether they are the supervisor's own, each rank's first stdout
line, and the supervisor's exit code."""
import os
import socket
import subprocess
import sys

run_dir, command = sys.argv[1], sys.argv[2:]
os.makedirs(run_dir, exist_ok=True)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
status_r, status_w = os.pipe()
out1_r, out1_w = os.pipe()
err1_r, err1_w = os.pipe()
env = dict(os.environ, RANK="0", LOCAL_RANK="0", WORLD_SIZE="2",
           LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
           MASTER_PORT=str(port), DDP_HARNESS_RUN_DIR=run_dir,
           DDP_HARNESS_BACKEND="gloo", OMP_NUM_THREADS="1",
           DDP_HARNESS_FORKED_RANKS=f"{status_w}:1,2:{out1_w},{err1_w}")
fds = (status_w, out1_w, err1_w)
proc = subprocess.Popen(command, env=env, pass_fds=fds,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
for fd in fds:
    os.close(fd)
os.close(err1_r)  # rank 1 writes little to stderr; a closed pipe is fine
out0 = proc.stdout.read().decode()
with os.fdopen(out1_r) as f:
    out1 = f.read()
with os.fdopen(status_r) as f:
    status = f.read().splitlines()
code = proc.wait(timeout=120)
for line in status:
    kind, rank, value = line.split()
    if kind == "pid":
        value = "self" if int(value) == proc.pid else "child"
    print(kind, rank, value)
print("rank 0:", out0.splitlines()[0] if out0 else "")
print("rank 1:", out1.splitlines()[0] if out1 else "")
print("supervisor: exit", code)
