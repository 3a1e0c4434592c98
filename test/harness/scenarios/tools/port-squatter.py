#!/usr/bin/env python3
"""port-squatter.py PROGRAM [ARGS...]: on rank 0, listens on MASTER_PORT
first and keeps the socket open across exec, so that the program's own
TCPStore server cannot bind it (the race in which another process takes the
port between the launcher's choice and rank 0's bind). Other ranks exec the
program unchanged."""
import os
import socket
import sys

if os.environ.get("RANK") == "0":
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", int(os.environ["MASTER_PORT"])))
    squatter.listen(1)
    squatter.set_inheritable(True)
os.execv(sys.argv[1], sys.argv[1:])
