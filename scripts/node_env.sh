#!/usr/bin/env bash
# (sourced, not run)
# Sourced by scripts/setup.sh and scripts/test.sh: the panel's build and tests need Node.js >= 20.19 (vite 8),
# and Debian 12's own nodejs is 18.20. When the node on PATH is older or missing, setup fetches a pinned one
# (node and npm, from the npm registry, checked against their published sha512) into TENGIG_NODE_DIR, outside
# the checkout; this puts it first on PATH for the script that sources it. The system's node is left alone.
# The versions and their checksums are pinned in scripts/fetch_node.py.
TENGIG_NODE_DIR=${TENGIG_NODE_DIR:-/opt/tengig/node}

node_is_new_enough() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null
}

if ! node_is_new_enough && [ -x "$TENGIG_NODE_DIR/bin/node" ]; then
  PATH="$TENGIG_NODE_DIR/bin:$PATH"
  export PATH
fi
