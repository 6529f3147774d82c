#!/usr/bin/env bash
# `signorini run -fclib_dump_step K` writes step K's problem as an FCLIB global problem that the
# fclib command solves again: a 30-sphere pile, step 60 (1-based, as in the run's "in step K"
# messages) dumped; the file has the FCLIB layout with as many contacts as /stats/n_contacts of that
# step; pgs and subadmm solve it from a cold start to nat + dyn below 1e-6 (exit 0); the dump of the
# same step on 2 ranks is the same file content; a step outside the run is refused before the run.
# Arguments: signorini binary, scratch dir.
source "$(dirname "$0")/cli_lib.sh" "$@"

section "dump step 60 of a small pile"
"$SG" generate pile -n 30 -o pile.h5 > /dev/null || { fail "generate pile"; finish; }
sg_run run1 "$SG" run pile.h5 -o out.h5 -t_final 0.25 -fclib_dump_step 60
check "run exits 0" [ "$RC" -eq 0 ]
check "default name out-step60.fclib.hdf5, announced" grep -q "step 60 written to out-step60.fclib.hdf5" run1.out
check "no temporary file left" [ -z "$(ls | grep '\.tmp\.')" ]
"$PY" - <<'PY' && pass "FCLIB layout, contacts = /stats/n_contacts of step 60" || fail "FCLIB layout"
import h5py, numpy as np
d = h5py.File('out-step60.fclib.hdf5', 'r')['fclib_global']
nc = h5py.File('out.h5', 'r')['stats/n_contacts'][59]
n = int(d['M/n'][0]); m = int(d['H/n'][0])
assert int(d['spacedim'][0]) == 3
assert int(d['M/m'][0]) == n and int(d['H/m'][0]) == n and m == 3 * nc, (n, m, nc)
assert d['vectors/mu'].shape == (nc,) and d['vectors/w'].shape == (m,) and d['vectors/f'].shape == (n,)
assert int(d['M/nz'][0]) == -1 and int(d['H/nz'][0]) == -1
assert n == 6 * 30, n  # 30 spheres, 6 unknowns each (walls are fixed)
PY

section "solve it again"
for s in pgs subadmm; do
  sg_run "fclib_$s" "$SG" fclib out-step60.fclib.hdf5 -solver "$s" -solver_tol 1e-10 -solver_max_it 200000
  res=$(awk '/^  nat \+ dyn/ {print $4}' "fclib_$s.out")
  check "$s: exit 0" [ "$RC" -eq 0 ]
  check "$s: nat + dyn = $res < 1e-6" "$PY" -c "import sys; sys.exit(0 if float('$res') < 1e-6 else 1)"
done

section "same dump on 2 ranks, to a chosen file"
sg_run run2 $MPIEXEC -n 2 "$SG" run pile.h5 -o out2.h5 -t_final 0.25 -fclib_dump_step 60 -fclib_dump_file two.hdf5
check "2 ranks: exit 0" [ "$RC" -eq 0 ]
"$PY" - <<'PY' && pass "2-rank dump equals the 1-rank dump" || fail "2-rank dump differs"
import h5py, numpy as np
a = h5py.File('out-step60.fclib.hdf5', 'r')['fclib_global']; b = h5py.File('two.hdf5', 'r')['fclib_global']
names = []
a.visit(lambda k: names.append(k) if isinstance(a[k], h5py.Dataset) and not k.startswith('info') else None)
for k in names:
    assert np.array_equal(a[k][()], b[k][()]), k
PY

section "refusals"
sg_run bad "$SG" run pile.h5 -o out3.h5 -t_final 0.25 -fclib_dump_step 61
check "step 61 of a 60-step run: exit 1" [ "$RC" -eq 1 ]
check "  one error line naming the option" grep -q "^signorini: error: -fclib_dump_step 61 is not a step of this run (steps 1 to 60)" bad.err
check "  no output written" [ ! -e out3.h5 ]
sg_run same "$SG" run pile.h5 -o out4.h5 -t_final 0.25 -fclib_dump_step 5 -fclib_dump_file pile.h5
check "dump over the scene: exit 1" [ "$RC" -eq 1 ]
sg_run nodir "$SG" run pile.h5 -o out5.h5 -t_final 0.25 -fclib_dump_step 5 -fclib_dump_file /nonexistent_dir/p.hdf5
check "dump into a missing directory: exit 1" [ "$RC" -eq 1 ]
check "  refused before the run: one error line naming the directory" \
  grep -q "^signorini: error: cannot write /nonexistent_dir/p.hdf5: directory /nonexistent_dir does not exist$" nodir.err
check "  no step run, no output written" test ! -e out5.h5 -a ! -e out5.h5.partial -a ! -e out5.xmf
finish
