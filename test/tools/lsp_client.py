"""A small scripted Language Server Protocol client for tests and benchmarks.

Starts a server process, writes requests and notifications to its stdin in
the base protocol's framing, and reads its messages on a thread into a
queue, so that a test can wait for the message it expects with a timeout.
"""
import json
import os
import queue
import subprocess
import threading
import time


def file_uri(path):
    from urllib.parse import quote
    return "file://" + quote(os.path.abspath(path))


class Client:
    def __init__(self, command, cwd=None, env=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.messages = queue.Queue()
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = out.read(length)
            self.messages.put(json.loads(body))

    def send_raw(self, body):
        data = body.encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def send(self, message):
        message = dict(message, jsonrpc="2.0")
        self.send_raw(json.dumps(message))

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait_for(self, predicate, timeout=60.0, seen=None):
        """The first message predicate accepts; the others go to seen."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no expected message in %.0f s" % timeout)
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                raise EOFError("the server closed its output")
            if message.get("method") == "window/workDoneProgress/create":
                self.send({"id": message["id"], "result": None})
            if predicate(message):
                return message
            if seen is not None:
                seen.append(message)

    def response(self, request_id, timeout=60.0, seen=None):
        return self.wait_for(
            lambda m: m.get("id") == request_id and "method" not in m,
            timeout, seen)

    def diagnostics(self, uri, version=None, timeout=60.0, seen=None):
        def wanted(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or
                                        p.get("version") == version)
        return self.wait_for(wanted, timeout, seen)["params"]

    def initialize(self, root, progress=False):
        rid = self.request("initialize", {
            "processId": os.getpid(), "rootUri": file_uri(root),
            "capabilities": {"window": {"workDoneProgress": progress}}})
        result = self.response(rid)["result"]
        self.notify("initialized", {})
        return result

    def open(self, path, text=None, version=1):
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": file_uri(path), "languageId": "cpp", "version": version,
            "text": text}})
        return file_uri(path)

    def change(self, uri, version, text):
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]})

    def stop(self, timeout=30.0):
        rid = self.request("shutdown", None)
        self.response(rid, timeout)
        self.notify("exit", None)
        return self.proc.wait(timeout)
