#!/usr/bin/env bash
# Granular walls, on 2 ranks:
#  1. the box silo (2,000 spheres of d = 2 mm, a 32 mm bin, a 12 mm square orifice, a gate opened at
#     0.1 s) built from boxes (`generate silo -bin box`) and the same bin read from an STL file
#     (`scripts/box_silo_stl.py`, `generate silo -bin none -stl`) discharge at the same rate W over
#     t = 0.2-0.5 s, to 5% (the same spheres meet the same surfaces; what differs is each contact's
#     feature and rounding, which a granular flow amplifies: 5% is about 3 standard errors of W);
#  2. the dynamic angle of repose in a rotating drum (756 spheres, 1.5 s) rises with friction:
#     mu = 0.8 against mu = 0.2, by more than 5 degrees (both angles printed).
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"
SG_CMD_TIMEOUT=900
scripts=$(cd "$(dirname "$0")/../../scripts" && pwd)

section "box silo from boxes and from an STL file"
"$PY" "$scripts/box_silo_stl.py" -height 0.1 bin.stl > /dev/null
check "box_silo_stl.py writes bin.stl" [ -s bin.stl ]
silo=(generate silo -n 2000 -gate_open 0.1 -gate_speed 0.5)
sg_run gen_box "$SG" "${silo[@]}" -bin box -o box.h5
check "generate silo -bin box" [ "$RC" -eq 0 ]
sg_run gen_stl "$SG" "${silo[@]}" -bin none -stl bin.stl -o stl.h5
check "generate silo -bin none -stl bin.stl" [ "$RC" -eq 0 ]
for kind in box stl; do
  sg_run "run_$kind" $MPIEXEC -n 2 "$SG" run "$kind.h5" -o "${kind}_out.h5" -t_final 0.5 -progress_interval 0
  check "run the $kind silo to 0.5 s" [ "$RC" -eq 0 ]
done
"$PY" "$scripts/discharge_rate.py" -window 0.2 0.5 box_out.h5 stl_out.h5 > rates.txt && cat rates.txt | sed 's/^/    /'
"$PY" - <<'PY' && pass "the STL bin discharges as the box bin (W within 5%)" || fail "W of the STL bin differs from the box bin's by more than 5%"
w = [float(l.split()[1]) for l in open('rates.txt') if '_out.h5' in l]
print(f"    W box {w[0] * 1e3:.2f} g/s, W stl {w[1] * 1e3:.2f} g/s: {100 * (w[1] / w[0] - 1):+.2f}%")
raise SystemExit(0 if abs(w[1] / w[0] - 1) <= 0.05 else 1)
PY

section "rotating drum: the angle of repose rises with friction"
for mu in 0.2 0.8; do
  sg_run "gen_drum_$mu" "$SG" generate drum -mu "$mu" -o "drum_$mu.h5"
  check "generate drum -mu $mu" [ "$RC" -eq 0 ]
done
$MPIEXEC -n 1 "$SG" run drum_0.2.h5 -o drum_0.2_out.h5 -t_final 1.5 -progress_interval 0 > drum_0.2.log 2>&1 &
sg_run drum_0.8 $MPIEXEC -n 1 "$SG" run drum_0.8.h5 -o drum_0.8_out.h5 -t_final 1.5 -progress_interval 0
wait
check "run both drums to 1.5 s" [ "$RC" -eq 0 -a -s drum_0.2_out.h5 ]
"$PY" "$scripts/repose_angle.py" -window 0.8 1.5 drum_0.2_out.h5 drum_0.8_out.h5 > angles.txt && sed 's/^/    /' angles.txt
"$PY" - <<'PY' && pass "the angle at mu = 0.8 exceeds the angle at mu = 0.2 by more than 5 degrees" || fail "angle of repose against friction"
a = [float(l.split()[1]) for l in open('angles.txt') if '_out.h5' in l]
raise SystemExit(0 if a[1] - a[0] > 5 else 1)
PY
finish
