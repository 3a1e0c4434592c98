"""Drives `ddplint lsp` through a scripted session and prints what it saw,
one fact per line, for FileCheck.

usage: protocol.py TOOLS_DIR DDPLINT PROJECT ALONE
  PROJECT: a directory with compile_flags.txt and fixable.cpp, broken.cpp
  ALONE: a file to open from a temporary directory, under no compile
         database (a build tree above the test's own directory has one)
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from lsp_client import Client, file_uri  # noqa: E402

ddplint, project, alone_input = sys.argv[2:5]
fixable = os.path.join(project, "fixable.cpp")
broken = os.path.join(project, "broken.cpp")
outside = tempfile.mkdtemp(prefix="ddplint-lsp-")
alone = os.path.join(outside, "alone.cpp")
shutil.copy(alone_input, alone)


def show(params, label):
    print("%s: version %s, %d diagnostics" % (
        label, params.get("version"), len(params["diagnostics"])))
    for d in params["diagnostics"]:
        start = d["range"]["start"]
        href = d.get("codeDescription", {}).get("href", "")
        print("  %d:%d severity %d %s %s | %s | related %d" % (
            start["line"] + 1, start["character"] + 1, d["severity"],
            d.get("code", "-"), os.path.basename(href), d["message"][:60],
            len(d.get("relatedInformation", []))))


c = Client([ddplint, "lsp", "--debounce-ms", "200"], cwd=project)

# Requests before initialize are refused; a broken message gets ParseError.
rid = c.request("textDocument/codeAction", {})
print("before initialize: error", c.response(rid)["error"]["code"])
c.send_raw("{not json")
print("broken message: error", c.wait_for(lambda m: "error" in m)["error"]["code"])

result = c.initialize(project, progress=True)
caps = result["capabilities"]
print("server:", result["serverInfo"]["name"], "sync", caps["textDocumentSync"]["change"],
      "actions", caps["codeActionProvider"]["codeActionKinds"])

# Open: the findings, with the check's page and the notes.
uri = c.open(fixable)
show(c.diagnostics(uri, 1), "opened")

# The quick fixes of the unwrapped forward (line 21).
rid = c.request("textDocument/codeAction", {
    "textDocument": {"uri": uri},
    "range": {"start": {"line": 20, "character": 0},
              "end": {"line": 20, "character": 40}},
    "context": {"diagnostics": []}})
for action in c.response(rid)["result"]:
    edits = action["edit"]["changes"][uri]
    print("action: %s | preferred %s | %d:%d-%d:%d -> %s" % (
        action["title"][:40], action["isPreferred"],
        edits[0]["range"]["start"]["line"] + 1,
        edits[0]["range"]["start"]["character"] + 1,
        edits[0]["range"]["end"]["line"] + 1,
        edits[0]["range"]["end"]["character"] + 1, edits[0]["newText"]))

# An edit, then a code action for the new version, cancelled while it waits
# for that version's analysis.
with open(fixable, encoding="utf-8") as f:
    text = f.read()
c.change(uri, 2, text.replace("model->forward(x)", "ddp->forward(x)"))
rid = c.request("textDocument/codeAction", {
    "textDocument": {"uri": uri},
    "range": {"start": {"line": 20, "character": 0},
              "end": {"line": 20, "character": 40}},
    "context": {"diagnostics": []}})
c.notify("$/cancelRequest", {"id": rid})
reply = c.response(rid)
print("cancelled:", reply.get("error", {}).get("code"))
c.notify("$/cancelRequest", {"id": 999})  # unknown: ignored
show(c.diagnostics(uri, 2), "edited")

# 50 edits in a row: only the last version is published, after typing pauses.
seen = []
for version in range(3, 53):
    edited = text if version % 2 else text.replace("model->forward(x)",
                                                   "ddp->forward(x)")
    c.change(uri, version, edited + "\n" * version)
last = c.diagnostics(uri, 52, seen=seen)
published = [m for m in seen
             if m.get("method") == "textDocument/publishDiagnostics"
             and m["params"]["uri"] == uri]
print("after 50 edits: %d stale publications" % len(published))
show(last, "final")

# A unit that does not compile still gets the checks' findings.
show(c.diagnostics(c.open(broken)), "broken")

# A file under no compile database: parsed as C++17 with no other flags.
show(c.diagnostics(c.open(alone)), "outside")

# Closing clears the file's diagnostics.
c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
show(c.diagnostics(uri), "closed")

rid = c.request("workspace/symbol", {"query": ""})
print("unknown method: error", c.response(rid)["error"]["code"])
print("exit code:", c.stop())
shutil.rmtree(outside)
