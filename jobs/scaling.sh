#!/usr/bin/env bash
# Scaling driver, local or inside a batch job. Prints a table: ranks, bodies, steps, seconds per
# step (median of the per-step wall times in /stats/wall_seconds), speed-up and parallel efficiency.
#   bash jobs/scaling.sh build/signorini scene.h5 strong "1 2"
#   BODIES_PER_RANK=5000 bash jobs/scaling.sh build/signorini "" weak "1 2"
# MPIRUN: launcher prefix taking the rank count next (default: mpiexec --oversubscribe -n).
set -euo pipefail
bin=$1; scene=$2; mode=$3; ranks=$4
steps=${STEPS:-24}
dt=$(awk 'BEGIN{printf "%.17g", 1/240}')
t_final=$(awk -v s="$steps" -v d="$dt" 'BEGIN{printf "%.17g", s*d}')
launcher=${MPIRUN:-"mpiexec --oversubscribe $( [ "$(id -u)" -eq 0 ] && echo --allow-run-as-root ) -n"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-6s %-9s %-6s %-14s %-9s %-10s\n" ranks bodies steps "s/step" speedup efficiency
base=""
for p in $ranks; do
  s=$scene
  if [ "$mode" = weak ]; then
    s=$work/weak_$p.h5
    "$bin" generate pile -n $(( ${BODIES_PER_RANK:-20000} * p )) -o "$s" > /dev/null
  fi
  $launcher "$p" "$bin" run "$s" -o "$work/out_$p.h5" -t_final "$t_final" -progress_interval 0 -output_every 1000000 > "$work/log_$p" 2>&1 \
    || { cat "$work/log_$p"; exit 1; }
  read -r n sps < <(/usr/bin/python3 -c "
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'r')
print(f['frames/position'].shape[1], float(np.median(f['stats/wall_seconds'][()])))" "$work/out_$p.h5")
  [ -z "$base" ] && base=$sps && base_p=$p
  read -r speedup eff < <(awk -v b="$base" -v s="$sps" -v p="$p" -v bp="$base_p" -v m="$mode" 'BEGIN{
    su = b / s; if (m == "weak") e = su; else e = su * bp / p; printf "%.3f %.1f%%\n", su, 100 * e }')
  printf "%-6s %-9s %-6s %-14.6f %-9s %-10s\n" "$p" "$n" "$steps" "$sps" "$speedup" "$eff"
done
