#!/usr/bin/env bash
# The one test command: installs what the tests need, then runs every test in the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
export HANDSCOPE_PYTHON="$PWD/.venv/bin/python"
# Every library, binary and integration test (`--tests`), every failure reported (`--no-fail-fast`);
# not the benchmarks, which only time
# (`cargo clippy --all-targets` still compiles them).
cargo test --workspace --tests --no-fail-fast "$@"
