#!/usr/bin/env bash
# Installs the newest Node.js of one major line (the npm registry's `node` package, which carries
# the binary for this platform) into a folder of its own, and prints the folder that holds its
# `node`: `PATH="$(bash scripts/node-line.sh 24):$PATH" npm test` runs the tests on that line.
# The folder is kept (NODE_LINES_DIR, default ~/.cache/pbw-node-lines) and reused while it holds
# a node of that line. npm itself is the machine's; it runs on the node found first on PATH.
set -euo pipefail
line=${1:?usage: node-line.sh MAJOR (for example 24)}
case "$line" in '' | *[!0-9]*) echo "node-line.sh: MAJOR must be a number, got '$line'" >&2; exit 2 ;; esac
dir="${NODE_LINES_DIR:-$HOME/.cache/pbw-node-lines}/$line"
bin="$dir/node_modules/.bin"
if ! [ -x "$bin/node" ] || ! "$bin/node" --version 2>/dev/null | grep -q "^v$line\."; then
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "node@$line" >&2
fi
"$bin/node" --version | grep -q "^v$line\." || { echo "node-line.sh: no Node.js $line in $dir" >&2; exit 1; }
echo "$bin"
