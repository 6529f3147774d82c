#!/usr/bin/env bash
# Bodies that enter and leave (inflow and outflow regions), on 2 ranks:
#  1. mass balance over a silo discharge with an outflow below the orifice and an inflow on top:
#     initial + inserted mass = remaining + deleted mass exactly (the same doubles, summed exactly),
#     every id that left is recorded once, ids never reused, and the per-step statistics agree;
#  2. an inflow at 120 bodies/s for 1 s into an empty bin: 120 bodies, none overlapping another body
#     at its insertion (gap >= 0, checked against the frame of that instant);
#  3. an inflow asked for more than its box holds: it reports being full, bodies wait, none overlap;
#  4. an outflow that deletes every moving body in the first step, with each solver: the ranks left
#     without moving bodies go on (walls only) to the end of the run.
# Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC.
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
run() { # run <log> <ranks> <args...>
  log=$1; n=$2; shift 2
  $mpiexec -n "$n" "$bin" "$@" -progress_interval 0 > "$log" 2>&1 || { echo "FAIL $* on $n ranks"; cat "$log"; fail=1; }
}

"$bin" generate silo -n 300 -radius 0.005 -gate_open 0.2 -outflow_depth 0.1 -inflow_rate 150 -o flow.h5 > /dev/null || fail=1
run flow.log 2 run flow.h5 -o flow_out.h5 -t_final 1
/usr/bin/python3 - <<'PY' || fail=1
import sys, math, h5py, numpy as np
f = h5py.File('flow_out.h5', 'r')
sc = f['scene/bodies']
moving = sc['fixed'][()] == 0
r0, rho0 = sc['size'][()][moving, 0], sc['density'][()][moving]
m0 = [rho * 4.0 / 3.0 * math.pi * r * r * r for r, rho in zip(r0, rho0)]   # sg_body_update_mass's expression
ids0 = np.arange(len(moving))[moving]
ins, dele = f['inserted'], f['deleted']
last = f['frames/present'][-1].astype(bool)
n_ids = int(f['frames/n_ids'][-1])
# remaining masses by id: initial bodies from the scene, inserted ones from their records
mass_of = dict(zip(ids0.tolist(), m0)); mass_of.update(zip(ins['gid'][()].tolist(), ins['mass'][()].tolist()))
fixed_ids = set(np.arange(len(moving))[~moving].tolist())
remaining = [g for g in np.nonzero(last)[0].tolist() if g not in fixed_ids]
deleted = dele['gid'][()].tolist()
ok = True
def check(c, msg):
    global ok
    print(('ok   ' if c else 'FAIL ') + msg); ok &= bool(c)
check(len(deleted) > 0 and len(ins['gid']) > 0, f'bodies left ({len(deleted)}) and entered ({len(ins["gid"])})')
check(len(set(deleted)) == len(deleted), 'no id deleted twice')
check(not set(deleted) & set(remaining), 'no deleted id in the last frame')
check(set(deleted) | set(remaining) == set(mass_of), 'every id is either in the last frame or in /deleted')
check(len(set(ins['gid'][()].tolist()) & set(ids0.tolist())) == 0 and min(ins['gid'][()]) >= len(moving),
      'inserted ids are new (never reused)')
lhs = math.fsum(list(m0) + ins['mass'][()].tolist())   # one exact sum of each side's masses
rhs = math.fsum([mass_of[g] for g in remaining] + dele['mass'][()].tolist())
check(lhs == rhs, f'initial + inserted mass {lhs!r} == remaining + deleted mass {rhs!r} (exactly)')
check(np.array_equal(np.sort(dele['mass'][()]), np.sort([mass_of[g] for g in deleted])),
      'each deletion records the mass of the body that left')
st = f['stats']
check(abs(math.fsum(st['mass_deleted'][()]) - math.fsum(dele['mass'][()])) <= 1e-12 * lhs,
      'the per-step deleted mass sums to the records')
check(int(st['deleted'][()].sum()) == len(deleted) and int(st['inserted'][()].sum()) == len(ins['gid']),
      'per-step counts sum to the records')
check(int(st['n_bodies'][-1]) == len(remaining), f'stats/n_bodies at the end ({int(st["n_bodies"][-1])}) = bodies in the last frame')
z = dele['position'][()][:, 2]
check(bool(np.all(z < -0.1)), 'every deleted body had its centre in the outflow zone (z < -0.1)')
sys.exit(0 if ok else 1)
PY

"$bin" generate silo -n 0 -radius 0.005 -inflow_rate 120 -o fill.h5 > /dev/null || fail=1
run fill.log 2 run fill.h5 -o fill_out.h5 -t_final 1 -output_every 1
"$bin" generate silo -n 0 -radius 0.005 -inflow_rate 100000 -o full.h5 > /dev/null || fail=1
run full.log 2 run full.h5 -o full_out.h5 -t_final 0.05 -output_every 1
grep -q "inflow region 0 is full" full.log || { echo "FAIL the full inflow region did not report it"; cat full.log; fail=1; }
/usr/bin/python3 - <<'PY' || fail=1
import sys, h5py, numpy as np
ok = True
def check(c, msg):
    global ok
    print(('ok   ' if c else 'FAIL ') + msg); ok &= bool(c)
def least_gap(path):
    """Smallest gap between an inserted sphere and any sphere present at its insertion (the frame
    of that instant: insertions happen at the start of a step, after the previous step's frame)."""
    f = h5py.File(path, 'r')
    t, pos, pres = f['frames/time'][()], f['frames/position'], f['frames/present']
    sc = f['scene/bodies']
    rad = dict(enumerate(sc['size'][()][:, 0].tolist()))
    ins = f['inserted']
    rad.update(zip(ins['gid'][()].tolist(), ins['size'][()][:, 0].tolist()))
    moving = set(np.nonzero(sc['fixed'][()] == 0)[0].tolist()) | set(ins['gid'][()].tolist())
    least = np.inf
    for when in np.unique(ins['time'][()]):
        k = int(np.argmin(np.abs(t - when)))
        assert abs(t[k] - when) < 1e-12, (t[k], when)
        here = [g for g in np.nonzero(pres[k])[0].tolist() if g in moving]
        new = np.nonzero(ins['time'][()] == when)[0]
        xs = np.array([pos[k][g] for g in here] + [ins['position'][j] for j in new]).reshape(-1, 3)
        rs = np.array([rad[g] for g in here] + [ins['size'][j][0] for j in new])
        for a in range(len(here), len(xs)):
            d = np.linalg.norm(xs - xs[a], axis=1) - rs - rs[a]
            d[a] = np.inf
            least = min(least, d.min())
    return least, len(ins['gid'])
gap, n = least_gap('fill_out.h5')
check(n == 120, f'120 bodies/s for 1 s inserted {n} bodies')
check(gap >= 0, f'no inserted body overlapped another at its insertion (least gap {gap:.3e} m)')
gap, n = least_gap('full_out.h5')
w = h5py.File('full_out.h5', 'r')['stats/inflow_waiting'][()]
check(n < 100000 * 0.05 and w[-1] > 0, f'a full region inserted {n} of {int(100000 * 0.05)} due, {int(w[-1])} wait at the end')
check(gap >= 0, f'no body inserted into the full region overlapped another (least gap {gap:.3e} m)')
sys.exit(0 if ok else 1)
PY

# every moving body deleted in step 1: ranks without moving bodies go on
"$bin" generate pile -n 8 -o pile.h5 > /dev/null || fail=1
/usr/bin/python3 - <<'PY' || fail=1
import h5py, numpy as np
with h5py.File('pile.h5', 'r+') as f:
    rows = dict(kind=[0], zone=[2], box=[[0.0] * 6], plane=[[0, 0, -1e3, 0, 0, 1]], rate=[0.0], rate_unit=[0],
                radius=[[0.0, 0.0]], density=[0.0], material=[0], velocity=[[0.0] * 3], window=[[0.0, 0.0]], seed=[0])
    for k, v in rows.items():
        f['regions/' + k] = np.array(v, dtype=np.int32 if k in ('kind', 'zone', 'rate_unit', 'material') else
                                     np.int64 if k == 'seed' else float)
PY
for solver in subadmm canal sap nsn pgs; do
  run "empty_$solver.log" 2 run pile.h5 -o "empty_$solver.h5" -t_final 0.05 -solver $solver
  /usr/bin/python3 -c "
import sys, h5py
f = h5py.File('empty_$solver.h5', 'r'); n = f['stats/n_bodies'][()]
ok = n[0] == 0 and n[-1] == 0 and len(f['deleted/gid']) == 8 and f.attrs['complete'] == 1
print(('ok   ' if ok else 'FAIL ') + '$solver: every body deleted in step 1, the run goes on to the end with no moving body')
sys.exit(0 if ok else 1)" || fail=1
done
[ $fail = 0 ] && { echo "all flow checks passed"; rm -rf "$dir"; }
exit $fail
