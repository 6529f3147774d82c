#!/usr/bin/env bash
# The post-solve contact search restricted to the bodies that moved far (-contact_recheck_around,
# src/step/solve.c): only a pair with a body that moves at least 0.45 x margin in the step can end it
# overlapping a neighbour it did not have, so the search around those bodies decides as the search
# of the whole scene does, and the whole search runs only when it finds such an overlap. Checked on a
# discharging silo (1,000 spheres of 2 mm, the orifice open from the start, outflow), 0.3 s:
#  - with and without the restriction the trajectories are the same bit for bit, on 1 and on 2 ranks
#    (and the same on 1 and 2 ranks);
#  - the restricted runs did search around fast bodies, and searched the whole scene fewer times
#    than the unrestricted ones (the shortcut was taken), but at least once (the full search after an
#    overlap was exercised too), with solves added for the overlaps in both.
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"

sg_run gen "$SG" generate silo -n 1000 -width 0.024 -orifice 0.012 -gate_open 0 -outflow_depth 0.02 -o silo.h5
check "generate a small silo, open from the start" [ "$RC" -eq 0 ]
for np in 1 2; do
  for around in 1 0; do
    sg_run "run_${np}_$around" $MPIEXEC -n "$np" "$SG" run silo.h5 -o "out_${np}_$around.h5" -t_final 0.3 \
      -progress_interval 0 -contact_recheck_around "$around"
    check "$np rank(s), -contact_recheck_around $around (exit 0)" [ "$RC" -eq 0 ]
  done
done
"$PY" - <<'PY' && pass "the same trajectories bit for bit with and without the restriction, on 1 and 2 ranks, and across ranks" || fail "the restricted search changed the trajectory"
import h5py, numpy as np
runs = {(n, k): h5py.File(f'out_{n}_{k}.h5', 'r') for n in (1, 2) for k in (1, 0)}
names = ('frames/position', 'frames/velocity', 'frames/orientation', 'stats/iterations', 'stats/resolves', 'stats/n_contacts')
ok = True
for x, y in (((1, 1), (1, 0)), ((2, 1), (2, 0)), ((1, 1), (2, 1))):
    for name in names:  # NaN: a body gone through the outflow
        same = np.array_equal(runs[x][name][()], runs[y][name][()], equal_nan=True)
        ok &= same
        if not same: print(f'    {name} differs between {x} and {y} (ranks, restricted)')
a = runs[(1, 1)]
print(f'    {a["stats/resolves"][()].sum()} solves added, {a["frames/position"].shape[0]} frames, '
      f'{int(a["stats/n_bodies"][()][-1])} bodies left')
raise SystemExit(0 if ok else 1)
PY
for np in 1 2; do
  read -r around_r whole_r <<< "$(sed -n 's/.*post-solve contact search *\([0-9]*\) around.*, \([0-9]*\) of the whole.*/\1 \2/p' run_${np}_1.out)"
  read -r around_w whole_w <<< "$(sed -n 's/.*post-solve contact search *\([0-9]*\) around.*, \([0-9]*\) of the whole.*/\1 \2/p' run_${np}_0.out)"
  echo "    $np rank(s): restricted ${around_r:-?} around + ${whole_r:-?} whole; unrestricted ${around_w:-?} around + ${whole_w:-?} whole"
  check "$np rank(s): searches around fast bodies, fewer whole searches, but some" \
    [ "${around_r:-0}" -gt 0 -a "${around_w:-1}" -eq 0 -a "${whole_r:-0}" -gt 0 -a "${whole_r:-0}" -lt "${whole_w:-0}" ]
done
finish
