#!/usr/bin/env python3
"""interrupt.py SIGNAL PIDFILE... -- COMMAND...: starts COMMAND, waits until
every PIDFILE exists (the ranks are up), sends SIGNAL (INT, TERM, HUP) to
COMMAND, and prints how COMMAND ended."""
import os
import signal
import subprocess
import sys
import time

split = sys.argv.index("--")
signame, pidfiles, command = sys.argv[1], sys.argv[2:split], sys.argv[split + 1:]
proc = subprocess.Popen(command)
deadline = time.monotonic() + 30
while not all(os.path.exists(p) for p in pidfiles):
    if time.monotonic() > deadline or proc.poll() is not None:
        proc.kill()
        sys.exit("interrupt.py: the ranks never started")
    time.sleep(0.05)
proc.send_signal(getattr(signal, "SIG" + signame))
print(f"interrupt.py: exit {proc.wait(timeout=30)}")
