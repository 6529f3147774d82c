#!/usr/bin/env bash
# Every solver on a distributed scene: canal, sap, nsn and pgs give the same trajectory on 1, 2 and
# 4 ranks. Each rank collides, assembles and integrates only its own bodies.
#  - canal, sap and nsn work on each rank's part (SG_SOLVER_LOCAL): its owned subsystems, ghosts
#    and the constraints touching them, with global reductions; pgs gets the whole problem through
#    the stepper's gather adapter, in the one-rank order. Checked: the stepper's "gather" phase
#    (/timing/table, per rank) is 0 on every rank for canal, sap and nsn and > 0 for pgs, i.e. the
#    Newton solvers' problems are never gathered.
#  - canal, sap, nsn: the same up to their linear-solver tolerance. Sums over ranks and the
#    preconditioner on P blocks (block Jacobi; nsn's Jacobi is the same on any P, its Krylov
#    inner products are not) reach a slightly different point of the KSP's tolerance ball.
#    -solver_tol 1e-8 (sap 1e-10, see below). Bound: positions within 1e-8 m (1e-6 of the radius), velocities within
#    1e-5 m/s (1e-5 of the impact speeds of about 1 m/s; the angular part as the speed it gives the
#    body's surface, omega times its radius), every step converged.
#  - pgs: bit for bit (the same sweeps over the same problem on every rank).
# A pile of SG_PILE_N spheres (default 40) with friction SG_PILE_MU (default 0.3) for SG_T_FINAL s
# (default 0.25): impacts, sliding, many contacts changing. Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC, SG_SOLVERS (default
# "canal sap nsn pgs").
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
n_bodies=${SG_PILE_N:-40}; t_final=${SG_T_FINAL:-0.25}; mu=${SG_PILE_MU:-0.3}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
"$bin" generate pile -n "$n_bodies" -mu "$mu" -o pile.h5 > /dev/null || { echo "FAIL generate"; exit 1; }
for solver in ${SG_SOLVERS:-canal sap nsn pgs}; do
  # sap: 1e-10, its Newton steps reach it in one or two more iterations; a 200-sphere pile amplifies a
  # difference about twofold every 4 steps, so 1e-8 left its 2-rank run at 2.2e-8 m after 60 steps
  tol=1e-8; [ $solver = pgs ] && tol=1e-6; [ $solver = sap ] && tol=1e-10
  for n in 1 2 4; do
    $mpiexec -n $n "$bin" run pile.h5 -o "${solver}_$n.h5" -t_final "$t_final" -solver $solver -solver_tol $tol \
      -solver_max_it 500 -progress_interval 0 > "${solver}_$n.log" 2>&1 \
      || { echo "FAIL $solver on $n ranks"; tail -3 "${solver}_$n.log"; fail=1; continue 2; }
  done
  /usr/bin/python3 - "$solver" <<'PY' || fail=1
import sys, h5py, numpy as np
s = sys.argv[1]
a = h5py.File(s + '_1.h5', 'r')
scene = h5py.File('pile.h5', 'r')
shape, size = scene['bodies/shape'][()], scene['bodies/size'][()]
radius = np.where(shape == 0, size[:, 0], np.linalg.norm(size, axis=1))  # sphere: r; else a bound
bad = 0
for n in (2, 4):
    b = h5py.File('%s_%d.h5' % (s, n), 'r')
    dp = np.abs(a['frames/position'][()] - b['frames/position'][()]).max()
    # a velocity in m/s: the linear part, and the angular part as the speed it gives the body's surface
    dvel = np.abs(a['frames/velocity'][()] - b['frames/velocity'][()])
    dv = max(dvel[:, :, :3].max(), (dvel[:, :, 3:].max(axis=2) * radius[None, :]).max())
    converged = bool(b['stats/converged'][()].min())
    if s == 'pgs':
        ok = dp == 0 and dv == 0 and np.array_equal(a['stats/iterations'][()], b['stats/iterations'][()])
    else:
        ok = dp <= 1e-8 and dv <= 1e-5 and converged
    bad |= not ok
    print('%s %-5s -n %d vs -n 1: max |dx| %.2e m, max |dv| %.2e m/s, every step converged: %s'
          % ('ok  ' if ok else 'FAIL', s, n, dp, dv, converged))
    t = b['timing/table']
    cols = t.attrs['columns']
    cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(',')
    gather = t[()][:, cols.index('gather')]
    local = s in ('canal', 'sap', 'nsn')
    ok = bool((gather == 0).all()) if local else bool((gather > 0).all())
    bad |= not ok
    print('%s %-5s -n %d: gather phase per rank %s s (%s)'
          % ('ok  ' if ok else 'FAIL', s, n, ' '.join('%.3g' % g for g in gather),
             'its own part, never gathered' if local else 'the whole problem gathered'))
sys.exit(1 if bad else 0)
PY
done
[ $fail = 0 ] && { echo "all solver rank checks passed"; rm -rf "$dir"; }
exit $fail
