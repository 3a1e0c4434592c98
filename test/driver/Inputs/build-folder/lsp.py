"""Opens src/trainer.cpp of a project in `ddplint lsp` and prints where the
server took its compile command from and the diagnostics' codes.

usage: lsp.py TOOLS_DIR DDPLINT PROJECT CACHE_DIR
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
from lsp_client import Client  # noqa: E402

ddplint, project, cache = sys.argv[2:5]
c = Client([ddplint, "lsp", "--cache-dir", cache, "--debounce-ms", "50"],
           cwd=project)
c.initialize(project)
seen = []
uri = c.open(os.path.join(project, "src", "trainer.cpp"))
params = c.diagnostics(uri, 1, seen=seen)
for m in seen:
    if m.get("method") == "window/logMessage":
        print(m["params"]["message"])
for d in params["diagnostics"]:
    print("%d %s" % (d["range"]["start"]["line"] + 1, d.get("code", "-")))
c.stop()
