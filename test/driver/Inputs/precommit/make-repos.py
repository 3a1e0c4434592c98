#!/usr/bin/env python3
"""make-repos.py SRC_ROOT WORKDIR MOCK_INCLUDES: sets up what the pre-commit
test needs, offline:
  WORKDIR/hooks    a git repository holding this checkout's
                   .pre-commit-hooks.yaml and scripts/pre-commit-ddplint,
                   committed and tagged, as pre-commit expects of a hook
                   repository;
  WORKDIR/project  a git repository whose .pre-commit-config.yaml points at
                   it by path and commit, with a compile database in build/
                   that gives the mock LibTorch headers."""
import json
import os
import re
import shutil
import subprocess
import sys

src, work, mocks = sys.argv[1:4]


def git(repo, *args):
    subprocess.run(["git", "-C", repo, "-c", "user.name=ddplint test",
                    "-c", "user.email=test@example.invalid", *args],
                   check=True, stdout=subprocess.DEVNULL)


hooks = os.path.join(work, "hooks")
os.makedirs(os.path.join(hooks, "scripts"))
shutil.copy(os.path.join(src, ".pre-commit-hooks.yaml"), hooks)
shutil.copy(os.path.join(src, "scripts", "pre-commit-ddplint"),
            os.path.join(hooks, "scripts"))
git(hooks, "init", "-q")
git(hooks, "add", ".")
git(hooks, "commit", "-q", "-m", "hooks")
# The release docs/integrations.md names: the version project() names in
# CMakeLists.txt, the one place it is written.
version = re.search(r"project\(ddplint VERSION ([0-9.]+)",
                    open(os.path.join(src, "CMakeLists.txt")).read()).group(1)
git(hooks, "tag", "v" + version)
rev = subprocess.run(["git", "-C", hooks, "rev-parse", "HEAD"], check=True,
                     capture_output=True, text=True).stdout.strip()

project = os.path.join(work, "project")
os.makedirs(os.path.join(project, "src"))
os.makedirs(os.path.join(project, "build"))
with open(os.path.join(project, ".pre-commit-config.yaml"), "w") as f:
    f.write(f"repos:\n- repo: {hooks}\n  rev: {rev}\n"
            "  hooks:\n  - id: ddplint\n")
commands = [{"directory": os.path.join(project, "build"),
             "file": os.path.join(project, "src", name),
             "arguments": ["clang++", "-std=c++17", "-isystem", mocks, "-c",
                           os.path.join(project, "src", name)]}
            for name in ("train.cpp", "util.cpp")]
with open(os.path.join(project, "build", "compile_commands.json"), "w") as f:
    json.dump(commands, f, indent=1)
with open(os.path.join(project, ".gitignore"), "w") as f:
    f.write("build/\n")
git(project, "init", "-q")
git(project, "add", ".")
git(project, "commit", "-q", "-m", "start")
