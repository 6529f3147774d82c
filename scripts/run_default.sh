#!/usr/bin/env bash
# The README's first command: set up (packages + build), then the default granular job — a silo
# discharge: 4,000 spheres of d = 2 mm in a cylindrical silo of 32 mm with a 12 mm orifice, settled
# behind a gate that opens at 0.2 s, discharged until 1 s on 2 MPI ranks — writing results/silo.h5
# (scene), results/out.h5 (trajectory + per-step statistics), results/out.xmf (open it in ParaView),
# results/discharge.png (discharged mass against time, with the fitted flow rate) and a one-line
# summary of the flow rate W against Beverloo's law.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh" "$here/build"
mkdir -p "$here/results"
cd "$here/results"
mpi_flags=(--oversubscribe --quiet) # --quiet: an error is signorini's one line, without Open MPI's banner
[ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
"$here/build/signorini" generate silo -n 4000 -gate_open 0.2 -gate_speed 0.5 -o silo.h5
mpiexec "${mpi_flags[@]}" -n 2 "$here/build/signorini" run silo.h5 -o out.h5 -t_final 1 "$@"
"$here/build/signorini" info out.h5
py=${SG_PYTHON:-/usr/bin/python3} # Debian's, where setup.sh installs h5py, numpy and matplotlib
"$py" "$here/scripts/discharge_rate.py" -window 0.4 1.0 -png discharge.png out.h5
"$py" "$here/scripts/beverloo.py" -window 0.4 1.0 -summary out.h5
