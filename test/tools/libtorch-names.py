#!/usr/bin/env python3
"""LibTorch's, c10d's, MPI's and NCCL's names are spelled in one place: the
vocabulary (checks/vocabulary/). The layers above it (analysis/, model/,
ddp/) ask the vocabulary what a call or a type is; this script reads their
code and fails on a name spelled there:

  - a qualified name of LibTorch's namespaces (c10d::, c10::, torch::, at::)
    in code, or a string that starts with one;
  - a string that is one of LibTorch's, c10d's, MPI's or NCCL's own names
    (a tensor or module method such as "forward", "parameters",
    "named_buffers", "register_hook"; a collective; an MPI_ or nccl
    function).

Comments are not read, and a string is read whole (adjacent literals joined),
so a diagnostic's message may name LibTorch's API as its reader writes it.
Names that are also the standard library's or a plain English word ("data",
"size", "at", "wait", "grad" in a name heuristic) are not in the list.
Usage: libtorch-names.py CHECKS_DIR. Prints file:line: the name, and exits 1
when one is found."""

import pathlib
import re
import sys

LAYERS = ["analysis", "model", "ddp"]
NAMESPACES = r"(?:c10d|c10|torch|at)::"
NAMES = {
    # Tensors and modules.
    "forward", "backward", "parameters", "named_parameters", "buffers",
    "named_buffers", "children", "named_children", "modules",
    "named_modules", "mutable_grad", "register_hook", "zero_grad",
    "data_ptr", "detach", "view_as", "reshape", "unsqueeze", "numel",
    "defined", "requires_grad", "make_intrusive", "register_module",
    "register_parameter", "register_buffer",
    # Training, data loading, checkpoints, setup.
    "make_data_loader", "set_epoch", "manual_seed", "step", "save", "load",
    "DistributedRandomSampler", "DistributedSequentialSampler",
    # c10d.
    "allreduce", "allreduce_coalesced", "allgather", "all_gather",
    "broadcast", "barrier", "reduce_scatter", "alltoall", "alltoall_base",
    "getRank", "getSize", "ProcessGroup", "ProcessGroupNCCL",
    "ProcessGroupGloo", "ProcessGroupMPI", "Backend", "ReduceOp", "Work",
    "TCPStore", "FileStore", "DistributedDataParallel",
}
PREFIXES = re.compile(r"^(?:MPI_|nccl[A-Z]|" + NAMESPACES + ")")
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                   re.S)
ADJACENT = re.compile(r'\s*"')
IN_CODE = re.compile(r"\b" + NAMESPACES)


def strings_and_code(text):
    """Yields (line, kind, text): each maximal run of adjacent string
    literals, joined, as 'string', and the code between as 'code'."""
    pos = 0
    line = 1
    joined = None
    for m in TOKEN.finditer(text):
        gap = text[pos:m.start()]
        tok = m.group(0)
        if joined is not None and (gap.strip() or not tok.startswith('"')):
            yield joined
            joined = None
        if gap.strip():
            yield (line, "code", gap)
        line += gap.count("\n")
        if tok.startswith('"'):
            if joined is None:
                joined = (line, "string", tok[1:-1])
            else:
                joined = (joined[0], "string", joined[2] + tok[1:-1])
        line += tok.count("\n")
        pos = m.end()
    if joined is not None:
        yield joined
    if text[pos:].strip():
        yield (line, "code", text[pos:])


def spelled(root):
    root = pathlib.Path(root)
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in (".h", ".cpp") or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            for line, kind, piece in strings_and_code(text):
                if kind == "string":
                    if piece in NAMES or PREFIXES.match(piece):
                        yield '%s:%d: "%s"' % (rel, line, piece)
                    continue
                if piece.lstrip().startswith("#"):
                    continue
                for m in IN_CODE.finditer(piece):
                    at = line + piece.count("\n", 0, m.start())
                    yield "%s:%d: %s" % (rel, at, m.group(0))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: libtorch-names.py CHECKS_DIR")
    found = list(spelled(sys.argv[1]))
    for f in found:
        print("libtorch-names: " + f + " is spelled outside the vocabulary")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
