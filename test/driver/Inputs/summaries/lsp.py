"""Opens model.cpp in `ddplint lsp` with a cache folder and prints the
diagnostics, one per line, for FileCheck.

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
uri = c.open(os.path.join(project, "model.cpp"))
params = c.diagnostics(uri, 1)
print("diagnostics: %d" % len(params["diagnostics"]))
for d in params["diagnostics"]:
    start = d["range"]["start"]
    print("%d:%d %s | %s" % (start["line"] + 1, start["character"] + 1,
                             d.get("code", "-"), d["message"][:70]))
c.stop()
