#!/usr/bin/env python3
"""Packing-fraction and velocity profiles across the depth of a flowing layer, from signorini
trajectories (made for `signorini generate chute`; any scene with a floor at z = 0 works).

Usage: profiles.py [-window T0 T1] [-bin D] [-area A] [-png FILE] out1.h5 [out2.h5 ...]

The depth is cut into slabs of -bin sphere diameters (default 0.5) along z. In each frame of the
window (default: the second half of the run) a slab's packing fraction is the volume of the moving
spheres inside it (each sphere's exact intersection with the slab) over the slab's volume, its
horizontal area the periodic cell's (x by y) or -area (m^2) for a scene without a cell; its
velocity is the mean velocity of the spheres whose centres lie in it. Profiles are averaged over
the frames. Prints per file and per slab z / d (from the base's top, the highest fixed sphere's
top, or z = 0), the packing fraction and the flow velocity v_x / sqrt(g d); with a trajectory
written with `run -output_stress`, also the coarse-grained stress of the slab (Pa, tension positive:
the stress moments of the spheres centred in it over its volume, plus the kinetic part -sum m v'v'),
sigma_zz against the weight of the layer above, and sigma_xz / sigma_zz against g_x / g_z (minus
tan(angle)), which a steady uniform flow on an incline has at every depth; then the depth H of
the layer (where the packing fraction falls below half its bulk value) and the least-squares fit of
Bagnold's profile for a steady flow on a rough incline, v(z) = A (H^(3/2) - (H - z)^(3/2))
(Silbert et al. 2001), with its relative rms misfit. -png draws the profiles.
"""
import sys

import h5py
import numpy as np

SHAPE_SPHERE = 0


def slab_volume(z, r, lo, hi):
    """Volume of each sphere (centre height z, radius r) between the planes lo and hi."""
    a = np.clip(lo - z, -r, r)
    b = np.clip(hi - z, -r, r)
    # integral of pi (r^2 - s^2) ds from a to b
    return np.pi * (r * r * (b - a) - (b ** 3 - a ** 3) / 3.0)


def scene_facts(f, path, area):
    """Moving spheres, the base's top, g and the horizontal area of a slab."""
    b = f['scene/bodies']
    shape, size, fixed = b['shape'][()], b['size'][:, 0], b['fixed'][()].astype(bool)
    base = fixed & (shape == SHAPE_SPHERE)
    base_top = (b['position'][()][base, 2] + size[base]).max() if base.any() else 0.0
    g = np.linalg.norm(f['scene/world/gravity'][()])
    if area is None:
        if 'scene/world/period_lo' not in f:
            sys.exit(f'{path}: no periodic cell in its scene: give the slabs\' horizontal area with -area')
        L = f['scene/world/period_hi'][()] - f['scene/world/period_lo'][()]
        if not (L[0] > 0 and L[1] > 0):
            sys.exit(f'{path}: the periodic cell is not periodic along x and y: give -area')
        area = L[0] * L[1]
    return base_top, g, area


def profiles(path, window, bin_d, area):
    with h5py.File(path, 'r') as f:
        base_top, g, area = scene_facts(f, path, area)
        ids = f['ids'] if 'ids' in f else f['scene/bodies']
        n = f['frames/position'].shape[1]
        shape, r, fixed = ids['shape'][:n], ids['size'][:n, 0], ids['fixed'][:n].astype(bool)
        moving = (shape == SHAPE_SPHERE) & ~fixed
        d = 2 * r[moving].mean()
        t = f['frames/time'][()]
        t0, t1 = window if window else (0.5 * t[-1], t[-1])
        frames = np.flatnonzero((t >= t0) & (t <= t1))
        if frames.size == 0:
            sys.exit(f'{path}: no frame in the window [{t0}, {t1}] s')
        top = max((f['frames/position'][k][moving, 2] + r[moving]).max() for k in frames)
        edges = np.arange(base_top, top + bin_d * d, bin_d * d)
        phi = np.zeros(len(edges) - 1)
        vel = np.zeros(len(edges) - 1)
        counts = np.zeros(len(edges) - 1)
        has_stress = 'frames/stress' in f
        stress = np.zeros((len(edges) - 1, 3, 3))
        mass = ids['density'][:n][moving] * 4.0 / 3.0 * np.pi * r[moving] ** 3
        for k in frames:
            x = f['frames/position'][k][moving]
            v3 = f['frames/velocity'][k][moving, :3]
            present = np.isfinite(x[:, 2])
            z, rr, v3, m = x[present, 2], r[moving][present], v3[present], mass[present]
            v = v3[:, 0]
            W = f['frames/stress'][k][moving][present].reshape(-1, 3, 3) if has_stress else None
            for s in range(len(edges) - 1):
                volume = area * (edges[s + 1] - edges[s])
                phi[s] += slab_volume(z, rr, edges[s], edges[s + 1]).sum() / volume
                inside = (z >= edges[s]) & (z < edges[s + 1])
                vel[s] += v[inside].sum()
                counts[s] += inside.sum()
                if has_stress and inside.any():
                    # contact part: the stress moments of the spheres centred in the slab (Love-Weber);
                    # kinetic part: -sum m v' v' with v' the velocity less the slab's mean
                    fluct = v3[inside] - v3[inside].mean(axis=0)
                    kinetic = -np.einsum('i,ia,ib->ab', m[inside], fluct, fluct)
                    stress[s] += (np.nansum(W[inside], axis=0) + kinetic) / volume
        phi /= frames.size
        vel = np.where(counts > 0, vel / np.maximum(counts, 1), np.nan)
        zc = 0.5 * (edges[:-1] + edges[1:]) - base_top
        stress = stress / frames.size if has_stress else None
        return zc / d, phi, vel / np.sqrt(g * d), t0, t1, stress


def bagnold_fit(z, phi, v):
    """Depth H (in d) where phi falls below half its bulk value, and the fit of A (H^1.5 - (H - z)^1.5)."""
    bulk = np.median(phi[phi > 0.5 * phi.max()])
    deep = np.flatnonzero(phi >= 0.5 * bulk)
    H = z[deep[-1]] + 0.5 * (z[1] - z[0])
    sel = (z > 0) & (z < H) & np.isfinite(v)
    shape = H ** 1.5 - (H - z[sel]) ** 1.5
    A = np.dot(shape, v[sel]) / np.dot(shape, shape)
    misfit = np.sqrt(np.mean((A * shape - v[sel]) ** 2)) / np.max(np.abs(v[sel]))
    return H, bulk, A, misfit


def print_stress(path, z, phi, v, stress):
    """The profiles with the stress (Pa; tension positive) and the momentum balance of a steady
    uniform layer on an incline: sigma_zz(z) = minus the weight (along z) of the layer above per area,
    sigma_xz / sigma_zz = g_x / g_z (minus the tangent of the angle) at every depth."""
    with h5py.File(path, 'r') as f:
        gvec = f['scene/world/gravity'][()]
        b = f['scene/bodies']
        moving = ~b['fixed'][()].astype(bool)
        rho = b['density'][()][moving].mean()
    dz = (z[1] - z[0]) if len(z) > 1 else 1.0
    d_over = None
    print('   z/d    phi   v/sqrt(gd)   sigma_zz (Pa)  overburden (Pa)   sigma_xz/sigma_zz')
    with h5py.File(path, 'r') as f:
        ids = f['ids'] if 'ids' in f else f['scene/bodies']
        n = f['frames/position'].shape[1]
        rr = ids['size'][:n, 0][ids['fixed'][:n] == 0]
        d_over = 2 * rr.mean()
    # the weight of the layer above each slab's middle, per area, along z: rho |g_z| integral of phi
    above = np.array([phi[k + 1:].sum() * dz + 0.5 * phi[k] * dz for k in range(len(z))]) * d_over
    overburden = -rho * abs(gvec[2]) * above
    for k in range(len(z)):
        szz, sxz = stress[k, 2, 2], stress[k, 0, 2]
        ratio = sxz / szz if szz != 0 else np.nan
        print(f'{z[k]:6.2f}  {phi[k]:5.3f}  {v[k]:9.3f}   {szz:13.2f}  {overburden[k]:15.2f}   {ratio:8.3f}')
    deep = (phi > 0.4) & (z > 1)
    if deep.any():
        ratio = np.median(stress[deep, 0, 2] / stress[deep, 2, 2])
        print(f'  bulk: median sigma_xz / sigma_zz = {ratio:.3f} (steady uniform flow: g_x / g_z = {gvec[0] / gvec[2]:.3f}); '
              f'sigma_zz / overburden = {np.median(stress[deep, 2, 2] / overburden[deep]):.3f}')


def main(argv):
    window, png, bin_d, area, files = None, None, 0.5, None, []
    i = 0
    while i < len(argv):
        if argv[i] == '-window':
            window = (float(argv[i + 1]), float(argv[i + 2]))
            i += 3
        elif argv[i] in ('-bin', '-area', '-png'):
            if argv[i] == '-bin':
                bin_d = float(argv[i + 1])
            elif argv[i] == '-area':
                area = float(argv[i + 1])
            else:
                png = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not files:
        sys.exit(__doc__)
    results = []
    for path in files:
        z, phi, v, t0, t1, stress = profiles(path, window, bin_d, area)
        H, bulk, A, misfit = bagnold_fit(z, phi, v)
        print(f'{path}: frames in [{t0:.3g}, {t1:.3g}] s')
        if stress is None:
            print('   z/d    phi   v/sqrt(gd)')
            for zz, p, vv in zip(z, phi, v):
                print(f'{zz:6.2f}  {p:5.3f}  {vv:9.3f}')
        else:
            print_stress(path, z, phi, v, stress)
        print(f'  depth H = {H:.2f} d, bulk packing fraction {bulk:.3f}; Bagnold fit v = {A:.4f} (H^1.5 - (H - z)^1.5) '
              f'sqrt(gd), rms misfit {100 * misfit:.1f}% of the surface velocity')
        results.append((path, z, phi, v, H, A))
    if png:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 5), sharey=True)
        for path, z, phi, v, H, A in results:
            a1.plot(phi, z, 'o-', label=path)
            line = a2.plot(v, z, 'o', label=path)[0]
            zz = np.linspace(0, H, 50)
            a2.plot(A * (H ** 1.5 - (H - zz) ** 1.5), zz, '-', color=line.get_color(), label='Bagnold fit')
        a1.set_xlabel('packing fraction')
        a1.set_ylabel('z / d above the base')
        a2.set_xlabel('v_x / sqrt(g d)')
        a1.legend(fontsize=7)
        a2.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        print(f'wrote {png}')


if __name__ == '__main__':
    main(sys.argv[1:])
