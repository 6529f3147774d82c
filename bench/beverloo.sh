#!/usr/bin/env bash
# Validation: silo discharge against Beverloo's law. Cylindrical silos (`signorini generate silo`,
# spheres of d = 2 mm, rho 2500 kg/m^3, mu 0.5, a 60 mm shell) with orifices of D/d = 5, 6, 8, 10
# and 12, a gate opened at 0.25 s, discharged on 2 ranks; scripts/beverloo.py fits W over the
# window, measures the bulk density and fits Beverloo's C, k and the exponent; one more silo at
# D/d = 8 with half the charge checks that W does not depend on the fill height.
# Writes beverloo.png (W^(2/5) against D) in the work folder.
# Usage: bench/beverloo.sh [signorini binary] [work dir]
# Environment: RANKS (2), N (12000 spheres), RATIOS ("5 6 8 10 12"), T_FINAL (0.7 s), WINDOW ("0.4 0.7" s),
#              RUN_ARGS (extra run options, e.g. "-dt 0.001")
set -euo pipefail
bin=$(realpath "${1:-build/signorini}")
work=${2:-beverloo}
here=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
ranks=${RANKS:-2}
n=${N:-12000}
ratios=${RATIOS:-"5 6 8 10 12"}
t_final=${T_FINAL:-0.7}
window=${WINDOW:-"0.4 0.7"}
mkdir -p "$work" && cd "$work"
silo() { # name, D/d, spheres
  local orifice
  orifice=$(python3 -c "print($2 * 0.002)")
  "$bin" generate silo -n "$3" -radius 0.001 -width 0.06 -orifice "$orifice" -gate_open 0.25 -gate_speed 0.5 -o "$1.h5" > /dev/null
  local start=$SECONDS
  $mpiexec -n "$ranks" "$bin" run "$1.h5" -o "$1_out.h5" -t_final "$t_final" -progress_interval 0 ${RUN_ARGS:-} > "$1.log"
  echo "$1: D/d = $2, $3 spheres, $((SECONDS - start)) s on $ranks ranks"
}
outs=()
for r in $ratios; do
  silo "D$r" "$r" "$n"
  outs+=("D${r}_out.h5")
done
silo half8 8 $((n / 2))
"${SG_PYTHON:-/usr/bin/python3}" "$here/scripts/beverloo.py" -window $window -png beverloo.png "${outs[@]}"
echo "fill height: the silo at D/d = 8 with $((n / 2)) spheres against $n"
"${SG_PYTHON:-/usr/bin/python3}" "$here/scripts/beverloo.py" -window $window D8_out.h5 half8_out.h5
