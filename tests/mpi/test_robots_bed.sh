#!/usr/bin/env bash
# Robots among many contacts on 1, 2 and 4 ranks (issue 16): `generate quadruped -n 8 -bed 2000`,
# eight 18-velocity quadrupeds (one kinematic tree each, PD standing control) with their feet on a
# bed of 2,000 touching spheres (one layer on the ground plane), run with SubADMM: the trajectories
# (bodies' positions and velocities, the trees' coordinates, the links' centres) are the same bits
# on 1, 2 and 4 ranks, the bodies spread over the ranks by METIS with constraints shared
# between them (the run's halo traffic is checked to be non-zero). Shortened to 0.1 s (24 steps of
# 1/240 s, a frame every 4) to stay under a minute on two cores; the robots' feet press into the bed
# within that time (at least 32 spheres, one per foot, move by more than 0.1 mm). Bad input: a bed
# too wide for one layer, and the one-subsystem ablation (-subadmm_split none) on two ranks, each
# refused with one error line.
# Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC.
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
"$bin" generate quadruped -n 8 -bed 2000 -o bed.h5 > gen.log 2>&1 || { echo "FAIL generate"; cat gen.log; exit 1; }
for n in 1 2 4; do
  $mpiexec -n $n "$bin" run bed.h5 -o "bed_$n.h5" -t_final 0.1 -solver subadmm -progress_interval 0 > "run_$n.log" 2>&1 \
    || { echo "FAIL run on $n ranks"; cat "run_$n.log"; fail=1; }
done
for n in 2 4; do
  if grep -q "halo per iteration: 0 bytes" "run_$n.log"; then echo "FAIL no constraint shared between ranks on $n ranks"; fail=1
  else echo "ok   $n ranks share constraints: $(grep 'halo per iteration' "run_$n.log")"; fi
done
# bad input: a bed that does not fit in one layer; the one-subsystem ablation on two ranks
check_refused() { # name, then the command: exit status not 0, one line on stderr, an error line
  local name=$1; shift
  "$@" > bad.out 2> bad.err; local rc=$?
  if [ $rc -ne 0 ] && [ "$(grep -c '^signorini: error:' bad.err)" -eq 1 ]; then echo "ok   $name refused: $(grep '^signorini: error:' bad.err)"
  else echo "FAIL $name: exit $rc, stderr:"; cat bad.err; fail=1; fi
}
check_refused "a bed of too wide spheres" "$bin" generate quadruped -n 8 -bed 2000 -bed_radius 0.5 -o bad.h5
check_refused "-subadmm_split none on 2 ranks" $mpiexec -n 2 "$bin" run bed.h5 -o bad.h5 -t_final 0.01 -subadmm_split none -progress_interval 0
[ $fail -eq 0 ] || exit 1
/usr/bin/python3 - <<'PY' || fail=1
import h5py, numpy as np, sys
names = ['frames/position', 'frames/velocity', 'frames/tree_q', 'frames/link_com', 'frames/link_orientation']
a = h5py.File('bed_1.h5', 'r')
ok = True
for n in (2, 4):
    b = h5py.File('bed_%d.h5' % n, 'r')
    bad = [k for k in names if a[k][()].tobytes() != b[k][()].tobytes()]
    print(('FAIL ' if bad else 'ok   ') + '%d ranks vs 1: ' % n + ('differs in ' + ', '.join(bad) if bad else 'bitwise identical'))
    ok &= not bad
p = a['frames/position'][()]
moved = np.linalg.norm(p[-1, 1:2001] - p[0, 1:2001], axis=1)  # the bed: bodies 1..2000 (0 is the ground)
pressed = int((moved > 1e-4).sum())
print(('ok   ' if pressed >= 32 else 'FAIL ') + '%d bed spheres pushed by more than 0.1 mm by the feet (largest %.2e m)' % (pressed, moved.max()))
ok &= pressed >= 32
print(('ok   ' if a['frames/tree_q'].shape[1] == 8 * 19 else 'FAIL ') + 'eight trees of 19 coordinates')
ok &= a['frames/tree_q'].shape[1] == 8 * 19
sys.exit(0 if ok else 1)
PY
exit $fail
