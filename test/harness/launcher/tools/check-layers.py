#!/usr/bin/env python3
"""check-layers.py HARNESS_MD LAUNCHER_DIR: checks that every file of the
launcher includes only launcher headers of its own layer or a layer below,
as the table under "Source layout" in docs/harness.md assigns them, so no
dependency runs in a circle. A name in the table is a file's stem (both .h
and .cpp), a file name, or a pattern with '*'. Prints each violation and
each file the table does not place; exits 1 when there is any."""
import fnmatch
import os
import re
import sys


def layers(harness_md):
    """{pattern: layer} from the table's rows `| N | `A`, `B` | ... |`."""
    text = open(harness_md).read()
    section = text[text.index("## Source layout"):]
    table = {}
    for m in re.finditer(r"^\| (\d+) \| ([^|]+) \|", section, re.M):
        for name in re.findall(r"`([^`]+)`", m.group(2)):
            table[name] = int(m.group(1))
    return table


def layer_of(name, table):
    stem = os.path.splitext(name)[0]
    for pattern, layer in table.items():
        if pattern in (name, stem) or ("*" in pattern and (
                fnmatch.fnmatch(name, pattern) or
                fnmatch.fnmatch(stem, pattern))):
            return layer
    return None


def main():
    table = layers(sys.argv[1])
    src = sys.argv[2]
    problems = []
    for name in sorted(os.listdir(src)):
        if not name.endswith((".h", ".cpp")):
            continue
        own = layer_of(name, table)
        if own is None:
            problems.append(f"{name}: not in the layer table")
            continue
        for inc in re.findall(r'^#include "([^"/]+)"', open(
                os.path.join(src, name)).read(), re.M):
            if not os.path.exists(os.path.join(src, inc)):
                continue
            theirs = layer_of(inc, table)
            if theirs is None or theirs > own:
                problems.append(f"{name} (layer {own}) includes {inc} "
                                f"(layer {theirs})")
    for p in problems:
        print(p)
    print(f"{len(problems)} layering problems")
    return 1 if problems else 0


sys.exit(main())
