#!/usr/bin/env python3
"""Write the inner surface of the box silo of `signorini generate silo -bin box` as an STL file:
the floor (z = 0) around a square orifice and four walls, a conforming triangulation (neighbouring
triangles share their edges and vertices), for `signorini generate silo -bin none -stl FILE`.

Usage: box_silo_stl.py [-width W] [-orifice D] [-height H] [-binary] out.stl
Defaults: the silo's, for spheres of radius 1 mm: W = 0.032 m, D = 0.012 m, H = 0.2 m."""
import struct
import sys

import numpy as np


def quads(width, orifice, height):
    a, h = 0.5 * width, 0.5 * orifice
    xs = [-a, -h, h, a]
    out = []
    for i in range(3):  # floor: the 3 x 3 grid of cells without the middle one (the orifice)
        for j in range(3):
            if (i, j) != (1, 1):
                out.append([(xs[i], xs[j], 0), (xs[i + 1], xs[j], 0), (xs[i + 1], xs[j + 1], 0), (xs[i], xs[j + 1], 0)])
    for i in range(3):  # walls, split where the floor's grid lines meet them
        u0, u1 = xs[i], xs[i + 1]
        out.append([(u0, -a, 0), (u1, -a, 0), (u1, -a, height), (u0, -a, height)])
        out.append([(u0, a, 0), (u1, a, 0), (u1, a, height), (u0, a, height)])
        out.append([(-a, u0, 0), (-a, u1, 0), (-a, u1, height), (-a, u0, height)])
        out.append([(a, u0, 0), (a, u1, 0), (a, u1, height), (a, u0, height)])
    tris = []
    for q in out:
        tris.append([q[0], q[1], q[2]])
        tris.append([q[0], q[2], q[3]])
    return np.array(tris, dtype=float)


def write(path, tris, binary):
    if binary:
        with open(path, 'wb') as f:
            f.write(b'box silo'.ljust(80, b' '))
            f.write(struct.pack('<I', len(tris)))
            for t in tris:
                f.write(struct.pack('<12fH', 0, 0, 0, *t.ravel(), 0))
        return
    with open(path, 'w') as f:
        f.write('solid box_silo\n')
        for t in tris:
            f.write('  facet normal 0 0 0\n    outer loop\n')
            for v in t:
                f.write(f'      vertex {v[0]:.17g} {v[1]:.17g} {v[2]:.17g}\n')
            f.write('    endloop\n  endfacet\n')
        f.write('endsolid box_silo\n')


def main(argv):
    width, orifice, height, binary, out = 0.032, 0.012, 0.2, False, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ('-width', '-orifice', '-height'):
            v = float(argv[i + 1]); i += 2
            if a == '-width': width = v
            elif a == '-orifice': orifice = v
            else: height = v
        elif a == '-binary':
            binary = True; i += 1
        elif a.startswith('-'):
            sys.exit(f'unknown option {a}\n{__doc__}')
        else:
            out = a; i += 1
    if not out:
        sys.exit(__doc__)
    tris = quads(width, orifice, height)
    write(out, tris, binary)
    print(f'{out}: {len(tris)} triangles ({"binary" if binary else "ASCII"})')


if __name__ == '__main__':
    main(sys.argv[1:])
