#!/bin/sh
# Runs inside a clean Debian 12 root (scripts/debian-root run): installs the
# package as a user would, uses each part of it, removes it. Prints what it
# did, for FileCheck.  usage: in-root.sh DEB WORKDIR TOOLS_DIR (DEB: a path or a glob)
set -e
deb=$(ls $1) work=$2 tools=$3  # DEB may be a glob
export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)
apt-get install -y -qq "$deb" > "$work/apt-install.log" 2>&1
echo "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}' ddplint)"

# ddplint on the examples (a multi-file LibTorch trainer with known bugs).
cd "$work/examples"
status=0
ddplint src/*.cpp > "$work/examples.out" 2> "$work/examples.err" || status=$?
echo "examples: exit $status, $(grep -c 'warning:' "$work/examples.out") warnings"
echo "first findings $(($(date +%s) - start)) s after apt-get install began"

# The plugin in Debian's clang-tidy-16 (a Recommends).
clang-tidy-16 -load /usr/lib/ddplint-plugin.so -checks='-*,ddp-*' \
  src/train.cpp -- -std=c++17 -isystem /usr/include/torch/csrc/api/include \
  2>/dev/null | grep -m1 'warning:.*\[ddp-' | sed 's/^.*\[/plugin: [/'

# The language: system pre-commit hook in a throw-away repository.
apt-get install -y -qq git pre-commit > "$work/apt-precommit.log" 2>&1
repo=$work/repo
mkdir -p "$repo/src"
cp "$work/examples/src/train.cpp" "$repo/src/"
cd "$repo"
git init -q
cat > .pre-commit-config.yaml <<CONFIG
repos:
- repo: local
  hooks:
  - id: ddplint-system
    name: ddplint
    entry: ddplint
    language: system
    types_or: [c++]
    require_serial: true
CONFIG
git add .
status=0
PRE_COMMIT_HOME=$work/pre-commit-cache pre-commit run --all-files \
  > "$work/pre-commit.out" 2>&1 || status=$?
echo "pre-commit: exit $status, $(grep -o 'ddplint\.*Failed' "$work/pre-commit.out" | head -1)"

# ddplint lsp answers initialize.
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from lsp_client import Client
c = Client(["ddplint", "lsp"], cwd=sys.argv[2])
c.initialize(sys.argv[2])
print("lsp: initialized")
c.stop()
' "$tools" "$repo"

# One harness scenario, from the installed ddp-scenario.
ddp-harness scenarios --only divergent-collective 2>/dev/null | grep '| buggy' | sed 's/  */ /g'

# Removed cleanly: nothing of it left.
apt-get remove -y -qq ddplint > "$work/apt-remove.log" 2>&1
left=$(ls -d /usr/bin/ddplint /usr/bin/ddp-harness /usr/lib/ddplint /usr/lib/ddplint-plugin.so /usr/libexec/ddp-scenario /usr/share/doc/ddplint 2>/dev/null || true)
echo "removed: ${left:-nothing left}"
