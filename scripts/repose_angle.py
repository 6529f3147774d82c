#!/usr/bin/env python3
"""Dynamic angle of repose of the bed in a rotating drum (`signorini generate drum`, axis along y),
from signorini trajectories.

Usage: repose_angle.py [-window T0 T1] [-png FILE] out1.h5 [out2.h5 ...]

Per frame of the window (default: the second half of the run): the spheres are seen along the
drum's axis; the cross-section is cut into columns of one sphere diameter across the middle 60% of
the drum's diameter, and the free surface in a column is the top of its highest sphere; the angle
is that of the least-squares line through those tops, from the horizontal. Prints per file the
mean angle over the frames, its standard error (batch means over the frames, which are correlated:
batch_error.py), the number of frames and the drum's rotation rate and Froude number w^2 R / g.
-png draws the last frame's cross-section with its fitted surface.
"""
import sys

import h5py
import numpy as np

from batch_error import batch_error

SHAPE_SPHERE, SHAPE_CYLINDER = 0, 4


def drum_of(f, path):
    """Inner radius, angular velocity (about y) and |g| of the drum in the trajectory's scene."""
    b = f['scene/bodies']
    shells = np.flatnonzero(b['shape'][()] == SHAPE_CYLINDER)
    if shells.size == 0 or 'scene/motions' not in f:
        sys.exit(f'{path}: no rotating drum (a cylinder with a rotate motion) in its scene')
    R = b['size'][shells[0], 0]
    w = f['scene/motions/velocity'][0, 1]
    g = np.linalg.norm(f['scene/world/gravity'][()]) if 'scene/world/gravity' in f else 9.81
    return R, w, g


def surface_fit(x, z, r, R):
    """Slope and intercept of the line through the column tops, and the tops."""
    d = 2 * r.mean()
    edges = np.arange(-0.6 * R, 0.6 * R + 1e-12, d)
    tops = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (x >= lo) & (x < hi)
        if sel.any():
            k = np.argmax(z[sel] + r[sel])
            tops.append((0.5 * (lo + hi), (z[sel] + r[sel])[k]))
    tops = np.array(tops)
    if len(tops) < 4:
        return None
    slope, icpt = np.polyfit(tops[:, 0], tops[:, 1], 1)
    return slope, icpt, tops


def angles(path, window):
    with h5py.File(path, 'r') as f:
        R, w, g = drum_of(f, path)
        t = f['frames/time'][()]
        t0, t1 = window if window else (0.5 * t[-1], t[-1])
        ids = f['ids'] if 'ids' in f else f['scene/bodies']
        n = f['frames/position'].shape[1]
        shape, size, fixed = ids['shape'][:n], ids['size'][:n, 0], ids['fixed'][:n].astype(bool)
        moving = (shape == SHAPE_SPHERE) & ~fixed
        out, last = [], None
        for k in np.flatnonzero((t >= t0) & (t <= t1)):
            p = f['frames/position'][k]
            ok = moving & np.isfinite(p[:, 0])
            fit = surface_fit(p[ok, 0], p[ok, 2], size[ok], R)
            if fit:
                out.append(np.degrees(np.arctan(abs(fit[0]))))
                last = (p[ok, 0], p[ok, 2], size[ok], fit)
    if not out:
        sys.exit(f'{path}: no frame in the window [{t0:g}, {t1:g}] s with a free surface')
    return np.array(out), R, w, g, last


def plot(path, R, last, png):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    x, z, r, (slope, icpt, tops) = last
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.add_patch(plt.Circle((0, 0), R * 1e3, fill=False, color='k'))
    ax.scatter(x * 1e3, z * 1e3, s=4, alpha=0.5)
    xx = np.array([-0.6 * R, 0.6 * R])
    ax.plot(xx * 1e3, (slope * xx + icpt) * 1e3, 'r-', label=f'surface: {np.degrees(np.arctan(abs(slope))):.1f} deg')
    ax.plot(tops[:, 0] * 1e3, tops[:, 1] * 1e3, 'r.', ms=4)
    ax.set_aspect('equal'); ax.set_xlabel('x (mm)'); ax.set_ylabel('z (mm)'); ax.legend(fontsize=8)
    ax.set_title(path, fontsize=8)
    fig.tight_layout(); fig.savefig(png, dpi=120)
    print(f'plot: {png}')


def main(argv):
    window, png, files = None, None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '-window':
            window = (float(argv[i + 1]), float(argv[i + 2])); i += 3
        elif a == '-png':
            png = argv[i + 1]; i += 2
        elif a.startswith('-'):
            sys.exit(f'unknown option {a}\n{__doc__}')
        else:
            files.append(a); i += 1
    if not files:
        sys.exit(__doc__)
    print(f'{"file":36s} {"angle (deg)":>11s} {"std err":>8s} {"frames":>6s} {"w (rad/s)":>9s} {"Froude":>8s}')
    for p in files:
        a, R, w, g, last = angles(p, window)
        naive = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float('nan')
        err = batch_error(len(a), lambda k: a[k].mean(), naive)
        print(f'{p:36s} {a.mean():11.2f} {err:8.2f} {len(a):6d} {w:9.3f} {w * w * R / g:8.2e}')
    if png:
        plot(files[-1], R, last, png)


if __name__ == '__main__':
    main(sys.argv[1:])
