#!/usr/bin/env python3
"""Convert a robot described in a URDF subset into a signorini scene: one kinematic tree
(docs/FORMATS.md, "Trees"; the subset and its conventions: "Robots from URDF").

Usage: urdf_to_scene.py [options] robot.urdf out.h5
  -base fixed|free    the root link's joint to the world (default fixed); a root link without
                      <inertial> is the world frame itself and takes -base fixed only
  -xyz X Y Z          the root's placement in the world (m; default 0 0 0); with -base free its
  -rpy R P Y          initial pose (q of the free joint), else its fixed joint frame (rad)
  -kp KP -kd KD       PD gains of every revolute, continuous and prismatic joint (default 0 0: none)
  -q JOINT VALUE      initial coordinate of a one-coordinate joint (rad or m; default 0; repeatable)
  -target JOINT VALUE its PD target (default: its initial coordinate, the pose is held; repeatable)
  -cylinder refuse|capsule   a <cylinder> collision: refused (default) or approximated by the
                      capsule of its radius and total length
  -ground none|plane  a fixed plane z = 0 (default none), row 0 of the scene
  -mu MU              friction coefficient of material 0 (default 0.5)
  -body_radius R      the size of the tree's row of /bodies, its length scale (m; default: the
                      smallest collision geom's smallest size, else 0.01)
Bad input: one line 'signorini: error: <what> (<file>, <element>)' on stderr and exit status 1;
skipped elements: one line 'signorini: warning: ...' each."""
import math
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

JOINT_CODES = {'fixed': 0, 'revolute': 1, 'continuous': 1, 'prismatic': 2, 'floating': 4}
NQ = {0: 0, 1: 1, 2: 1, 4: 7}
NV = {0: 0, 1: 1, 2: 1, 4: 6}
MAX_LINKS, MAX_DOF, MAX_GEOMS = 64, 64, 255
SHAPE_SPHERE, SHAPE_BOX, SHAPE_CAPSULE = 0, 1, 2
IGNORED = {'visual', 'material'}  # graphics only, without effect on the dynamics


class UrdfError(Exception):
    pass


def fail(what, where):
    raise UrdfError(f'{what} ({where})')


def warn(what, where):
    print(f'signorini: warning: {what} ({where})', file=sys.stderr)


def numbers(elem, attr, n, where, default=None):
    """The n finite numbers of an attribute; default when it is absent (None: required)."""
    text = elem.get(attr)
    if text is None:
        if default is None:
            fail(f'<{elem.tag}> has no attribute {attr}', where)
        return list(default)
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        values = []
    if len(values) != n or not all(math.isfinite(v) for v in values):
        fail(f'<{elem.tag}> {attr}="{text}" is not {n} finite number{"s" if n > 1 else ""}', where)
    return values


def quat_from_rpy(rpy):
    """URDF's rpy: fixed-axis rotations about x (roll), then y (pitch), then z (yaw), R = Rz Ry Rx;
    the quaternion (w, x, y, z)."""
    if rpy == [0.0, 0.0, 0.0]:
        return [1.0, 0.0, 0.0, 0.0]  # exactly, so that unrotated frames keep their bits
    cr, sr = math.cos(rpy[0] / 2), math.sin(rpy[0] / 2)
    cp, sp = math.cos(rpy[1] / 2), math.sin(rpy[1] / 2)
    cy, sy = math.cos(rpy[2] / 2), math.sin(rpy[2] / 2)
    return [cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy]


def rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_mul(a, b):
    return [a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]]


def origin(elem, where):
    """xyz and the quaternion of rpy of an element's <origin> (identity when absent)."""
    o = elem.find('origin')
    if o is None:
        return [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    return numbers(o, 'xyz', 3, where, [0.0] * 3), quat_from_rpy(numbers(o, 'rpy', 3, where, [0.0] * 3))


def child(elem, tag, where):
    c = elem.find(tag)
    if c is None:
        fail(f'<{elem.tag}> has no <{tag}>', where)
    return c


def inertial(link, where):
    """Mass, centre of mass and inertia about it (xx yy zz xy xz yz) in the link frame; the
    inertia is given in the <inertial> origin's frame and turned into the link's."""
    e = link.find('inertial')
    where = f'{where} <inertial>'
    com, q = origin(e, where)
    mass = numbers(child(e, 'mass', where), 'value', 1, where)[0]
    if not mass > 0:
        fail(f'mass {mass:g} is not positive', where)
    i = child(e, 'inertia', where)
    xx, yy, zz, xy, xz, yz = (numbers(i, a, 1, where)[0] for a in ('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz'))
    m = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if np.linalg.eigvalsh(m)[0] <= 0:
        fail('the inertia is not positive definite', where)
    if q != [1.0, 0.0, 0.0, 0.0]:
        r = rotation(q)
        m = r @ m @ r.T
        xx, yy, zz, xy, xz, yz = m[0, 0], m[1, 1], m[2, 2], m[0, 1], m[0, 2], m[1, 2]
    return mass, com, [xx, yy, zz, xy, xz, yz]


def geometry(shape, opts, where):
    """(shape code, size) of a <geometry>'s primitive, or None for a skipped mesh."""
    if shape.tag == 'sphere':
        r = numbers(shape, 'radius', 1, where)[0]
        size, code = [r, 0.0, 0.0], SHAPE_SPHERE
    elif shape.tag == 'box':
        size, code = [0.5 * v for v in numbers(shape, 'size', 3, where)], SHAPE_BOX
    elif shape.tag == 'capsule' or (shape.tag == 'cylinder' and opts['cylinder'] == 'capsule'):
        r, length = numbers(shape, 'radius', 1, where)[0], numbers(shape, 'length', 1, where)[0]
        if length < 0:
            fail(f'<{shape.tag}> length {length:g} is negative', where)
        half = 0.5 * length if shape.tag == 'capsule' else max(0.5 * length - r, 0.0)
        size, code = [r, half, 0.0], SHAPE_CAPSULE
    elif shape.tag == 'cylinder':
        fail('a <cylinder> collision: signorini has no cylinder (-cylinder capsule approximates it by a capsule)', where)
    elif shape.tag == 'mesh':
        warn('a <mesh> collision is skipped: link geoms are spheres, boxes and capsules', where)
        return None
    else:
        fail(f'unknown geometry <{shape.tag}>', where)
    if not all(v > 0 for v in size[:3 if code == SHAPE_BOX else 1]):  # a capsule's half length may be 0
        fail(f'a <{shape.tag}> of a non-positive size', where)
    return code, size


def collisions(link, opts, where):
    geoms = []
    for k, c in enumerate(link.findall('collision')):
        w = f'{where} <collision> {k + 1}'
        g = child(c, 'geometry', w)
        if len(g) != 1:
            fail('<geometry> must hold exactly one shape', w)
        shape = geometry(g[0], opts, w)
        if shape is not None:
            pos, q = origin(c, w)
            geoms.append(dict(shape=shape[0], size=shape[1], pos=pos, quat=q))
    return geoms


def parse_link(e, opts, path):
    name = e.get('name')
    if not name:
        fail('a <link> has no name', path)
    where = f"{path}, link '{name}'"
    for c in e:
        if c.tag not in ('inertial', 'collision') and c.tag not in IGNORED:
            warn(f'<{c.tag}> is skipped', where)
    link = dict(name=name, where=where, geoms=collisions(e, opts, where), inertial=None)
    if e.find('inertial') is not None:
        link['inertial'] = inertial(e, where)
    return link


def parse_joint(e, path):
    name = e.get('name')
    if not name:
        fail('a <joint> has no name', path)
    where = f"{path}, joint '{name}'"
    kind = e.get('type')
    if kind not in JOINT_CODES:
        fail(f"joint type '{kind}' is not one of {', '.join(JOINT_CODES)}", where)
    if e.find('mimic') is not None:
        fail('<mimic> joints are not supported (a coupling of two joints)', where)
    for c in e:
        if c.tag not in ('origin', 'parent', 'child', 'axis', 'limit'):
            warn(f'<{c.tag}> is skipped', where)
    pos, q = origin(e, where)
    j = dict(name=name, where=where, kind=kind, code=JOINT_CODES[kind], pos=pos, quat=q,
             parent=child(e, 'parent', where).get('link'), child=child(e, 'child', where).get('link'))
    if j['parent'] is None or j['child'] is None:
        fail('<parent> and <child> need a link attribute', where)
    a = e.find('axis')
    axis = numbers(a, 'xyz', 3, where, [1.0, 0.0, 0.0]) if a is not None else [1.0, 0.0, 0.0]
    norm = math.sqrt(sum(v * v for v in axis))
    if not norm > 0:
        fail('the <axis> is zero', where)
    j['axis'] = axis if abs(norm - 1) < 1e-15 else [v / norm for v in axis]
    j['limit'] = limits(e.find('limit'), kind, where)
    return j


def limits(e, kind, where):
    """lower, upper of a revolute or prismatic joint; an absent side is unlimited (not the URDF
    default 0, which would lock a joint written without it)."""
    if e is None or kind not in ('revolute', 'prismatic'):
        return [-math.inf, math.inf]
    lo = numbers(e, 'lower', 1, where, [-math.inf])[0]
    hi = numbers(e, 'upper', 1, where, [math.inf])[0]
    if lo > hi:
        fail(f'the <limit> lower {lo:g} is above upper {hi:g}', where)
    return [lo, hi]


def read_urdf(path, opts):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f'not well-formed XML: {e}', path)
    except OSError as e:
        fail(f'cannot read the file: {e.strerror}', path)
    if root.tag != 'robot':
        fail(f'the root element is <{root.tag}>, not <robot>', path)
    for c in root:
        if c.tag not in ('link', 'joint') and c.tag not in IGNORED:
            warn(f'<{c.tag}> is skipped', f"{path}, <{c.tag}> '{c.get('name', '')}'")
    links, joints = {}, []
    for e in root.findall('link'):
        link = parse_link(e, opts, path)
        if link['name'] in links:
            fail('the link name appears twice', link['where'])
        links[link['name']] = link
    for e in root.findall('joint'):
        joints.append(parse_joint(e, path))
        if any(j['name'] == joints[-1]['name'] for j in joints[:-1]):
            fail('the joint name appears twice', joints[-1]['where'])
    if not links:
        fail('no <link>', path)
    return links, joints


def tree_order(links, joints, path):
    """The links depth first from the single root, children in the file's order (each link after
    its parent, as the scene's trees need); the joint of each link by its name."""
    by_child = {}
    for j in joints:
        for end in ('parent', 'child'):
            if j[end] not in links:
                fail(f"the {end} link '{j[end]}' is not a <link> of the file", j['where'])
        if j['child'] in by_child:
            fail(f"link '{j['child']}' is also the child of joint '{by_child[j['child']]['name']}': a closed loop, "
                 "which a tree cannot hold", j['where'])
        by_child[j['child']] = j
    roots = [n for n in links if n not in by_child]
    if len(roots) != 1:
        what = 'no root link: the joints form a cycle' if not roots else \
            f"{len(roots)} root links ({', '.join(repr(r) for r in roots[:4])}): a robot needs one"
        fail(what, path)
    children = {n: [] for n in links}
    for j in joints:
        children[j['parent']].append(j['child'])
    order, stack = [], [roots[0]]
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(reversed(children[name]))
    if len(order) < len(links):
        lost = next(n for n in links if n not in set(order))
        fail(f"link '{lost}' is not connected to the root link '{roots[0]}': its joints form a cycle", by_child[lost]['where'])
    return order, by_child


def root_joint(opts):
    """The root link's joint to the world: fixed at the placement, or free with it as initial pose."""
    q = quat_from_rpy(opts['rpy'])
    if opts['base'] == 'free':
        return dict(code=4, pos=[0.0] * 3, quat=[1.0, 0.0, 0.0, 0.0], q=list(opts['xyz']) + q)
    return dict(code=0, pos=list(opts['xyz']), quat=q, q=[])


def placed(j, opts):
    """A joint from a world root link: its frame moved by the placement -xyz -rpy."""
    q = quat_from_rpy(opts['rpy'])
    if q == [1.0, 0.0, 0.0, 0.0] and opts['xyz'] == [0.0] * 3:
        return j['pos'], j['quat']
    pos = (rotation(q) @ np.array(j['pos']) + np.array(opts['xyz'])).tolist()
    return pos, quat_mul(q, j['quat'])


def link_row(link, j, parent, opts):
    """One row of the tree's link columns and the link's q."""
    mass, com, inertia = link['inertial']
    row = dict(parent=parent, mass=mass, com=com, inertia=inertia, axis=[0.0] * 3,
               limit=[-math.inf, math.inf], pd=[0.0] * 3)
    if j is None:
        r = root_joint(opts)
        row.update(joint=r['code'], pos=r['pos'], quat=r['quat'])
        return row, r['q']
    pos, quat = placed(j, opts) if parent == -1 else (j['pos'], j['quat'])
    row.update(joint=j['code'], pos=pos, quat=quat)
    if j['code'] == 4:
        return row, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    if j['code'] == 0:
        return row, []
    q0 = opts['q'].pop(j['name'], 0.0)
    row.update(axis=j['axis'], limit=j['limit'], pd=[opts['kp'], opts['kd'], opts['target'].pop(j['name'], q0)])
    return row, [q0]


def is_frame(link, j, parents):
    """A sensor's or tool's frame: a leaf on a fixed joint without geoms, which moves nothing."""
    return j is not None and j['code'] == 0 and not link['geoms'] and link['name'] not in parents


def build_tree(links, joints, opts, path):
    """The tree's link rows, q and geoms, from the links in tree order."""
    order, by_child = tree_order(links, joints, path)
    root = links[order[0]]
    world = root['inertial'] is None
    if world and opts['base'] == 'free':
        fail('the root link has no <inertial>: it is the world frame, which -base free cannot move', root['where'])
    if world and root['geoms']:
        warn("the world root link's collisions are skipped", root['where'])
    index, rows, q, geoms = {}, [], [], []
    parents = {j['parent'] for j in joints}
    for name in order:
        link, j = links[name], by_child.get(name)
        if world and j is None:
            index[name] = -1
            continue
        if link['inertial'] is None and is_frame(link, j, parents):
            warn(f"a frame without mass is skipped (no <inertial>, no collision, a leaf on fixed joint '{j['name']}')",
                 link['where'])
            continue
        if link['inertial'] is None:
            fail('no <inertial>: every link but a world root link and massless leaf frames needs a positive mass', link['where'])
        index[name] = len(rows)
        row, lq = link_row(link, j, -1 if j is None else index[j['parent']], opts)
        rows.append(row)
        q += lq
        geoms += [dict(g, link=index[name]) for g in link['geoms']]
    check_sizes(rows, geoms, opts, path)
    return rows, q, geoms


def check_sizes(rows, geoms, opts, path):
    for key in ('q', 'target'):
        if opts[key]:
            fail(f"-{key} names '{next(iter(opts[key]))}', not a revolute, continuous or prismatic joint of the robot", path)
    nv = sum(NV[r['joint']] for r in rows)
    if not 1 <= len(rows) <= MAX_LINKS:
        fail(f'{len(rows)} links, a tree holds 1 to {MAX_LINKS}', path)
    if not 1 <= nv <= MAX_DOF:
        fail(f'{nv} velocities, a tree has 1 to {MAX_DOF} (a robot fixed to the world by fixed joints alone does not move)', path)
    if len(geoms) > MAX_GEOMS:
        fail(f'{len(geoms)} collision geoms, a tree carries at most {MAX_GEOMS}', path)


def length_scale(geoms, opts):
    """The tree row's radius: given, else the smallest geom size (a capsule's or sphere's radius, a
    box's smallest half extent)."""
    if opts['body_radius'] > 0:
        return opts['body_radius']
    sizes = [g['size'][0] if g['shape'] != SHAPE_BOX else min(g['size']) for g in geoms]
    return min(sizes) if sizes else 0.01


def write_scene(out, rows, q, geoms, opts):
    ground = opts['ground'] == 'plane'
    n = 1 + ground
    shape = [3] * ground + [SHAPE_SPHERE]
    size = [[0.0] * 3] * ground + [[length_scale(geoms, opts), 0.0, 0.0]]
    with h5py.File(out, 'w') as f:
        f.attrs['format_version'] = np.int32(1)
        f.attrs['kind'] = 'signorini-scene'
        f['bodies/shape'] = np.array(shape, np.int32)
        f['bodies/size'] = np.array(size, float)
        f['bodies/material'] = np.zeros(n, np.int32)
        f['bodies/fixed'] = np.array([1] * ground + [0], np.uint8)
        f['bodies/density'] = np.array([0.0] * ground + [1.0])
        f['bodies/position'] = np.zeros((n, 3))
        f['bodies/orientation'] = np.tile([1.0, 0, 0, 0], (n, 1))
        f['bodies/velocity'] = np.zeros((n, 6))
        f['materials/friction'] = np.array([[opts['mu']]])
        f['world/gravity'] = np.array([0.0, 0.0, -9.81])
        write_tree(f, n - 1, rows, q, geoms)


def write_tree(f, body, rows, q, geoms):
    t = f.create_group('trees')
    t['body'] = np.array([body], np.int64)
    t['link_count'] = np.array([len(rows)], np.int32)
    for name, key, dtype in (('parent', 'parent', np.int32), ('joint', 'joint', np.int32), ('joint_position', 'pos', float),
                             ('joint_orientation', 'quat', float), ('axis', 'axis', float), ('mass', 'mass', float),
                             ('com', 'com', float), ('inertia', 'inertia', float)):
        t[name] = np.array([r[key] for r in rows], dtype)
    limit, pd = np.array([r['limit'] for r in rows]), np.array([r['pd'] for r in rows])
    if np.isfinite(limit).any():  # optional columns, written when some joint has limits or gains
        t['limit'] = limit
    if pd[:, :2].any():
        t['pd'] = pd
    t['q'] = np.array(q, float)
    t['v'] = np.zeros(sum(NV[r['joint']] for r in rows))
    if not geoms:
        return
    t['geom_count'] = np.array([len(geoms)], np.int32)
    for name, key, dtype in (('geom_link', 'link', np.int32), ('geom_shape', 'shape', np.int32), ('geom_size', 'size', float),
                             ('geom_position', 'pos', float), ('geom_orientation', 'quat', float)):
        t[name] = np.array([g[key] for g in geoms], dtype)


def option_values(argv, i, n, cast):
    if i + n >= len(argv):
        fail(f'option {argv[i]} needs {n} value{"s" if n > 1 else ""}', 'command line')
    try:
        values = [cast(v) for v in argv[i + 1:i + 1 + n]]
    except ValueError:
        values = None
    if values is None or (cast is float and not all(math.isfinite(v) for v in values)):
        fail(f"option {argv[i]}: '{' '.join(argv[i + 1:i + 1 + n])}' is not {n} finite number{'s' if n > 1 else ''}", 'command line')
    return values


def parse_args(argv):
    opts = dict(base='fixed', xyz=[0.0] * 3, rpy=[0.0] * 3, kp=0.0, kd=0.0, q={}, target={}, cylinder='refuse', ground='none',
                mu=0.5, body_radius=0.0)
    choices = {'-base': ('fixed', 'free'), '-cylinder': ('refuse', 'capsule'), '-ground': ('none', 'plane')}
    files, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ('-h', '-help', '--help'):
            print(__doc__)
            sys.exit(0)
        if a in choices:
            v = option_values(argv, i, 1, str)[0]
            if v not in choices[a]:
                fail(f"option {a}: '{v}' is not one of {'|'.join(choices[a])}", 'command line')
            opts[a[1:]] = v
            i += 2
        elif a in ('-xyz', '-rpy'):
            opts[a[1:]], i = option_values(argv, i, 3, float), i + 4
        elif a in ('-kp', '-kd', '-mu', '-body_radius'):
            v = option_values(argv, i, 1, float)[0]
            if v < 0:
                fail(f'option {a}: {v:g} is negative', 'command line')
            opts[a[1:]], i = v, i + 2
        elif a in ('-q', '-target'):
            name, value = option_values(argv, i, 2, str)
            try:
                opts[a[1:]][name] = float(value)
            except ValueError:
                fail(f"option {a} {name}: '{value}' is not a number", 'command line')
            if not math.isfinite(opts[a[1:]][name]):
                fail(f"option {a} {name}: '{value}' is not finite", 'command line')
            i += 3
        elif a.startswith('-') and len(a) > 1:
            fail(f'unknown option {a}', 'command line')
        else:
            files.append(a)
            i += 1
    if len(files) != 2:
        fail(f'expected robot.urdf and out.h5, got {len(files)} file names (-h: the options)', 'command line')
    if opts['kp'] > 0 and not opts['kd'] > 0:
        fail('-kp needs -kd > 0 (the PD row of paper 002 (4) needs damping)', 'command line')
    return opts, files


def main(argv):
    try:
        opts, (src, out) = parse_args(argv)
        links, joints = read_urdf(src, opts)
        rows, q, geoms = build_tree(links, joints, opts, src)
    except UrdfError as e:
        print(f'signorini: error: {e}', file=sys.stderr)
        return 1
    tmp = f'{out}.tmp.{os.getpid()}'
    try:
        write_scene(tmp, rows, q, geoms, opts)
        os.replace(tmp, out)
    except OSError as e:
        reason = os.strerror(e.errno) if e.errno else 'the file cannot be created'
        print(f'signorini: error: cannot write the scene: {reason} ({out})', file=sys.stderr)
        return 1
    dof = sum(NV[r['joint']] for r in rows)
    print(f'{out}: {len(rows)} links, {dof} velocities, {len(geoms)} collision geoms from {src}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
