#!/usr/bin/env python3
"""Is a velocity a solution of an FCLIB global problem?  A check that uses no solver of ours.

    python3 scripts/fclib_certify.py problem.fclib.hdf5 --solution sol.hdf5
    python3 scripts/fclib_certify.py step.fclib.hdf5 --trajectory out.h5 --frame K --scene scene.h5

The problem is M v = H r + f, u = H^T v + w, with Coulomb's law per contact (normal row first):
r in the cone K_mu, u_n >= 0, complementarity, and r_t opposite to a sliding u_t with |r_t| = mu r_n.
Given v, the contacts are classified from u (open: u_n > tol; sliding: |u_t| > tol; else sticking),
and r is sought on the generators the law allows (none for an open contact, n - mu u_t/|u_t| for a
sliding one, K_GEN directions on the cone's boundary for a sticking one: an inner polyhedral cone) with
non-negative weights by NNLS. A relative residual ||H r - (M v - f)|| / ||M v - f|| near round-off
certifies v (with that r) as a solution; a large one says no r in the (polyhedral) cone fits.

--trajectory takes the velocities of a frame of a `signorini run` output (the frame after the dumped
step: -fclib_dump_step K gives the problem whose solution is frame K), of the scene's moving bodies
in id order, converted to the dump's units (read from its description); this holds while no body has
entered or left. Prints the classification, min u_n and the residual; exits 1 if the relative
residual exceeds --rtol.
"""
import argparse
import re
import sys

import h5py
import numpy as np
import scipy.optimize as so
import scipy.sparse as sp

K_GEN = 16


def csc(g):
    m, n = int(g['m'][0]), int(g['n'][0])
    return sp.csc_matrix((g['x'][()], g['i'][()], g['p'][()]), shape=(m, n))


def frame_velocity(problem, args):
    desc = problem['info/description'][()]
    desc = desc.decode() if isinstance(desc, bytes) else str(desc)
    units = re.search(r'length ([0-9.eE+-]+) m, time ([0-9.eE+-]+) s', desc)
    if not units:
        sys.exit('fclib_certify: error: no units in the description of %s' % args.problem)
    length, time = float(units.group(1)), float(units.group(2))
    fixed = h5py.File(args.scene, 'r')['bodies/fixed'][()].astype(bool)
    vel = h5py.File(args.trajectory, 'r')['frames/velocity'][args.frame][:len(fixed)][~fixed]
    scale = np.array([length / time] * 3 + [1.0 / time] * 3)
    return (vel / scale).ravel()


def generators(u, mu, tol):
    cols, kinds = [], {'open': 0, 'sliding': 0, 'sticking': 0}
    for c in range(len(mu)):
        un, ut = u[3 * c], u[3 * c + 1:3 * c + 3]
        if un > tol:
            kinds['open'] += 1
            continue
        if np.linalg.norm(ut) > tol:
            kinds['sliding'] += 1
            dirs = [-ut / np.linalg.norm(ut)]
        else:
            kinds['sticking'] += 1
            dirs = [np.array([np.cos(a), np.sin(a)]) for a in 2 * np.pi * np.arange(K_GEN) / K_GEN]
        for d in dirs:
            g = np.zeros(len(u))
            g[3 * c] = 1.0
            g[3 * c + 1:3 * c + 3] = mu[c] * d
            cols.append(g)
    return np.array(cols).T if cols else np.zeros((len(u), 0)), kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('problem')
    ap.add_argument('--solution', help='an HDF5 file with /solution/v (fclib -write_solution)')
    ap.add_argument('--trajectory')
    ap.add_argument('--frame', type=int)
    ap.add_argument('--scene')
    ap.add_argument('--tol', type=float, default=1e-7, help='velocity threshold of the classification (problem units)')
    ap.add_argument('--rtol', type=float, default=1e-8, help='largest relative residual that certifies')
    args = ap.parse_args()
    problem = h5py.File(args.problem, 'r')['fclib_global']
    if args.solution:
        v = h5py.File(args.solution, 'r')['solution/v'][()]
    elif args.trajectory and args.frame is not None and args.scene:
        v = frame_velocity(problem, args)
    else:
        sys.exit('fclib_certify: error: give --solution, or --trajectory, --frame and --scene')
    M, H = csc(problem['M']), csc(problem['H'])
    f, w, mu = problem['vectors/f'][()], problem['vectors/w'][()], problem['vectors/mu'][()]
    u = H.T @ v + w
    rhs = M @ v - f
    G, kinds = generators(u, mu, args.tol)
    A = (H @ sp.csc_matrix(G)).toarray() if G.shape[1] else np.zeros((len(rhs), 0))
    res = so.nnls(A, rhs, maxiter=50 * max(A.shape[1], 1))[1] if A.shape[1] else np.linalg.norm(rhs)
    rel = res / max(np.linalg.norm(rhs), 1e-300)
    print('%d contacts: %d open, %d sliding, %d sticking; min u_n %.3e' %
          (len(mu), kinds['open'], kinds['sliding'], kinds['sticking'], u[0::3].min() if len(mu) else 0.0))
    print('||H r - (M v - f)|| = %.3e of ||M v - f|| = %.3e: relative %.2e (%s)' %
          (res, np.linalg.norm(rhs), rel, 'a solution' if rel <= args.rtol and u[0::3].min() >= -args.tol
           else 'not certified'))
    return 0 if rel <= args.rtol and (len(mu) == 0 or u[0::3].min() >= -args.tol) else 1


if __name__ == '__main__':
    sys.exit(main())
