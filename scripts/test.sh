#!/usr/bin/env bash
# The one test command: installs what the tests need, then runs every test in the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
export HANDSCOPE_PYTHON="$PWD/.venv/bin/python"
cargo test --workspace --all-targets "$@"
