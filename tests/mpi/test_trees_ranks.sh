#!/usr/bin/env bash
# Kinematic trees (docs/FORMATS.md, "Trees") among rigid bodies: a scene written with h5py holds a
# ground plane, 48 spheres falling onto it and 7 trees (revolute and spherical pendulums, a
# prismatic joint, a free-floating base with a revolute child, a branching tree with a fixed joint, a
# 3-link chain whose capsule geoms swing through the spheres onto the plane; joint limits and PD
# control on some revolute joints; link geoms on three trees), each a row of /bodies. Its run is the same bits on 1, 2, 3 and 4 ranks (the trees spread over the
# ranks, their state brought from their owners each step), and a restart on 3 ranks from a
# checkpoint written on 2 continues it bit for bit; a checkpoint whose tree state or model was
# altered, and a scene file whose tree model changed, are refused by the fingerprints. Then scenes with a bad tree are refused with one
# line each: a parent that is not an earlier link (a missing parent, a cycle), an unknown joint
# type, an axis that is not a unit vector, a tree naming a fixed body or no body, a non-finite mass,
# a limit with lower > upper, a non-finite gain, limits on a spherical joint, a geom on a link the
# tree lacks, a geom of a shape a link cannot carry (a plane), a geom of negative size, a loop closure
# on a link the tree lacks, one joining a link to itself, one with a point that is not finite.
# The fifth tree's two branches are joined by a loop closure (bilateral rows), so that the
# comparisons above cover closures too.
# Arguments: signorini binary, scratch dir. Env: SG_MPIEXEC.
set -u
bin=$1; dir=$2; mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
/usr/bin/python3 - <<'PY' || exit 1
import h5py, numpy as np

def chain_links(types, pivot, length=0.3, parents=None):
    rows = []
    for k, t in enumerate(types):
        rows.append(dict(parent=(k - 1) if parents is None else parents[k], joint=t,
                         pos=pivot if k == 0 else [0.0, 0.0, -length], quat=[1.0, 0, 0, 0],
                         axis=[0.0, 1.0, 0.0] if t != 2 else [0.0, 0.0, 1.0], mass=0.5 + 0.1 * k,
                         com=[0.0, 0.0, -length], inertia=[2e-3, 2e-3, 1e-3, 0, 0, 0]))
    return rows

def write(path, mutate=None):
    rng = np.random.default_rng(3)
    shape, size, pos, vel, fixed = [3], [[0, 0, 0]], [[0, 0, 0]], [[0.0] * 6], [1]
    for i in range(48):  # a jittered lattice of spheres above the plane, among the trees
        x, y, z = (i % 4) * 0.25 - 0.4, (i // 4 % 4) * 0.25 - 0.4, 0.1 + (i // 16) * 0.12
        shape.append(0); size.append([0.05, 0, 0]); fixed.append(0); vel.append([0.0] * 6)
        pos.append([x + rng.uniform(-0.02, 0.02), y + rng.uniform(-0.02, 0.02), z])
    trees = [chain_links([1, 1], [1.5, 0.0, 2.0]), chain_links([3, 3], [-1.5, 0.0, 2.0]),
             chain_links([2, 1], [0.0, 1.5, 2.0]), chain_links([4, 1], [0.0, -1.5, 3.0]),
             chain_links([1, 0, 1, 1], [2.5, 2.5, 2.0], parents=[-1, 0, 1, 0]), chain_links([1], [-2.5, -2.5, 2.0]),
             chain_links([1, 1, 1], [0.0, 0.0, 0.8])]
    # link geoms (tree, link, shape, size, position): bobs of the first pendulum, a box and a sphere on
    # the free-floating tree, and a capsule along each rod of the last chain, which swings through
    # the spheres and would reach below the plane
    geoms = [(0, 0, 0, [0.05, 0, 0], [0, 0, -0.3]), (0, 1, 0, [0.05, 0, 0], [0, 0, -0.3]),
             (3, 0, 1, [0.1, 0.1, 0.05], [0, 0, -0.3]), (3, 1, 0, [0.06, 0, 0], [0, 0, -0.3])]
    geoms += [(6, k, 2, [0.04, 0.15, 0], [0, 0, -0.15]) for k in range(3)]
    gcols = dict(geom_count=np.array([sum(g[0] == t for g in geoms) for t in range(len(trees))], np.int32),
                 geom_link=np.array([g[1] for g in geoms], np.int32), geom_shape=np.array([g[2] for g in geoms], np.int32),
                 geom_size=np.array([g[3] for g in geoms], float), geom_position=np.array([g[4] for g in geoms], float),
                 geom_orientation=np.tile([1.0, 0, 0, 0], (len(geoms), 1)))
    body = []
    for t in trees:  # each tree's row: a moving sphere whose size sets its length scale
        body.append(len(shape)); shape.append(0); size.append([0.05, 0, 0]); fixed.append(0)
        pos.append(t[0]['pos']); vel.append([0.0] * 6)
    links = [l for t in trees for l in t]
    nq = {0: 0, 1: 1, 2: 1, 3: 4, 4: 7}
    q = []
    for t in trees:
        for k, l in enumerate(t):
            a = 0.6 if k == 0 else 0.3
            q += {0: [], 1: [a], 2: [0.1], 3: [np.cos(a / 2), 0, np.sin(a / 2), 0], 4: [0, 0, 0, 1, 0, 0, 0]}[l['joint']]
    v = []
    for t in trees:
        for l in t:
            v += {0: [], 1: [0.5], 2: [0.0], 3: [0.0, 0.3, 0.2], 4: [0.2, 0.0, 0.5, 0.0, 0.0, 1.0]}[l['joint']]
    cols = dict(body=np.array(body, np.int64), link_count=np.array([len(t) for t in trees], np.int32),
                parent=np.array([l['parent'] for l in links], np.int32), joint=np.array([l['joint'] for l in links], np.int32),
                joint_position=np.array([l['pos'] for l in links]), joint_orientation=np.array([l['quat'] for l in links]),
                axis=np.array([l['axis'] for l in links]), mass=np.array([l['mass'] for l in links]),
                com=np.array([l['com'] for l in links]), inertia=np.array([l['inertia'] for l in links]),
                q=np.array(q, float), v=np.array(v, float))
    limit = np.tile([-np.inf, np.inf], (len(links), 1)); pd = np.zeros((len(links), 3))
    limit[0] = [-0.3, 0.3]; limit[5] = [-0.2, 0.4]; pd[1] = [40.0, 4.0, 0.5]; pd[10] = [20.0, 2.0, -0.3]
    cols['limit'], cols['pd'] = limit, pd
    cols.update(gcols)
    # the fifth tree: link 2 (0.6 m down link 0, turned 0.3 more) and link 3 (0.3 m down link 0,
    # turned 0.3 more) are two branches; link 2's bob held at the point of link 3 where it starts,
    # R_y(-0.3) (0, 0, -0.3) + (0, 0, -0.3) in link 3's frame (a turn a about y takes (0, 0, -L) to
    # (-L sin a, 0, -L cos a)): a loop of three revolute joints about y, one velocity left
    cols['closure_count'] = np.array([0, 0, 0, 0, 1, 0, 0], np.int32)
    cols['closure_link'] = np.array([[2, 3]], np.int32)
    cols['closure_point'] = np.array([[0.0, 0.0, -0.3, 0.3 * np.sin(0.3), 0.0, -0.3 - 0.3 * np.cos(0.3)]])
    if mutate: mutate(cols, fixed)
    n = len(shape)
    with h5py.File(path, 'w') as f:
        f.attrs['format_version'] = 1
        f['bodies/shape'] = np.array(shape, np.int32)
        f['bodies/size'] = np.array(size, float)
        f['bodies/material'] = np.zeros(n, np.int32)
        f['bodies/fixed'] = np.array(fixed, np.uint8)
        f['bodies/density'] = np.full(n, 1000.0)
        f['bodies/position'] = np.array(pos, float)
        f['bodies/orientation'] = np.tile([1.0, 0, 0, 0], (n, 1))
        f['bodies/velocity'] = np.array(vel, float)
        f['materials/friction'] = np.array([[0.4]])
        f['world/gravity'] = np.array([0, 0, -9.81])
        for k, x in cols.items(): f['trees/' + k] = x

write('trees.h5')
def setp(name, row, value):
    def m(c, fixed): c[name][row] = value
    return m
bad = {'missing_parent': setp('parent', 1, 7), 'cycle': setp('parent', 0, 1), 'joint_type': setp('joint', 2, 9),
       'axis': setp('axis', 0, [0.0, 2.0, 0.0]), 'mass': setp('mass', 3, float('nan')),
       'no_body': setp('body', 2, 999), 'limit_order': setp('limit', 1, [0.5, -0.5]),
       'gain': setp('pd', 1, [float('inf'), 1.0, 0.0]), 'limit_spherical': setp('limit', 2, [-1.0, 1.0]), 'fixed_body': lambda c, fixed: fixed.__setitem__(int(c['body'][0]), 1),
       'geom_link': setp('geom_link', 1, 5), 'geom_shape': setp('geom_shape', 4, 3), 'geom_size': setp('geom_size', 0, [-0.05, 0, 0]),
       'closure_link': setp('closure_link', 0, [2, 5]), 'closure_self': setp('closure_link', 0, [3, 3]),
       'closure_point': setp('closure_point', 0, [0.0, float('nan'), 0, 0, 0, 0])}
for name, m in bad.items(): write('bad_%s.h5' % name, m)
PY
for n in 1 2 3 4; do
  $mpiexec -n $n "$bin" run trees.h5 -o "trees_$n.h5" -t_final 0.5 -progress_interval 0 > "run_$n.log" 2>&1 \
    || { echo "FAIL run on $n ranks"; cat "run_$n.log"; fail=1; }
done
$mpiexec -n 2 "$bin" run trees.h5 -o half.h5 -t_final 0.25 -checkpoint_every 60 -progress_interval 0 > half.log 2>&1 \
  || { echo "FAIL run to the checkpoint"; cat half.log; fail=1; }
$mpiexec -n 3 "$bin" run trees.h5 -restart half.ckpt.h5 -o rest.h5 -t_final 0.5 -progress_interval 0 > rest.log 2>&1 \
  || { echo "FAIL restart on 3 ranks"; cat rest.log; fail=1; }
/usr/bin/python3 - <<'PY' || fail=1
import h5py, numpy as np, sys
names = ['frames/position', 'frames/velocity', 'frames/tree_q', 'frames/link_com', 'frames/link_orientation']
a = h5py.File('trees_1.h5', 'r')
ok = True
for n in (2, 3, 4):
    b = h5py.File('trees_%d.h5' % n, 'r')
    bad = [k for k in names if a[k][()].tobytes() != b[k][()].tobytes()]
    print(('FAIL ' if bad else 'ok   ') + '%d ranks vs 1: ' % n + ('differs in ' + ', '.join(bad) if bad else 'bitwise identical'))
    ok &= not bad
r = h5py.File('rest.h5', 'r')
same = all(a[k][-1].tobytes() == r[k][-1].tobytes() for k in names)
print(('ok   ' if same else 'FAIL ') + 'restart on 3 ranks from a checkpoint on 2: last frame ' + ('bitwise identical' if same else 'differs'))
ok &= same
lc = a['frames/link_com'][()]
low = lc[:, -3:, 2].min()  # the last chain's bobs: its capsules (radius 0.04) rest on the plane, not through it
print(('ok   ' if low > 0.04 - 1e-3 else 'FAIL ') + "the last chain's bobs stay above the plane: lowest %.4f m (capsule radius 0.04)" % low)
ok &= bool(low > 0.04 - 1e-3)
# the closure holds at the default tolerance (the links' rows: tree 5's links are 8-11 of the 16)
def rot(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
lp, lo = a['frames/link_position'][()], a['frames/link_orientation'][()]
p3 = np.array([0.3 * np.sin(0.3), 0.0, -0.3 - 0.3 * np.cos(0.3)])
gap = max(np.linalg.norm(lc[k, 10] - (lp[k, 11] + rot(lo[k, 11]) @ p3)) for k in range(len(lc)))
swept = np.linalg.norm(lc[-1, 10] - lc[0, 10])
closed = gap < 1e-3 and swept > 0.1
print(('ok   ' if closed else 'FAIL ') + 'the loop closure holds: largest gap %.2g m while its point moves %.2f m' % (gap, swept))
ok &= bool(closed)
q = a['frames/tree_q'][()]
moved = np.abs(q[-1] - q[0]).max()
print(('ok   ' if moved > 0.1 else 'FAIL ') + 'the trees move (max |q(end) - q(0)| = %.3g)' % moved)
sys.exit(0 if ok and moved > 0.1 else 1)
PY
# a checkpoint whose trees were altered (one velocity, one link mass) is refused by its fingerprints
/usr/bin/python3 - <<'PY' || fail=1
import h5py, shutil
shutil.copy('half.ckpt.h5', 'alt_v.ckpt.h5'); shutil.copy('half.ckpt.h5', 'alt_mass.ckpt.h5')
with h5py.File('alt_v.ckpt.h5', 'r+') as f: f['trees/v'][0] += 1e-3
with h5py.File('alt_mass.ckpt.h5', 'r+') as f: f['trees/mass'][0] *= 2
shutil.copy('trees.h5', 'trees_alt.h5')
with h5py.File('trees_alt.h5', 'r+') as f: f['trees/mass'][0] *= 2
PY
"$bin" run trees_alt.h5 -restart half.ckpt.h5 -o rest_alt_scene.h5 -t_final 0.3 -progress_interval 0 > alt.out 2> alt.err
if [ $? -ne 0 ] && grep -q "signorini: error: .*half.ckpt.h5" alt.err && [ ! -e rest_alt_scene.h5 ]; then
  echo "ok   a scene file whose tree model changed is refused for the checkpoint: $(head -1 alt.err)"
else
  echo "FAIL a scene file whose tree model changed was accepted"; cat alt.out alt.err; fail=1
fi
for alt in v mass; do
  "$bin" run trees.h5 -restart "alt_$alt.ckpt.h5" -o "rest_alt_$alt.h5" -t_final 0.3 -progress_interval 0 > alt.out 2> alt.err
  if [ $? -ne 0 ] && grep -q "signorini: error: .*alt_$alt.ckpt.h5" alt.err && [ ! -e "rest_alt_$alt.h5" ]; then
    echo "ok   a checkpoint with an altered tree ($alt) is refused: $(head -1 alt.err)"
  else
    echo "FAIL a checkpoint with an altered tree ($alt) was not refused"; cat alt.out alt.err; fail=1
  fi
done
for f in bad_*.h5; do
  "$bin" run "$f" -o out_bad.h5 -t_final 0.01 > bad.out 2> bad.err
  rc=$?
  lines=$(grep -c '^signorini: error:' bad.err)
  if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && [ "$(wc -l < bad.err)" -eq 1 ]; then echo "ok   $f refused: $(cat bad.err)"
  else echo "FAIL $f: exit $rc, stderr:"; cat bad.err; fail=1; fi
done
exit $fail
