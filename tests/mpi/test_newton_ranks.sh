#!/usr/bin/env bash
# The Newton variants (canal, sap, nsn) give the same trajectory on 1, 2 and 4 ranks up to their
# linear-solver tolerance: a 40-sphere pile for 0.25 s (impacts, sliding, many contacts changing),
# -solver_tol 1e-8. Their nonlinear work is replicated in a fixed order; only the KSP is distributed,
# and block Jacobi on P blocks converges to a slightly different point of the KSP's tolerance ball.
# Bound: positions within 1e-8 m (1e-6 of the radius), velocities within 1e-5 m/s (1e-5 of the
# impact speeds of about 1 m/s); measured when written: canal 8e-15 m / 1.2e-10 m/s, sap 1.1e-10 m /
# 4.7e-7 m/s (its KSP keeps PETSc's rtol 1e-5), nsn 4e-16 m / 1e-11 m/s.
# Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC.
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
"$bin" generate pile -n 40 -o pile.h5 > /dev/null || { echo "FAIL generate"; exit 1; }
for solver in canal sap nsn; do
  for n in 1 2 4; do
    $mpiexec -n $n "$bin" run pile.h5 -o "${solver}_$n.h5" -t_final 0.25 -solver $solver -solver_tol 1e-8 \
      -solver_max_it 500 -progress_interval 0 > "${solver}_$n.log" 2>&1 \
      || { echo "FAIL $solver on $n ranks"; tail -3 "${solver}_$n.log"; fail=1; continue 2; }
  done
  /usr/bin/python3 - "$solver" <<'PY' || fail=1
import sys, h5py, numpy as np
s = sys.argv[1]
a = h5py.File(s + '_1.h5', 'r')
bad = 0
for n in (2, 4):
    b = h5py.File('%s_%d.h5' % (s, n), 'r')
    dp = np.abs(a['frames/position'][()] - b['frames/position'][()]).max()
    dv = np.abs(a['frames/velocity'][()] - b['frames/velocity'][()]).max()
    ok = dp <= 1e-8 and dv <= 1e-5 and b['stats/converged'][()].min() == 1
    bad |= not ok
    print('%s %-5s -n %d vs -n 1: max |dx| %.2e m, max |dv| %.2e m/s, every step converged: %s'
          % ('ok  ' if ok else 'FAIL', s, n, dp, dv, bool(b['stats/converged'][()].min())))
sys.exit(1 if bad else 0)
PY
done
[ $fail = 0 ] && { echo "all Newton rank checks passed"; rm -rf "$dir"; }
exit $fail
