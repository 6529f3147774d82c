#!/usr/bin/env bash
# Set up (packages + build) and run the whole CTest suite. This is the README's second command.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh" "$here/build"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "$@"
