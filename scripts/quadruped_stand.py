#!/usr/bin/env python3
"""The quadruped's standing figures (issue 16's acceptance: base height drift below 1 mm, penetration
below 1 mm, contact residual reported) from a trajectory of `signorini generate quadruped` (one robot)
written with `-output_every 1`.

Usage: quadruped_stand.py [-settle T] out.h5
  base height  the free joint's translation z (frames/tree_q[:, 2]) at the start, at T (default 0.5 s)
               and at the end; drift: the largest |z(t) - z(T)| for t >= T;
  penetration  the largest of /stats/max_penetration over the steps;
  residual     paper 002 Sec. VII's contact residual (/stats/contact_residual): mean and largest;
  iterations   mean and largest per step, steps that hit the solver's cap (/stats/converged)."""
import sys

import h5py
import numpy as np


def main(argv):
    settle = 0.5
    if len(argv) > 2 and argv[0] == '-settle':
        settle, argv = float(argv[1]), argv[2:]
    if len(argv) != 1:
        sys.exit(__doc__)
    with h5py.File(argv[0], 'r') as f:
        t = f['frames/time'][()]
        z = f['frames/tree_q'][:, 2]
        st = f['stats']
        pen, res, it, conv = (st[k][()] for k in ('max_penetration', 'contact_residual', 'iterations', 'converged'))
    after = t >= settle - 1e-9
    if not after.any():
        sys.exit('quadruped_stand.py: error: the trajectory ends before %g s (%s)' % (settle, argv[0]))
    z_settled = z[after][0]
    print('base height: %.6f m at 0, %.6f m at %g s, %.6f m at %g s; drift after %g s %.3e m'
          % (z[0], z_settled, settle, z[-1], t[-1], settle, np.abs(z[after] - z_settled).max()))
    print('penetration: largest %.3e m over %d steps' % (pen.max(), len(pen)))
    print('contact residual (paper 002 Sec. VII): mean %.3e, largest %.3e' % (res.mean(), res.max()))
    print('iterations per step: mean %.1f, largest %d; %d steps at the cap' % (it.mean(), it.max(), int((conv == 0).sum())))


if __name__ == '__main__':
    main(sys.argv[1:])
