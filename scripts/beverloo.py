#!/usr/bin/env python3
"""Silo discharge against Beverloo's law, W = C rho_b sqrt(g) (D - k d)^(5/2), from signorini
trajectories of cylindrical silos (`signorini generate silo`, flat floor with a circular orifice).

Usage: beverloo.py [-window T0 T1] [-k K] [-png FILE] [-summary] out1.h5 [out2.h5 ...]

For each trajectory (its scene holds the walls and the spheres):
  D      the orifice's diameter (twice the hole radius of the floor disk);
  d      the mean sphere diameter;
  rho_b  the bulk density of the bed at the start of the window (the frame nearest T0): the mass of
         the spheres whose centre lies in the core of the bed (2 d from the shell, from the floor and
         from the free surface, the 98th percentile of the heights there) over the core's volume;
  W      the mass flow rate through the orifice's plane over the window (scripts/discharge_rate.py),
         with its standard error (batch means, discharge_rate.fit_rate);
  C      W / (rho_b sqrt(g) (D - k d)^(5/2)) at the given k (default 1.5), Beverloo's coefficient,
         which the literature puts at 0.55-0.65 for spheres (Beverloo et al. 1961; Nedderman 1992).
With several orifices: the exponent of W against (D - k d) (log-log least squares; 5/2 by the law),
and C and k from the straight line W^(2/5) = (C rho_b sqrt g)^(2/5) (D - k d) (slope and intercept,
rho_b the mean), each with the standard error that the W's errors give it. -png plots W^(2/5)
against D with that line. -summary prints one line per file (for a job's log) instead of the table.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from discharge_rate import discharged_mass, fit_rate  # noqa: E402

SHAPE_SPHERE, SHAPE_CYLINDER, SHAPE_DISK = 0, 4, 6


def silo_geometry(f, path):
    """Orifice diameter, shell radius, mean sphere diameter and |g| of the trajectory's scene."""
    b = f['scene/bodies']
    shape, size, fixed = b['shape'][()], b['size'][()], b['fixed'][()].astype(bool)
    floors = np.flatnonzero((shape == SHAPE_DISK) & fixed & (size[:, 0] > 0))
    shells = np.flatnonzero((shape == SHAPE_CYLINDER) & fixed)
    if floors.size == 0 or shells.size == 0:
        sys.exit(f'{path}: no cylindrical silo (a cylinder and a floor disk with a hole) in its scene')
    spheres = (shape == SHAPE_SPHERE) & ~fixed
    if not spheres.any():
        sys.exit(f'{path}: no moving spheres in its scene')
    g = np.linalg.norm(f['scene/world/gravity'][()]) if 'scene/world/gravity' in f else 9.81
    return 2 * size[floors[0], 0], size[shells[0], 0], 2 * size[spheres, 0].mean(), g


def bulk_density(f, t0, shell_r, d):
    """Mass over volume of the bed's core at the frame nearest t0 (centres counted)."""
    t = f['frames/time'][()]
    k = int(np.argmin(np.abs(t - t0)))
    pos = f['frames/position'][k]
    n = pos.shape[0]
    ids = f['ids'] if 'ids' in f else f['scene/bodies']
    shape, size, dens, fixed = ids['shape'][:n], ids['size'][:n], ids['density'][:n], ids['fixed'][:n].astype(bool)
    ok = (shape == SHAPE_SPHERE) & ~fixed & np.isfinite(pos[:, 2])
    rho = np.hypot(pos[:, 0], pos[:, 1])
    core_r = shell_r - 2 * d
    inner = ok & (rho < core_r) & (pos[:, 2] > 0)
    if inner.sum() < 50:
        return float('nan')
    top = np.percentile(pos[inner, 2], 98) - 2 * d
    z0 = 2 * d
    if top <= z0:
        return float('nan')
    core = inner & (pos[:, 2] > z0) & (pos[:, 2] < top)
    mass = dens[core] * 4.0 / 3.0 * np.pi * size[core, 0] ** 3
    return mass.sum() / (np.pi * core_r ** 2 * (top - z0))


def measure(path, window, k):
    t, m, _, _ = discharged_mass(path, 0.0)
    w, _, err, frames, win = fit_rate(t, m, window)
    with h5py.File(path, 'r') as f:
        D, R, d, g = silo_geometry(f, path)
        rho_b = bulk_density(f, win[0], R, d)
    C = w / (rho_b * np.sqrt(g) * (D - k * d) ** 2.5) if D > k * d else float('nan')
    return dict(path=path, D=D, d=d, R=R, g=g, rho_b=rho_b, W=w, err=err, C=C, window=win, frames=frames)


def line_with_errors(x, y, sigma):
    """Least-squares line y = a x + b (unweighted) and the covariance of (a, b) that independent
    errors sigma of the y give it: P diag(sigma^2) P^T with P = (A^T A)^-1 A^T."""
    A = np.vstack([x, np.ones(len(x))]).T
    P = np.linalg.solve(A.T @ A, A.T)
    return P @ y, P @ np.diag(sigma ** 2) @ P.T


def fit_across(rows, k):
    """Exponent of W against (D - k d), and C, k from W^(2/5) linear in D, with their standard errors
    from those of the W (the slow fluctuations of a discharge that batch means capture)."""
    D = np.array([r['D'] for r in rows]); W = np.array([r['W'] for r in rows]); d = np.mean([r['d'] for r in rows])
    err = np.array([r['err'] for r in rows])
    rho_b, g = np.nanmean([r['rho_b'] for r in rows]), rows[0]['g']
    x = D - k * d
    expo, expo_err = float('nan'), float('nan')
    if np.all(x > 0):
        (expo, _), cov = line_with_errors(np.log(x), np.log(W), err / W)
        expo_err = np.sqrt(cov[0, 0])
    (slope, icpt), cov = line_with_errors(D, W ** 0.4, 0.4 * W ** -0.6 * err)
    C_fit = slope ** 2.5 / (rho_b * np.sqrt(g))
    k_fit = -icpt / slope / d
    C_err = 2.5 * C_fit * np.sqrt(cov[0, 0]) / slope
    grad = np.array([icpt / (slope ** 2 * d), -1 / (slope * d)])  # dk/d(slope), dk/d(icpt)
    k_err = np.sqrt(grad @ cov @ grad)
    return expo, C_fit, k_fit, slope, icpt, (expo_err, C_err, k_err)


def plot(rows, fit, png):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    D = np.array([r['D'] for r in rows]); W = np.array([r['W'] for r in rows])
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot(D * 1e3, W ** 0.4, 'o', label='signorini')
    if fit:
        _, C_fit, k_fit, slope, icpt, _ = fit
        dd = np.linspace(0, D.max() * 1.05, 50)
        ax.plot(dd * 1e3, slope * dd + icpt, '--', label=f'fit: C = {C_fit:.3f}, k = {k_fit:.2f}')
    ax.set_xlabel('orifice diameter D (mm)')
    ax.set_ylabel('W^(2/5) ((kg/s)^(2/5))')
    ax.set_xlim(left=0); ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3); ax.legend(fontsize=8)
    fig.tight_layout(); fig.savefig(png, dpi=120)
    print(f'plot: {png}')


def main(argv):
    window, k, png, summary, files = None, 1.5, None, False, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '-window':
            window = (float(argv[i + 1]), float(argv[i + 2])); i += 3
        elif a == '-k':
            k = float(argv[i + 1]); i += 2
        elif a == '-png':
            png = argv[i + 1]; i += 2
        elif a == '-summary':
            summary = True; i += 1
        elif a.startswith('-'):
            sys.exit(f'unknown option {a}\n{__doc__}')
        else:
            files.append(a); i += 1
    if not files:
        sys.exit(__doc__)
    rows = [measure(p, window, k) for p in files]
    for r in rows:
        if summary:
            print(f"discharge: W = {r['W'] * 1e3:.2f} +- {r['err'] * 1e3:.2f} g/s over t = {r['window'][0]:g}-{r['window'][1]:g} s "
                  f"(D/d = {r['D'] / r['d']:.1f}, bulk density {r['rho_b']:.0f} kg/m^3); Beverloo's C = {r['C']:.3f} at k = {k:g} "
                  f"(literature 0.55-0.65)")
    if not summary:
        print(f'{"file":32s} {"D/d":>5s} {"rho_b":>7s} {"W (g/s)":>9s} {"err":>6s} {"C":>6s}')
        for r in rows:
            print(f"{r['path']:32s} {r['D'] / r['d']:5.1f} {r['rho_b']:7.0f} {r['W'] * 1e3:9.3f} {r['err'] * 1e3:6.3f} {r['C']:6.3f}")
    fit = fit_across(rows, k) if len({round(r['D'], 9) for r in rows}) >= 3 else None
    if fit:
        expo_err, C_err, k_err = fit[5]
        print(f'exponent of W against (D - {k:g} d): {fit[0]:.3f} +- {expo_err:.3f} (Beverloo: 2.5); '
              f'from W^(2/5) linear in D: C = {fit[1]:.3f} +- {C_err:.3f}, k = {fit[2]:.2f} +- {k_err:.2f}')
    if png:
        plot(rows, fit, png)


if __name__ == '__main__':
    main(sys.argv[1:])
