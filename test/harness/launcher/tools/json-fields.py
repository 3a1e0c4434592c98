#!/usr/bin/env python3
"""json-fields.py FILE PATH...: loads FILE with json.load (failing if it is
not JSON) and prints `PATH=value` for each dotted PATH (object keys and array
indices: `steps.2.max_drift`, `0.verdict`, `len(steps)` for a length, `len()` for the whole document's)."""
import json
import sys


def lookup(data, path):
    if path.startswith("len(") and path.endswith(")"):
        return len(lookup(data, path[4:-1]))
    for part in path.split(".") if path else []:
        if isinstance(data, list):
            data = data[int(part)]
        else:
            data = data[part]
    return data


with open(sys.argv[1]) as f:
    data = json.load(f)
for path in sys.argv[2:]:
    print(f"{path}={json.dumps(lookup(data, path))}")
