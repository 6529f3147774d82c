#!/usr/bin/env bash
# More ranks than moving bodies (issue 17 item 1): a box on an incline (one moving body) with every
# distributed solver on 1, 2, 3 and 4 ranks. Before, CANAL and SAP hung (CHOLMOD refused the empty
# rank's 0 x 0 block and the other ranks waited), NSN crashed on the empty rank, and every solver
# failed to write on 3 ranks (row 0 sent to an empty block). Each run must finish, and give the
# 1-rank trajectory: bit for bit with SubADMM, to 1e-9 m (the solver tolerance's scale) with the
# Newton variants, whose reductions may round differently.
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/cli_lib.sh" "$@"

sg_run gen "$SG" generate incline -o incline.h5
check "generate incline" [ "$RC" -eq 0 ]
for solver in subadmm canal sap nsn; do
  section "$solver"
  for np in 1 2 3 4; do
    sg_run "${solver}_$np" $MPIEXEC -n "$np" "$SG" run incline.h5 -o "${solver}_$np.h5" -t_final 0.1 -solver "$solver" \
      -solver_tol 1e-10 -progress_interval 0
    check "$solver on $np rank(s): finishes (exit 0)" [ "$RC" -eq 0 ]
  done
  "$PY" - "$solver" <<'PY' && pass "$solver: the same trajectory on 2, 3 and 4 ranks as on 1" || fail "$solver: trajectories differ across ranks"
import sys, h5py, numpy as np
solver = sys.argv[1]
ref = h5py.File(f'{solver}_1.h5', 'r')['frames/position'][()]
worst = max(float(np.nanmax(np.abs(h5py.File(f'{solver}_{n}.h5', 'r')['frames/position'][()] - ref))) for n in (2, 3, 4))
print(f'    largest position difference from 1 rank: {worst:.3e} m')
raise SystemExit(0 if (worst == 0 if solver == 'subadmm' else worst <= 1e-9) else 1)
PY
done
finish
