#!/usr/bin/env python3
"""What an editor user waits for: `ddplint lsp` against the command line.

Measures, in one run, on one LibTorch unit (default examples/src/train.cpp,
with the compile_flags.txt above it):
  * a cold `ddplint --no-cache FILE` (empty cache directory),
  * a cold `clang-tidy-16 -load <plugin> --checks=-*,ddp-* FILE`,
  * a cold server (empty cache directory): didOpen to the first
    diagnostics, the preamble's PCH built on the way,
  * a re-lint after a one-line edit and a save: save to diagnostics
    (median of --edits), and its ratio to the cold command line,
  * `ddplint FILE` run again after the server built the preamble (the
    command line reuses the server's PCH),
  * `ddplint FILE` as an editor runs it on save, alone: the first run
    (which precompiles the preamble), then a run after a one-line edit,
  * the server's resident memory after its first analysis and after
    --memory-edits edited versions, each analysed.

Usage: bench/editor.py [--edits N] [--memory-edits N] [FILE]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "tools"))
from lsp_client import Client  # noqa: E402

DDPLINT = os.path.join(ROOT, "build", "bin", "ddplint")
PLUGIN = os.path.join(ROOT, "build", "lib", "ddplint-plugin.so")


def timed(cmd, cwd, env=None):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def project_copy(path, work):
    """A copy of the tree under the compile_flags.txt (or
    compile_commands.json) above path, and path's place in it: the runs on
    save edit the copy, not the project."""
    top = os.path.dirname(path)
    while not any(os.path.exists(os.path.join(top, f))
                  for f in ("compile_flags.txt", "compile_commands.json")):
        if os.path.dirname(top) == top:
            sys.exit("no compile database above " + path)
        top = os.path.dirname(top)
    dest = os.path.join(work, "project")
    shutil.copytree(top, dest, ignore=shutil.ignore_patterns("build", ".git"))
    return os.path.join(dest, os.path.relpath(path, top))


def cli_on_save(path, cache):
    """ddplint FILE with the findings cache on: the first run, then one
    after a one-line edit."""
    cwd = os.path.dirname(path)
    first = timed([DDPLINT, "--cache-dir", cache, path], cwd)
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n// edited\n")
    again = timed([DDPLINT, "--cache-dir", cache, path], cwd)
    return first, again


def edited(text, n):
    """The unit with one line changed: a comment at its end."""
    return text + "\n// edit %d\n" % n


def server_session(path, cache, edits, memory_edits):
    text = open(path, encoding="utf-8").read()
    c = Client([DDPLINT, "lsp", "--cache-dir", cache, "--debounce-ms", "0"],
               cwd=os.path.dirname(path))
    c.initialize(os.path.dirname(path))
    start = time.perf_counter()
    uri = c.open(path, text)
    first = c.diagnostics(uri, 1, timeout=600)
    cold = time.perf_counter() - start
    rss_first = rss_mib(c.proc.pid)
    relints = []
    version = 1
    for n in range(edits):
        version += 1
        c.change(uri, version, edited(text, n))
        c.diagnostics(uri, version, timeout=600)  # the edit's own analysis
        version += 1
        start = time.perf_counter()
        c.change(uri, version, edited(text, n) + " ")
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        c.diagnostics(uri, version, timeout=600)
        relints.append(time.perf_counter() - start)
    for n in range(memory_edits):
        version += 1
        c.change(uri, version, edited(text, 1000 + n))
        c.diagnostics(uri, version, timeout=600)
    rss_last = rss_mib(c.proc.pid)
    c.stop()
    return {"cold": cold, "relint": statistics.median(relints),
            "findings": len(first["diagnostics"]), "rss_first": rss_first,
            "rss_last": rss_last, "versions": version}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?",
                        default=os.path.join(ROOT, "examples", "src",
                                             "train.cpp"))
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--memory-edits", type=int, default=100)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ddplint-editor-")
    path = project_copy(os.path.abspath(args.file), work)
    cwd = os.path.dirname(path)
    try:
        cli_cache = os.path.join(work, "cli")
        cold_cli = timed([DDPLINT, "--no-cache", "--cache-dir", cli_cache,
                          path], cwd)
        cold_tidy = timed(["clang-tidy-16", "-load", PLUGIN,
                           "--checks=-*,ddp-*", path], cwd)
        server_cache = os.path.join(work, "server")
        s = server_session(path, server_cache, args.edits, args.memory_edits)
        warm_cli = timed([DDPLINT, "--no-cache", "--cache-dir", server_cache,
                          path], cwd)
        save_first, save_again = cli_on_save(path, os.path.join(work, "save"))
    finally:
        shutil.rmtree(work)

    print("unit: %s (%d findings)" % (args.file, s["findings"]))
    print("%-52s %8s %8s" % ("", "seconds", "ratio"))
    rows = [
        ("cold ddplint --no-cache FILE", cold_cli, 1.0),
        ("cold clang-tidy-16 -load (plugin)", cold_tidy, cold_tidy / cold_cli),
        ("cold server: open to first diagnostics", s["cold"],
         s["cold"] / cold_cli),
        ("server: one-line edit, save to diagnostics (median)",
         s["relint"], s["relint"] / cold_cli),
        ("ddplint FILE after the server built the preamble", warm_cli,
         warm_cli / cold_cli),
        ("ddplint FILE on save: first run (builds the preamble)",
         save_first, save_first / cold_cli),
        ("ddplint FILE on save: after a one-line edit", save_again,
         save_again / cold_cli),
    ]
    for name, seconds, ratio in rows:
        print("%-52s %8.2f %8.3f" % (name, seconds, ratio))
    print("server resident memory: %.0f MiB after the first analysis, "
          "%.0f MiB after %d versions (growth %.0f MiB)" % (
              s["rss_first"], s["rss_last"], s["versions"],
              s["rss_last"] - s["rss_first"]))


if __name__ == "__main__":
    main()
