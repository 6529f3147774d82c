#!/usr/bin/env bash
# The contact search's kept pairs (-contact_skin, src/collision/broadphase.c): while no body has moved
# and swept skin / 2 since the pairs within margin + skin were listed, the search tests only those.
# A pile of 400 spheres poured and settling for 0.6 s (moving at first: whole searches; then at rest:
# the kept pairs), on 1 and 2 ranks, with the default skin and with -contact_skin 0:
#  - the same trajectories bit for bit with and without the kept pairs, on 1 and 2 ranks;
#  - the runs with a skin answered some searches from kept pairs and made lists more than once.
# (The pairs themselves, call by call on random moving scenes: unit/test_kept_pairs.)
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"

sg_run gen "$SG" generate pile -n 400 -o pile.h5
check "generate a pile of 400 spheres" [ "$RC" -eq 0 ]
for np in 1 2; do
  for skin in default 0; do
    extra=()
    [ "$skin" = 0 ] && extra=(-contact_skin 0)
    sg_run "run_${np}_$skin" $MPIEXEC -n "$np" "$SG" run pile.h5 -o "out_${np}_$skin.h5" -t_final 0.6 -progress_interval 0 "${extra[@]}"
    check "$np rank(s), skin $skin (exit 0)" [ "$RC" -eq 0 ]
  done
  read -r calls listed lists <<< "$(sed -n 's/.*contact searches *\([0-9]*\), \([0-9]*\) from the kept pairs (\([0-9]*\) lists made).*/\1 \2 \3/p' run_${np}_default.out)"
  echo "    $np rank(s): ${calls:-?} searches, ${listed:-?} from the kept pairs, ${lists:-?} lists made"
  check "$np rank(s): some searches from the kept pairs, lists made more than once, some whole searches" \
    [ "${listed:-0}" -gt 0 -a "${lists:-0}" -gt 1 -a "${listed:-0}" -lt "${calls:-0}" ]
done
"$PY" - <<'PY' && pass "the same trajectories bit for bit with and without the kept pairs, on 1 and 2 ranks" || fail "the kept pairs changed the trajectory"
import h5py, numpy as np
names = ('frames/position', 'frames/velocity', 'frames/orientation', 'stats/iterations', 'stats/n_contacts', 'stats/resolves')
ok = True
for n in (1, 2):
    a, b = (h5py.File(f'out_{n}_{k}.h5', 'r') for k in ('default', '0'))
    for name in names:
        same = np.array_equal(a[name][()], b[name][()], equal_nan=True)
        ok &= same
        if not same: print(f'    {n} rank(s): {name} differs')
raise SystemExit(0 if ok else 1)
PY
finish
