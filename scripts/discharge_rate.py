#!/usr/bin/env python3
"""Mass flow rate through a horizontal plane from signorini trajectories (a silo's discharge).

Usage: discharge_rate.py [-z Z] [-window T0 T1] [-png FILE] [-label NAME ...] out1.h5 [out2.h5 ...]

For each trajectory: the discharged mass M(t) = mass of the moving bodies whose centre is below
z = Z (default 0, the floor of `signorini generate silo`), per frame, plus that of the bodies an
outflow deleted below Z by then (/deleted); the rate W is the slope of a least-squares line
through M(t) over the window (default: the second and third quarters of the run, after the start-up
transient and before the bin runs low), with its standard error by batch means (the window's frames
cut into 5 runs, W fitted in each, their spread over sqrt(5); fit_rate). Prints one line per file:
W (kg/s), its standard error, bodies per second, the number of frames in the window. -png draws
M(t) of every file and the fitted lines."""
import sys

import h5py
import numpy as np

from batch_error import batch_error


def body_table(f):
    """shape, size, density and fixed flag of every id of the frames: /ids (row = id), or in files
    without it (a body set that never changes) /scene/bodies."""
    src = f['ids'] if 'ids' in f else f['scene/bodies']
    return src['shape'][()], src['size'][()], src['density'][()], src['fixed'][()].astype(bool)


def deleted_below(f, t, z_plane):
    """Mass and number of the bodies deleted (by an outflow) below the plane up to each frame time."""
    if 'deleted' not in f or f['deleted/gid'].shape[0] == 0:
        return np.zeros(len(t)), np.zeros(len(t), dtype=int)
    when, mass = f['deleted/time'][()], f['deleted/mass'][()]  # sorted by time
    gone = f['deleted/position'][:, 2] < z_plane
    upto = np.searchsorted(when, t, side='right')  # events at or before each frame
    cum_m, cum_n = np.concatenate(([0.0], np.cumsum(mass * gone))), np.concatenate(([0], np.cumsum(gone)))
    return cum_m[upto], cum_n[upto]


def discharged_mass(path, z_plane):
    with h5py.File(path, 'r') as f:
        t = f['frames/time'][()]
        pos = f['frames/position']
        n = pos.shape[1]
        # rows of ids absent from a frame (inflow, outflow) are NaN: never below the plane
        present = f['frames/present'][()].astype(bool) if 'frames/present' in f else np.ones((len(t), n), bool)
        shape, size, density, fixed = body_table(f)
        moving = ~fixed[:n] & present.any(axis=0)
        if np.any(shape[:n][moving] != 0):
            sys.exit(f'{path}: only sphere piles are handled (moving bodies that are not spheres)')
        mass = density[:n][moving] * 4.0 / 3.0 * np.pi * size[:n][moving, 0] ** 3
        z = pos[:, moving, 2]
        m_gone, n_gone = deleted_below(f, t, z_plane)
    below = (z < z_plane) & present[:, moving]
    return t, below @ mass + m_gone, below.sum(axis=1) + n_gone, mass.mean()


def line_fit(t, m):
    """Slope and intercept of the least-squares line through (t, m), and the slope's standard error
    from the residuals (which takes them as independent)."""
    A = np.vstack([t, np.ones(len(t))]).T
    coef, res, _, _ = np.linalg.lstsq(A, m, rcond=None)
    sigma2 = float(res[0]) / max(len(t) - 2, 1) if res.size else 0.0
    return coef[0], coef[1], float(np.sqrt(sigma2 * np.linalg.inv(A.T @ A)[0, 0]))


def fit_rate(t, m, window):
    """W over the window, the slope of the least-squares line through M(t), and its standard error
    by batch means (batch_error.py: W fitted over each fifth of the window's frames). A discharge's
    rate fluctuates over many frames, so the line's residuals are correlated and their own error
    understates W's; it is returned where larger, or where the window holds fewer than 9 frames."""
    t0, t1 = window if window else (0.25 * t[-1], 0.75 * t[-1])
    sel = (t >= t0) & (t <= t1)
    n = int(sel.sum())
    if n < 3:
        sys.exit(f'fewer than 3 frames in the window [{t0:g}, {t1:g}] s')
    ts, ms = t[sel], m[sel]
    w, c, line_err = line_fit(ts, ms)
    return w, c, batch_error(n, lambda k: line_fit(ts[k], ms[k])[0], line_err), n, (t0, t1)


def main(argv):
    z, window, png, labels, files = 0.0, None, None, [], []
    k = 0
    while k < len(argv):
        a = argv[k]
        if a == '-z':
            z = float(argv[k + 1]); k += 2
        elif a == '-window':
            window = (float(argv[k + 1]), float(argv[k + 2])); k += 3
        elif a == '-png':
            png = argv[k + 1]; k += 2
        elif a == '-label':
            labels.append(argv[k + 1]); k += 2
        elif a.startswith('-'):
            sys.exit(f'unknown option {a}\n{__doc__}')
        else:
            files.append(a); k += 1
    if not files:
        sys.exit(__doc__)
    curves = []
    print(f'{"file":40s} {"W (kg/s)":>12s} {"std err":>10s} {"bodies/s":>10s} {"frames":>6s}')
    for i, path in enumerate(files):
        t, m, count, m1 = discharged_mass(path, z)
        w, c, err, n, win = fit_rate(t, m, window)
        print(f'{path:40s} {w:12.5e} {err:10.2e} {w / m1:10.1f} {n:6d}')
        curves.append((labels[i] if i < len(labels) else path, t, m, w, c, win))
    if png:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, t, m, w, c, win in curves:
            line, = ax.plot(t, m * 1e3, label=f'{label}: W = {w * 1e3:.3g} g/s')
            tt = np.array(win)
            ax.plot(tt, (w * tt + c) * 1e3, '--', color=line.get_color(), lw=1)
        ax.set_xlabel('t (s)')
        ax.set_ylabel(f'mass below z = {z:g} m (g)')
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(png, dpi=120)
        print(f'plot: {png}')


if __name__ == '__main__':
    main(sys.argv[1:])
