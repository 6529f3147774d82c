#!/usr/bin/env bash
# The README's first command: set up (packages + build), then the default granular job — a pile of
# 2,000 spheres poured into a box, 3 s simulated on 2 MPI ranks — writing results/pile.h5 (scene),
# results/out.h5 (trajectory + per-step statistics) and results/out.xmf (open it in ParaView).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh" "$here/build"
mkdir -p "$here/results"
cd "$here/results"
mpi_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
"$here/build/signorini" generate pile -n 2000 -o pile.h5
mpiexec "${mpi_flags[@]}" -n 2 "$here/build/signorini" run pile.h5 -o out.h5 -t_final 3 "$@"
"$here/build/signorini" info out.h5
