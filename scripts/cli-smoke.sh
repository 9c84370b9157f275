#!/usr/bin/env bash
# The built CLI bundle on the Node first on PATH: `doctor`, `policy check` (the bundle's tree-sitter
# grammar, WASM) and `algal run` (SQLite through better-sqlite3's native build). CI runs it on the
# machine's Node and, through scripts/on-node.mjs, on Node 22.
set -euo pipefail
cd "$(dirname "$0")/.."
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
echo "cli smoke on node $(node -p process.version)"
node packages/cli/dist/bin.js doctor --json --state-dir "$state" > /dev/null
node packages/cli/dist/bin.js policy check --json --state-dir "$state" "git status" > /dev/null
node packages/cli/dist/bin.js algal run packages/cli/test/fixtures/algal/counter.algal.json --json --state-dir "$state" > /dev/null
