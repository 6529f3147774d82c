#!/usr/bin/env bash
# Set up (packages + build) and run the CTest suite. This is the README's second command.
#   bash scripts/test.sh            the suite without the long validation runs (label "slow"): under
#                                   15 minutes on 2 cores; this is what CI runs
#   bash scripts/test.sh --full     everything, the slow label too (about an hour on 2 cores)
#   bash scripts/test.sh -L mpi     any other arguments go to ctest
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
select=(-LE slow)
if [ "${1:-}" = "--full" ]; then select=(); shift; fi
bash "$here/scripts/setup.sh" "$here/build"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "${select[@]}" "$@"
