#!/usr/bin/env python3
"""check-port.py OUTPUT: finds MASTER_PORT=N in a ddp-harness output file and
fails unless port N is free again: no socket listens on it and a new listener
(with SO_REUSEADDR, as c10d's TCPStore binds) can bind it."""
import re
import socket
import sys

with open(sys.argv[1], errors="replace") as f:
    match = re.search(r"MASTER_PORT=(\d+)", f.read())
if not match:
    sys.exit("check-port: no MASTER_PORT in " + sys.argv[1])
port = int(match.group(1))
with open("/proc/net/tcp") as f:
    for line in f.readlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        if local_port == port and fields[3] == "0A":  # LISTEN
            sys.exit(f"check-port: something still listens on port {port}")
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(1)
s.close()
print("check-port: port is free")
