#!/usr/bin/env bash
# Granular walls, on 2 ranks:
#  1. the box silo (2,000 spheres of d = 2 mm, a 32 mm bin, a 12 mm square orifice, a gate opened at
#     0.1 s) built from boxes (`generate silo -bin box`) and the same bin read from an STL file
#     (`scripts/box_silo_stl.py`, `generate silo -bin none -stl`) discharge at the same rate W over
#     t = 0.2-0.5 s: the mean over two fills (lattice jitter seeds 1 and 2) within 10%. The same
#     spheres meet the same surfaces; what differs is each contact's feature and rounding, which a
#     granular flow amplifies. One run's W is known to 3-5% only (the batch-means standard error
#     that discharge_rate.py prints): two runs of the STL silo that differ by round-off only gave W
#     5.4% apart, two fills 2.8% (4.7% for the box silo; docs/GRANULAR.md, "STL walls against boxes"); with a scatter of
#     about 3-4% per run, the difference of two means of two is 10% at about 3 standard deviations;
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
for seed in 1 2; do
  sg_run "gen_box_$seed" "$SG" "${silo[@]}" -seed "$seed" -bin box -o "box_$seed.h5"
  check "generate silo -bin box -seed $seed" [ "$RC" -eq 0 ]
  sg_run "gen_stl_$seed" "$SG" "${silo[@]}" -seed "$seed" -bin none -stl bin.stl -o "stl_$seed.h5"
  check "generate silo -bin none -stl bin.stl -seed $seed" [ "$RC" -eq 0 ]
  for kind in box stl; do
    sg_run "run_${kind}_$seed" $MPIEXEC -n 2 "$SG" run "${kind}_$seed.h5" -o "${kind}_${seed}_out.h5" -t_final 0.5 -progress_interval 0
    check "run the $kind silo (seed $seed) to 0.5 s" [ "$RC" -eq 0 ]
  done
done
"$PY" "$scripts/discharge_rate.py" -window 0.2 0.5 box_1_out.h5 box_2_out.h5 stl_1_out.h5 stl_2_out.h5 > rates.txt &&
  sed 's/^/    /' rates.txt
"$PY" - <<'PY' && pass "the STL bin discharges as the box bin (mean W of two fills within 10%)" || fail "mean W of the STL bin differs from the box bin's by more than 10%"
w = [float(l.split()[1]) for l in open('rates.txt') if '_out.h5' in l]
box, stl = (w[0] + w[1]) / 2, (w[2] + w[3]) / 2
print(f"    W box {w[0] * 1e3:.2f}, {w[1] * 1e3:.2f} g/s (mean {box * 1e3:.2f}), W stl {w[2] * 1e3:.2f}, {w[3] * 1e3:.2f} g/s "
      f"(mean {stl * 1e3:.2f}): {100 * (stl / box - 1):+.2f}%")
raise SystemExit(0 if abs(stl / box - 1) <= 0.10 else 1)
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
