#!/usr/bin/env python3
"""URDF files and checks for test_urdf.sh (scripts/urdf_to_scene.py).
Usage: urdf_cases.py pendulum|rotated|plain|chain|quadruped|slider OUT.urdf
       urdf_cases.py bad CASE OUT.urdf      (CASE: one of BAD below)
       urdf_cases.py rad DEGREES            (the generators' degrees to radians, to the bit)
       urdf_cases.py stand_height           (generate quadruped's base height, to the bit)
       urdf_cases.py period OUT.h5          (the pendulum's period against 2 pi sqrt(L/g))
       urdf_cases.py fall OUT.h5            (the slider on its limit, the floating link in free fall)
       urdf_cases.py same_model A.h5 B.h5   (trees, tree rows of /bodies, friction to 1e-12)
       urdf_cases.py same_frames A.h5 B.h5  (every /frames dataset bit for bit)
       urdf_cases.py close_motion A.h5 B.h5 (link centres of mass and geoms to 1e-9)"""
import math
import sys

import h5py
import numpy as np

G = 9.81
# the pendulum: a bob of mass M and radius R (a solid sphere's inertia) at L below a pivot at 2 m
L, M, R, THETA0 = 1.0, 1.0, 0.01, 0.05


def vec(v):
    return ' '.join(repr(float(x)) for x in v)


def inertial(mass, com, inertia, rpy=(0, 0, 0)):
    xx, yy, zz, xy, xz, yz = (float(v) for v in inertia)
    return (f'<inertial><origin xyz="{vec(com)}" rpy="{vec(rpy)}"/><mass value="{float(mass)!r}"/>'
            f'<inertia ixx="{xx!r}" iyy="{yy!r}" izz="{zz!r}" ixy="{xy!r}" ixz="{xz!r}" iyz="{yz!r}"/></inertial>')


def link(name, body='', geoms=()):
    return f'<link name="{name}">{body}{"".join(geoms)}</link>'


def collision(shape, xyz=(0, 0, 0), rpy=(0, 0, 0)):
    return f'<collision><origin xyz="{vec(xyz)}" rpy="{vec(rpy)}"/><geometry>{shape}</geometry></collision>'


def joint(name, kind, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=None, limit=None, extra=''):
    a = f'<axis xyz="{vec(axis)}"/>' if axis is not None else ''
    lim = f'<limit lower="{limit[0]!r}" upper="{limit[1]!r}" effort="1" velocity="1"/>' if limit else ''
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{vec(xyz)}" rpy="{vec(rpy)}"/>{a}{lim}{extra}</joint>')


def robot(*parts):
    return '<?xml version="1.0"?>\n<robot name="test">\n  ' + '\n  '.join(parts) + '\n</robot>\n'


def pendulum():
    i = 0.4 * M * R * R
    return robot(link('world'), link('bob', inertial(M, (0, 0, -L), (i, i, i, 0, 0, 0))),
                 joint('hinge', 'revolute', 'world', 'bob', (0, 0, 2), axis=(0, 1, 0)))


def rpy_matrix(r, p, y):
    """URDF's rpy as a matrix, written out independently of the converter's quaternions:
    fixed axes x, y, z in turn, R = Rz(y) Ry(p) Rx(r)."""
    cx, sx, cy, sy, cz, sz = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def matrix_rpy(m):
    """The rpy of a rotation matrix (pitch inside (-pi/2, pi/2))."""
    return math.atan2(m[2, 1], m[2, 2]), -math.asin(m[2, 0]), math.atan2(m[1, 0], m[0, 0])


JOINT_RPY, INERTIAL_RPY, D = (0.3, -0.7, 1.1), (-0.4, 0.2, 0.9), np.diag([0.02, 0.08, 0.05])
BOX = '<box size="0.2 0.1 0.06"/>'


def plain():
    """A pendulum whose bob has a box collision and an anisotropic inertia D, every frame unrotated."""
    return robot(link('world'), link('bob', inertial(M, (0, 0, -0.5), (*np.diag(D), 0, 0, 0)), [collision(BOX, (0, 0, -0.5))]),
                 joint('hinge', 'revolute', 'world', 'bob', (0, 0, 2), axis=(0, 1, 0)))


def rotated():
    """plain()'s pendulum with its joint frame turned by JOINT_RPY: the axis, centre of mass, inertia
    (given in an inertial frame turned by INERTIAL_RPY) and box turned back into the new link frame,
    so that the motion is the same if the converter's rpy convention is URDF's."""
    rj, ri = rpy_matrix(*JOINT_RPY), rpy_matrix(*INERTIAL_RPY)
    inertia_link = rj.T @ D @ rj
    ii = ri.T @ inertia_link @ ri
    com = rj.T @ np.array([0, 0, -0.5])
    box = collision(BOX, com, matrix_rpy(rj.T))
    body = inertial(M, com, (ii[0, 0], ii[1, 1], ii[2, 2], ii[0, 1], ii[0, 2], ii[1, 2]), INERTIAL_RPY)
    return robot(link('world'), link('bob', body, [box]),
                 joint('hinge', 'revolute', 'world', 'bob', (0, 0, 2), JOINT_RPY, axis=rj.T @ np.array([0, 1, 0])))


# generate chain -n 3 -length 0.5 -mass 0.7 -radius 0.03 -height 1.5 -limit_lower -40 -limit_upper 60 -geom sphere
CHAIN = dict(n=3, length=0.5, mass=0.7, radius=0.03, height=1.5, lower=-40.0, upper=60.0)


def chain():
    c = CHAIN
    i = 0.4 * c['mass'] * c['radius'] * c['radius']
    lim = (c['lower'] * (math.pi / 180.0), c['upper'] * (math.pi / 180.0))  # as gen_chain.c rounds
    parts = [link('world')]
    for k in range(c['n']):
        down = (0, 0, -c['length'])
        parts.append(link(f'l{k}', inertial(c['mass'], down, (i, i, i, 0, 0, 0)),
                          [collision(f'<sphere radius="{c["radius"]!r}"/>', down)]))
        parts.append(joint(f'j{k}', 'revolute', 'world' if k == 0 else f'l{k - 1}', f'l{k}',
                           (0, 0, c['height']) if k == 0 else down, axis=(0, 1, 0), limit=lim))
    return robot(*parts)


# gen_quadruped.c's constants
BASE_HALF, BASE_MASS = (0.27, 0.09, 0.06), 9.0
HIP_X, HIP_Y, THIGH_Y, SEG = 0.21, 0.075, 0.08, 0.25
HIP_MASS, THIGH_MASS, CALF_MASS, THIGH_R, CALF_R, FOOT_R = 1.0, 1.0, 0.3, 0.025, 0.015, 0.02
CROUCH = 0.7


def rod(m, length):
    i = m * length * length / 12 + 1e-5
    return (0, 0, -0.5 * length), (i, i, 1e-5, 0, 0, 0)


def capsule(r, half, z):
    return collision(f'<capsule radius="{r!r}" length="{2 * half!r}"/>', (0, 0, z))


def leg(k):
    sx, sy = (1 if k < 2 else -1), (-1 if k % 2 else 1)
    hip, thigh, calf = f'hip{k}', f'thigh{k}', f'calf{k}'
    com_t, i_t = rod(THIGH_MASS, SEG)
    com_c, i_c = rod(CALF_MASS, SEG)
    return [link(hip, inertial(HIP_MASS, (0, 0, -0.5 * 0.0), (1e-3, 1e-3, 1e-3, 0, 0, 0))),
            link(thigh, inertial(THIGH_MASS, com_t, i_t), [capsule(THIGH_R, 0.5 * SEG - THIGH_R, -0.5 * SEG)]),
            link(calf, inertial(CALF_MASS, com_c, i_c), [capsule(CALF_R, 0.5 * SEG - 0.04, -0.5 * SEG + 0.01),
                                                         collision(f'<sphere radius="{FOOT_R!r}"/>', (0, 0, -SEG))]),
            joint(f'{hip}_joint', 'continuous', 'base', hip, (sx * HIP_X, sy * HIP_Y, 0), axis=(1, 0, 0)),
            joint(f'{thigh}_joint', 'continuous', hip, thigh, (0, sy * THIGH_Y, 0), axis=(0, 1, 0)),
            joint(f'{calf}_joint', 'continuous', thigh, calf, (0, 0, -SEG), axis=(0, 1, 0))]


def quadruped():
    h, m = BASE_HALF, BASE_MASS
    inertia = (m * (h[1] * h[1] + h[2] * h[2]) / 3, m * (h[0] * h[0] + h[2] * h[2]) / 3, m * (h[0] * h[0] + h[1] * h[1]) / 3, 0, 0, 0)
    base = link('base', inertial(m, (0, 0, 0), inertia), [collision(f'<box size="{vec(2 * np.array(h))}"/>')])
    return robot(base, *[p for k in range(4) for p in leg(k)])


SLIDE_LOWER, CAP_OFFSET = -0.3, (0.1, 0.0, 0.2)


def slider():
    """A mass on a vertical prismatic joint with a lower limit, and a floating link carrying a cap
    on a fixed joint, both falling from 1 m."""
    box = (1e-3, 1e-3, 1e-3, 0, 0, 0)
    return robot(link('world'), link('slider', inertial(1.0, (0, 0, 0), box)),
                 link('free', inertial(2.0, (0, 0, 0), box)), link('cap', inertial(0.5, (0, 0, 0), box)),
                 joint('slide', 'prismatic', 'world', 'slider', (0, 0, 1), axis=(0, 0, 1), limit=(SLIDE_LOWER, 1.0)),
                 joint('drop', 'floating', 'world', 'free', (1, 0, 1)),
                 joint('weld', 'fixed', 'free', 'cap', CAP_OFFSET, (0.3, 0.2, 0.1)))


def bad(case):
    """A malformed robot: the pendulum with one fault."""
    i = 0.4 * M * R * R
    good_bob = inertial(M, (0, 0, -L), (i, i, i, 0, 0, 0))
    world, bob = link('world'), link('bob', good_bob)
    hinge = joint('hinge', 'revolute', 'world', 'bob', (0, 0, 2), axis=(0, 1, 0))
    other = link('other', good_bob)
    cases = {
        'missing_parent': (world, bob, joint('hinge', 'revolute', 'nowhere', 'bob', axis=(0, 1, 0))),
        'cycle': (world, bob, other, joint('a', 'revolute', 'bob', 'other', axis=(0, 1, 0)),
                  joint('b', 'revolute', 'other', 'bob', axis=(0, 1, 0))),
        'loop': (world, bob, other, hinge, joint('a', 'revolute', 'world', 'other', axis=(0, 1, 0)),
                 joint('b', 'revolute', 'other', 'bob', axis=(0, 1, 0))),
        'two_roots': (world, bob, other, hinge),
        'unknown_type': (world, bob, joint('hinge', 'hinged', 'world', 'bob', axis=(0, 1, 0))),
        'planar': (world, bob, joint('hinge', 'planar', 'world', 'bob', axis=(0, 1, 0))),
        'negative_mass': (world, link('bob', inertial(-1.0, (0, 0, -L), (i, i, i, 0, 0, 0))), hinge),
        'inertia': (world, link('bob', inertial(M, (0, 0, -L), (1e-3, 1e-3, 1e-3, 2e-3, 0, 0))), hinge),
        'no_inertial': (world, link('bob'), hinge),
        'limits': (world, bob, joint('hinge', 'revolute', 'world', 'bob', axis=(0, 1, 0), limit=(1.0, -1.0))),
        'mimic': (world, bob, other, hinge, joint('a', 'revolute', 'bob', 'other', axis=(0, 1, 0),
                                                  extra='<mimic joint="hinge"/>')),
        'cylinder': (world, link('bob', good_bob, [collision('<cylinder radius="0.125" length="0.5"/>')]), hinge),
        'mesh': (world, link('bob', good_bob, [collision('<mesh filename="bob.stl"/>')]), hinge),
        'frame': (world, bob, hinge, link('tip'), joint('tip_joint', 'fixed', 'bob', 'tip', (0, 0, -L))),
        'massless_middle': (world, bob, hinge, link('tip'), other, joint('tip_joint', 'fixed', 'bob', 'tip'),
                            joint('a', 'revolute', 'tip', 'other', axis=(0, 1, 0))),
        'bad_number': (world, bob, joint('hinge', 'revolute', 'world', 'bob', axis=(0, 1, 0)).replace('0.0 1.0 0.0', '0 1')),
        'not_xml': (world, bob, hinge, '<joint'),
    }
    return robot(*cases[case])


def period(path):
    """Mean spacing of the angle's downward zero crossings (linear interpolation) over the run."""
    with h5py.File(path, 'r') as f:
        t, a = f['frames/time'][()], f['frames/tree_q'][:, 0]
    k = np.nonzero((a[:-1] > 0) & (a[1:] <= 0))[0]
    cross = t[k] + (t[k + 1] - t[k]) * a[k] / (a[k] - a[k + 1])
    if len(cross) < 4:
        sys.exit(f'{path}: {len(cross)} downward crossings, expected 4 (three periods)')
    measured = (cross[-1] - cross[0]) / (len(cross) - 1)
    t0 = 2 * math.pi * math.sqrt(L / G)
    # this physical pendulum at this amplitude: the bob's own inertia, the first amplitude term
    physical = t0 * math.sqrt(1 + 0.4 * R * R / (L * L)) * (1 + THETA0 * THETA0 / 16)
    print(f'period {measured:.6f} s, 2 pi sqrt(L/g) = {t0:.6f} s (off {measured / t0 - 1:+.2e}, bound 5e-3), '
          f'physical {physical:.6f} s (off {measured / physical - 1:+.2e}, bound 1e-4)')
    return abs(measured / t0 - 1) < 5e-3 and abs(measured / physical - 1) < 1e-4


def fall(path):
    """The slider, stopped by its limit (bouncing at theta = 1/2), rests on it at the end (within 1e-3 m)
    and never passed it by more; the floating link and its cap fall freely: at t = 0.2 s, 1 - g t^2 / 2
    to 1e-9 (the theta = 1/2 step is exact for a constant force)."""
    with h5py.File(path, 'r') as f:
        t, q, com = f['frames/time'][()], f['frames/tree_q'][()], f['frames/link_com'][()]
    k = int(np.argmin(np.abs(t - 0.2)))
    z = 1 - 0.5 * G * t[k] ** 2
    free = abs(q[k, 3] - (z - 1))  # the free joint's z translation (its joint frame is at height 1)
    cap = np.max(np.abs(com[k, 2] - (np.array([1, 0, z]) + CAP_OFFSET)))
    rest = max(abs(q[-1, 0] - SLIDE_LOWER), SLIDE_LOWER - np.min(q[:, 0]))
    print(f'slider {q[-1, 0]:.6f} m at t = {t[-1]:g} s (limit {SLIDE_LOWER}: off at the end or past it by {rest:.1e}, '
          f'bound 1e-3); at t = {t[k]:g} s '
          f'the floating link off free fall by {free:.1e} m, its cap by {cap:.1e} m (bound 1e-9)')
    return rest < 1e-3 and free < 1e-9 and cap < 1e-9


def datasets(f, group):
    out = {}
    f[group].visititems(lambda name, o: out.__setitem__(name, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out


def same_model(a, b):
    """The trees' datasets, the tree rows' shape and size, and the friction table agree to 1e-12."""
    with h5py.File(a, 'r') as fa, h5py.File(b, 'r') as fb:
        ta, tb = datasets(fa, 'trees'), datasets(fb, 'trees')
        if sorted(ta) != sorted(tb):
            print(f'different /trees datasets: {sorted(ta)} and {sorted(tb)}')
            return False
        rows = [(f['trees/body'][()], f) for f in (fa, fb)]
        pairs = [(f'trees/{n}', ta[n], tb[n]) for n in sorted(ta)]
        pairs += [(f'bodies/{n} of the trees', *(f[f'bodies/{n}'][()][r] for r, f in rows))
                  for n in ('shape', 'size', 'fixed', 'material')]
        pairs += [('materials/friction', fa['materials/friction'][()], fb['materials/friction'][()])]
    ok = True
    for name, x, y in pairs:
        finite = np.isfinite(x) & np.isfinite(y)
        if x.shape != y.shape or not np.array_equal(np.isfinite(x), np.isfinite(y)) or \
                not np.array_equal(x[~finite], y[~finite]) or (finite.any() and np.max(np.abs(x[finite] - y[finite])) > 1e-12):
            print(f'{name} differs:\n{x}\n{y}')
            ok = False
    print(f'{len(pairs)} datasets compared, {"equal to 1e-12" if ok else "different"}')
    return ok


def same_frames(a, b):
    with h5py.File(a, 'r') as fa, h5py.File(b, 'r') as fb:
        da, db = datasets(fa, 'frames'), datasets(fb, 'frames')
    diff = [n for n in sorted(set(da) | set(db)) if n not in da or n not in db or not np.array_equal(da[n], db[n], equal_nan=True)]
    print(f'{len(da)} frame datasets of {len(da["time"])} frames: ' + (f'differ: {diff}' if diff else 'bit for bit the same'))
    return not diff


def close_motion(a, b):
    """Link centres of mass, geom centres and geom orientations (as matrices: q and -q are one turn)."""
    with h5py.File(a, 'r') as fa, h5py.File(b, 'r') as fb:
        da, db = datasets(fa, 'frames'), datasets(fb, 'frames')
    qa, qb = da['geom_orientation'], db['geom_orientation']
    turn = np.abs(np.abs(np.sum(qa * qb, axis=-1)) - 1)  # |<qa, qb>| = 1 for the same turn
    errs = {n: np.max(np.abs(da[n] - db[n])) for n in ('link_com', 'geom_position')}
    errs['geom_orientation (1 - |<qa, qb>|)'] = np.max(turn)
    angle = np.max(np.abs(da['tree_q']))
    print(f'swing {angle:.3f} rad; ' + ', '.join(f'{n} {e:.1e}' for n, e in errs.items()) + ' (bound 1e-9)')
    return angle > 0.1 and all(e < 1e-9 for e in errs.values())


def main(argv):
    writers = dict(pendulum=pendulum, rotated=rotated, plain=plain, chain=chain, quadruped=quadruped, slider=slider)
    if argv[0] in writers:
        open(argv[1], 'w').write(writers[argv[0]]())
    elif argv[0] == 'bad':
        open(argv[2], 'w').write(bad(argv[1]))
    elif argv[0] == 'rad':
        print(repr(float(argv[1]) * math.pi / 180.0))
    elif argv[0] == 'stand_height':
        print(repr(2 * SEG * math.cos(CROUCH) + FOOT_R))
    else:
        checks = dict(period=period, fall=fall, same_model=same_model, same_frames=same_frames, close_motion=close_motion)
        return 0 if checks[argv[0]](*argv[1:]) else 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
