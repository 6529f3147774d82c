#!/usr/bin/env python3
"""Runout of a granular column collapse (`signorini generate collapse`) against the published
scalings for axisymmetric columns, from signorini trajectories.

Usage: runout.py [-png FILE] out1.h5 [out2.h5 ...]

Per trajectory: the column's radius r_i is the tube's (the kinematic cylinder of the scene); its
height h_i is the 98th percentile of the sphere tops (z + r, above the tops of the fixed spheres
of a rough base) in the frame before the tube starts to rise; a = h_i / r_i. The deposit is the last frame: its radius r_inf is the 99th percentile of the
spheres' distances from the axis plus their radius (stray grains do not count), its height h_inf the
98th percentile of the tops within r_i / 4 of the axis. Prints a, (r_inf - r_i) / r_i and
h_inf / r_i with the fits of Lube et al. (2004) for axisymmetric columns: (r_inf - r_i) / r_i =
1.24 a for a < 1.7, 1.6 a^(1/2) above, and h_inf / r_i = a for a < 0.74, 0.88 a^(1/6) above.
Warns when the deposit still moves (the mean speed in the last frame above 1% of sqrt(g h_i)).
-png draws the initial and final height profiles (the top sphere per radial bin) of each run.
"""
import sys

import h5py
import numpy as np

SHAPE_SPHERE, SHAPE_CYLINDER = 0, 4


def tube_of(f, path):
    b = f['scene/bodies']
    tubes = np.flatnonzero((b['shape'][()] == SHAPE_CYLINDER) & b['fixed'][()].astype(bool))
    if tubes.size == 0 or 'scene/motions' not in f:
        sys.exit(f'{path}: no tube (a kinematic cylinder with a motion) in its scene')
    release = f['scene/motions/window'][0, 0]
    g = np.linalg.norm(f['scene/world/gravity'][()]) if 'scene/world/gravity' in f else 9.81
    return b['size'][tubes[0], 0], release, g


def profile(rho, top, r_max, nbins=40):
    edges = np.linspace(0, r_max, nbins + 1)
    h = np.zeros(nbins)
    for k in range(nbins):
        sel = (rho >= edges[k]) & (rho < edges[k + 1])
        h[k] = top[sel].max() if sel.any() else 0.0
    return 0.5 * (edges[:-1] + edges[1:]), h


def measure(path):
    with h5py.File(path, 'r') as f:
        r_i, release, g = tube_of(f, path)
        t = f['frames/time'][()]
        before = np.flatnonzero(t < release)
        if before.size == 0:
            sys.exit(f'{path}: no frame before the release at t = {release:g} s')
        n = f['frames/position'].shape[1]
        ids = f['ids'] if 'ids' in f else f['scene/bodies']
        shape, size, fixed = ids['shape'][:n], ids['size'][:n, 0], ids['fixed'][:n].astype(bool)
        moving = (shape == SHAPE_SPHERE) & ~fixed
        p0, p1 = f['frames/position'][before[-1]], f['frames/position'][len(t) - 1]
        v1 = f['frames/velocity'][len(t) - 1]
        b = f['scene/bodies']
        grains = (b['shape'][()] == SHAPE_SPHERE) & b['fixed'][()].astype(bool)  # a rough base
        base = (b['position'][()][grains, 2] + b['size'][()][grains, 0]).max() if grains.any() else 0.0
    rho0, top0 = np.hypot(p0[moving, 0], p0[moving, 1]), p0[moving, 2] + size[moving] - base
    rho1, top1 = np.hypot(p1[moving, 0], p1[moving, 1]), p1[moving, 2] + size[moving] - base
    h_i = np.percentile(top0, 98)
    r_inf = np.percentile(rho1 + size[moving], 99)
    core = rho1 < 0.25 * r_i
    h_inf = np.percentile(top1[core], 98) if core.any() else 0.0
    speed = np.linalg.norm(v1[moving, :3], axis=1).mean()
    return dict(path=path, r_i=r_i, h_i=h_i, a=h_i / r_i, runout=(r_inf - r_i) / r_i, h_inf=h_inf / r_i,
                moving=speed > 0.01 * np.sqrt(g * h_i), t_end=t[-1],
                before=profile(rho0, top0, 1.2 * r_inf), after=profile(rho1, top1, 1.2 * r_inf))


def lube_runout(a):
    return 1.24 * a if a < 1.7 else 1.6 * np.sqrt(a)


def lube_height(a):
    return a if a < 0.74 else 0.88 * a ** (1.0 / 6.0)


def main(argv):
    png, files = None, []
    i = 0
    while i < len(argv):
        if argv[i] == '-png':
            png = argv[i + 1]; i += 2
        elif argv[i].startswith('-'):
            sys.exit(f'unknown option {argv[i]}\n{__doc__}')
        else:
            files.append(argv[i]); i += 1
    if not files:
        sys.exit(__doc__)
    rows = [measure(p) for p in files]
    print(f'{"file":32s} {"a":>6s} {"(r-ri)/ri":>10s} {"Lube":>6s} {"h/ri":>6s} {"Lube":>6s}')
    for r in rows:
        print(f"{r['path']:32s} {r['a']:6.2f} {r['runout']:10.2f} {lube_runout(r['a']):6.2f} {r['h_inf']:6.2f} {lube_height(r['a']):6.2f}"
              + ('   (still moving at the last frame)' if r['moving'] else ''))
    if png:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for r in rows:
            x, h = r['before']
            line, = ax.plot(x / r['r_i'], h / r['r_i'], '--', lw=1)
            x, h = r['after']
            ax.plot(x / r['r_i'], h / r['r_i'], color=line.get_color(), label=f"a = {r['a']:.2f}")
        ax.set_xlabel('r / r_i'); ax.set_ylabel('height / r_i'); ax.grid(alpha=0.3); ax.legend(fontsize=8)
        ax.set_title('column collapse: before the release (dashed) and the deposit', fontsize=9)
        fig.tight_layout(); fig.savefig(png, dpi=120)
        print(f'plot: {png}')


if __name__ == '__main__':
    main(sys.argv[1:])
