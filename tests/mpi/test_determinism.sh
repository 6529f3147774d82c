#!/usr/bin/env bash
# Same trajectory, bit for bit, on 1, 2, 3 and 4 ranks: the 10-box stack (1 s); a 300-sphere cylindrical silo
# with rolling resistance
# whose gate (a kinematic disk) slides open at 0.3 s, with an outflow below the orifice and an inflow
# on top (frames, deletion and insertion records, statistics), also restarted on 3 ranks from a
# checkpoint written on 2 in the middle of the discharge; a chute periodic along x and y, with its
# stress moments (-output_stress); the stack and the silo with the contact residual stopping test
# (-subadmm_contact_tol); the silo over-relaxed (-subadmm_relax 1.6) on 1 and 3 ranks; the silo with
# owners from the Hilbert curve (-partition_method sfc) on 3 ranks; with SG_PILE=1 the 1,000-sphere pile (1 s).
# Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC.
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
compare() { # compare <a.h5> <b.h5>: bitwise (NaN rows of absent bodies included)
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail=1
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
names = ['frames/position', 'frames/orientation', 'frames/velocity', 'stats/iterations', 'stats/contact_residual']
names += [k for k in ('frames/present', 'frames/stress', 'stats/n_bodies', 'stats/mass_deleted', 'stats/mass_inserted',
                      'deleted/gid', 'deleted/time', 'deleted/position', 'deleted/velocity', 'deleted/mass',
                      'inserted/gid', 'inserted/position', 'inserted/size') if k in a]
bad = [k for k in names if k not in b or a[k][()].tobytes() != b[k][()].tobytes()]
print(('FAIL ' if bad else 'ok   ') + sys.argv[2] + ' vs ' + sys.argv[1] + (': differs in ' + ', '.join(bad) if bad else ': bitwise identical'))
sys.exit(1 if bad else 0)
PY
}
run_case() { # run_case <name> <generate args...>
  name=$1; shift
  "$bin" generate "$@" -o "$name.h5" > /dev/null || { echo "FAIL generate $name"; fail=1; return; }
  for n in 1 2 3 4; do
    # shellcheck disable=SC2086
    $mpiexec -n $n "$bin" run "$name.h5" -o "${name}_$n.h5" -t_final 1 -progress_interval 0 ${RUN_EXTRA:-} > "${name}_$n.log" 2>&1 \
      || { echo "FAIL run $name on $n ranks"; cat "${name}_$n.log"; fail=1; return; }
  done
  compare "${name}_1.h5" "${name}_2.h5"
  compare "${name}_1.h5" "${name}_3.h5"
  compare "${name}_1.h5" "${name}_4.h5"
}
run_case stack stack -n 10
# Anderson acceleration (its least-squares sums are reproducible): the same on 1 and 3 ranks
for n in 1 3; do
  $mpiexec -n $n "$bin" run stack.h5 -o "anderson_$n.h5" -t_final 0.5 -subadmm_anderson 4 -progress_interval 0 > "anderson_$n.log" 2>&1 \
    || { echo "FAIL run -subadmm_anderson 4 on $n ranks"; cat "anderson_$n.log"; fail=1; }
done
compare anderson_1.h5 anderson_3.h5
# residual checks every 4 iterations: the same on 1 and 3 ranks, and every step stops at a check
for n in 1 3; do
  $mpiexec -n $n "$bin" run stack.h5 -o "check_$n.h5" -t_final 0.5 -subadmm_check_every 4 -progress_interval 0 > "check_$n.log" 2>&1 \
    || { echo "FAIL run -subadmm_check_every 4 on $n ranks"; cat "check_$n.log"; fail=1; }
done
compare check_1.h5 check_3.h5
/usr/bin/python3 -c "
import sys, h5py, numpy as np
it = h5py.File('check_1.h5', 'r')['stats/iterations'][()]
ok = bool(np.all(it % 4 == 0))
print(('ok   ' if ok else 'FAIL ') + '-subadmm_check_every 4: iterations per step are multiples of 4 (%s)' % sorted(set(it.tolist()))[:5])
sys.exit(0 if ok else 1)" || fail=1
# the contact residual test (-subadmm_contact_tol, evaluated every 3 iterations): the same stops on 1, 2, 3
# and 4 ranks, and it does stop solves (fewer iterations than the same steps of the plain run)
for n in 1 2 3 4; do
  $mpiexec -n $n "$bin" run stack.h5 -o "ctol_$n.h5" -t_final 0.5 -subadmm_contact_tol 1e-5 -subadmm_contact_every 3 \
    -progress_interval 0 > "ctol_$n.log" 2>&1 || { echo "FAIL run -subadmm_contact_tol on $n ranks"; cat "ctol_$n.log"; fail=1; }
done
for n in 2 3 4; do compare ctol_1.h5 "ctol_$n.h5"; done
/usr/bin/python3 -c "
import sys, h5py
a = h5py.File('ctol_1.h5', 'r')['stats/iterations'][()]
b = h5py.File('stack_1.h5', 'r')['stats/iterations'][:len(a)]
ok = bool(a.sum() < b.sum())
print(('ok   ' if ok else 'FAIL ') + '-subadmm_contact_tol 1e-5: %d iterations in %d steps, %d without it' % (a.sum(), len(a), b.sum()))
sys.exit(0 if ok else 1)" || fail=1
run_case silo_flow silo -n 300 -radius 0.005 -gate_open 0.3 -outflow_depth 0.1 -inflow_rate 100 -rolling_friction 0.1
# owners from the Hilbert curve (-partition_method sfc), repartitioned every 30 steps while bodies
# leave and enter: the same bits as one rank
for n in 3; do
  $mpiexec -n $n "$bin" run silo_flow.h5 -o "sfc_$n.h5" -t_final 1 -partition_method sfc -repartition_every 30 -progress_interval 0 \
    > "sfc_$n.log" 2>&1 || { echo "FAIL run -partition_method sfc on $n ranks"; cat "sfc_$n.log"; fail=1; }
  grep -Eq "repartitions +[1-9][0-9]* \(Hilbert curve\)" "sfc_$n.log" \
    && echo "ok   sfc_$n: $(grep -E '^ *repartitions' "sfc_$n.log" | sed 's/^ *//')" \
    || { echo "FAIL sfc_$n: no repartition by the Hilbert curve"; fail=1; }
  compare silo_flow_1.h5 "sfc_$n.h5"
done
# the contact residual test on a flow whose contacts cross rank boundaries: the same on 1 and 3 ranks
for n in 1 3; do
  $mpiexec -n $n "$bin" run silo_flow.h5 -o "silo_ctol_$n.h5" -t_final 0.5 -subadmm_contact_tol 3e-4 -subadmm_contact_every 2 \
    -progress_interval 0 > "silo_ctol_$n.log" 2>&1 || { echo "FAIL silo -subadmm_contact_tol on $n ranks"; cat "silo_ctol_$n.log"; fail=1; }
done
compare silo_ctol_1.h5 silo_ctol_3.h5
# over-relaxed (-subadmm_relax 1.6: rebuilt sums, world-axis slacks of compact contacts, boundary pairs
# sending their world velocities): the same on 1 and 3 ranks
for n in 1 3; do
  $mpiexec -n $n "$bin" run silo_flow.h5 -o "silo_relax_$n.h5" -t_final 0.5 -subadmm_relax 1.6 -progress_interval 0 \
    > "silo_relax_$n.log" 2>&1 || { echo "FAIL silo -subadmm_relax 1.6 on $n ranks"; cat "silo_relax_$n.log"; fail=1; }
done
compare silo_relax_1.h5 silo_relax_3.h5
# a checkpoint at 0.5 s written on 2 ranks, continued on 3: the last frame bit for bit the straight run's
$mpiexec -n 2 "$bin" run silo_flow.h5 -o half_2.h5 -t_final 0.5 -checkpoint_every 60 -progress_interval 0 > half_2.log 2>&1 \
  || { echo "FAIL run to the checkpoint"; cat half_2.log; fail=1; }
$mpiexec -n 3 "$bin" run silo_flow.h5 -o rest_3.h5 -t_final 1 -restart half_2.ckpt.h5 -progress_interval 0 > rest_3.log 2>&1 \
  || { echo "FAIL restart on 3 ranks"; cat rest_3.log; fail=1; }
/usr/bin/python3 - <<'PY' || fail=1
import sys, h5py, numpy as np
a, b = h5py.File('silo_flow_1.h5', 'r'), h5py.File('rest_3.h5', 'r')
same = lambda x, y: x.shape == y.shape and x.tobytes() == y.tobytes()
bad = [k for k in ('frames/position', 'frames/orientation', 'frames/velocity', 'frames/present')
       if not same(a[k][-1], b[k][-1])]
bad += [] if same(a['stats/iterations'][120:], b['stats/iterations'][()]) else ['stats/iterations']
bad += [] if same(a['stats/n_bodies'][120:], b['stats/n_bodies'][()]) else ['stats/n_bodies']
for g, fields in (('deleted', ('gid', 'time', 'position', 'mass')), ('inserted', ('gid', 'time', 'position'))):
    later = a[g + '/time'][()] > 0.5
    bad += [g + '/' + k for k in fields if not same(a[g + '/' + k][()][later], b[g + '/' + k][()])]
print(('FAIL ' if bad else 'ok   ') + 'silo with a gate, inflow and outflow, 2 ranks to 0.5 s, restarted on 3 to 1 s vs 1 rank straight' +
      (': differs in ' + ', '.join(bad) if bad else ': bitwise identical'))
sys.exit(1 if bad else 0)
PY
# periodic along x and y: a chute whose flow crosses both boundaries, rank boundaries among them
RUN_EXTRA=-output_stress run_case chute chute -length 0.024 -width 0.016 -height 0.012
# and restarted on 3 ranks from a checkpoint written on 2 (the cell comes back from the checkpoint)
$mpiexec -n 2 "$bin" run chute.h5 -o chute_half.h5 -t_final 0.5 -checkpoint_every 60 -progress_interval 0 > chute_half.log 2>&1 \
  && $mpiexec -n 3 "$bin" run chute.h5 -o chute_rest.h5 -t_final 1 -restart chute_half.ckpt.h5 -progress_interval 0 > chute_rest.log 2>&1 \
  || { echo "FAIL chute checkpoint and restart"; cat chute_half.log chute_rest.log; fail=1; }
/usr/bin/python3 - <<'PY' || fail=1
import sys, h5py
a, b = h5py.File('chute_1.h5', 'r'), h5py.File('chute_rest.h5', 'r')
bad = [k for k in ('frames/position', 'frames/orientation', 'frames/velocity') if a[k][-1].tobytes() != b[k][-1].tobytes()]
print(('FAIL ' if bad else 'ok   ') + 'periodic chute, 2 ranks to 0.5 s, restarted on 3 to 1 s vs 1 rank straight' +
      (': differs in ' + ', '.join(bad) if bad else ': bitwise identical'))
sys.exit(1 if bad else 0)
PY
if [ "${SG_PILE:-0}" = 1 ]; then run_case pile pile -n 1000; fi
[ $fail = 0 ] && { echo "all determinism checks passed"; rm -rf "$dir"; }
exit $fail
