#!/usr/bin/env python3
"""The checks' layers, kept as LLVM keeps its own: every file under checks/
sits in one layer's folder, and includes headers of its own layer or of the
layers below it, never of one above.

    vocabulary/  what LibTorch, c10d, MPI and NCCL names mean
    analysis/    CFGs, reachability, divergence, collective sites: no check
    summary/     one summary per function, shared by every check
    model/       what a program does: gradients, wrappers, module uses
    ddp/         the checks, their bases, the module's registration

A quoted #include names its header from checks/ ("analysis/Reachability.h");
a name without a folder is a header of the includer's own folder. Usage:
layering.py CHECKS_DIR. Prints one line per violation (file:line: what it
includes) and exits 1 when there is one."""

import pathlib
import re
import sys

LAYERS = ["vocabulary", "analysis", "summary", "model", "ddp"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".cpp", ".inc", ".def")


def layer_of_header(name, own):
    """The layer of the header an #include names, or None for one outside
    checks/ (clang's, LLVM's, clang-tidy's)."""
    parts = name.split("/")
    if len(parts) == 1:
        return own
    return parts[0] if parts[0] in LAYERS else None


def violations(root):
    root = pathlib.Path(root)
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        own = rel.split("/")[0]
        if own not in LAYERS or len(rel.split("/")) != 2:
            yield "%s: not in a layer's folder (%s)" % (rel, ", ".join(
                l + "/" for l in LAYERS))
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8")
                                      .splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            layer = layer_of_header(m.group(1), own)
            if layer is not None and LAYERS.index(layer) > LAYERS.index(own):
                yield ("%s:%d: includes \"%s\", of the %s layer, above %s" %
                       (rel, number, m.group(1), layer, own))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: layering.py CHECKS_DIR")
    found = list(violations(sys.argv[1]))
    for v in found:
        print("layering: " + v)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
