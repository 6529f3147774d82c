#!/usr/bin/env bash
# How accurate is a granular flow at a given time step and iteration budget? The discharge rate W of
# the box silo (`signorini generate silo -bin box`: 5,000 spheres of d = 2 mm, rho 2500, mu 0.5, a 32 mm bin
# with a 12 mm square orifice, SI units) measured at several dt and -solver_max_it, and W's dt -> 0
# limit from a least-squares line W(dt) = W0 + c dt through the runs at the default budget.
# Prints a table (W, its standard error by batch means, the deviation from W0, mean iterations, wall
# time) and writes silo_dt.png (W against dt) in the work folder.
# Usage: bench/silo_dt.sh [signorini binary] [work dir]
# Environment: RANKS (2), T_FINAL (0.6 s), WINDOW ("0.2 0.6" s), DTS ("240 480 1000 2000 4000": 1/dt),
#              BUDGETS ("100 300": -solver_max_it, at the two largest dt), GEN_ARGS (generate options; default -bin box)
set -euo pipefail
bin=$(realpath "${1:-build/signorini}")
work=${2:-silo_dt}
here=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
ranks=${RANKS:-2}
t_final=${T_FINAL:-0.6}
window=${WINDOW:-"0.2 0.6"}
dts=${DTS:-"240 480 1000 2000 4000"}
budgets=${BUDGETS:-"100 300"}
mkdir -p "$work" && cd "$work"
"$bin" generate silo ${GEN_ARGS:--bin box} -o silo.h5 > /dev/null
runs=()
for inv in $dts; do
  for budget in $budgets; do
    # extra budgets only at the two coarsest steps, where the iteration cap matters most
    if [ "$budget" != 100 ] && [ "$inv" != "$(echo $dts | cut -d' ' -f1)" ] && [ "$inv" != "$(echo $dts | cut -d' ' -f2)" ]; then continue; fi
    dt=$(python3 -c "print(repr(1.0 / $inv))")
    every=$(python3 -c "print(max(1, round($inv / 100)))") # a frame every ~10 ms
    name="dt${inv}_it${budget}"
    start=$(date +%s.%N)
    $mpiexec -n "$ranks" "$bin" run silo.h5 -o "$name.h5" -t_final "$t_final" -dt "$dt" -output_every "$every" \
      -solver_max_it "$budget" -progress_interval 0 > "$name.log"
    end=$(date +%s.%N)
    echo "$name $(python3 -c "print(f'{$end - $start:.1f}')")" >> walls.txt
    runs+=("$name")
  done
done
/usr/bin/python3 - "$window" "$here/scripts" "${runs[@]}" <<'PY'
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
from discharge_rate import discharged_mass, fit_rate
window = tuple(float(x) for x in sys.argv[1].split())
walls = dict(line.split() for line in open('walls.txt'))
rows = []
for name in sys.argv[3:]:
    t, m, _, _ = discharged_mass(name + '.h5', 0.0)
    w, _, err, _, _ = fit_rate(t, m, window)
    with h5py.File(name + '.h5', 'r') as f:
        its = f['stats/iterations'][()].mean(); conv = f['stats/converged'][()].mean(); rec = int(f['stats/recoveries'][()].sum())
    inv, budget = name[2:].split('_it')
    rows.append((int(inv), int(budget), w, err, its, conv, rec, float(walls[name])))
base = [r for r in rows if r[1] == 100]
dt = np.array([1.0 / r[0] for r in base]); W = np.array([r[2] for r in base]); E = np.array([max(r[3], 1e-12) for r in base])
A = np.vstack([dt, np.ones_like(dt)]).T / E[:, None]
(c, W0), *_ = np.linalg.lstsq(A, W / E, rcond=None)
cov = np.linalg.inv(A.T @ A)
print(f'dt -> 0 limit (weighted line through the budget-100 runs): W0 = {W0 * 1e3:.3f} +- {np.sqrt(cov[1, 1]) * 1e3:.3f} g/s')
print(f'{"1/dt":>6s} {"budget":>6s} {"W (g/s)":>9s} {"std err":>8s} {"W/W0-1":>8s} {"iters":>6s} {"conv":>5s} {"recov":>5s} {"wall s":>7s}')
for inv, budget, w, err, its, conv, rec, wall in rows:
    print(f'{inv:6d} {budget:6d} {w * 1e3:9.3f} {err * 1e3:8.3f} {w / W0 - 1:+8.3%} {its:6.1f} {conv:5.2f} {rec:5d} {wall:7.1f}')
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(6, 4))
for budget in sorted(set(r[1] for r in rows)):
    sel = [r for r in rows if r[1] == budget]
    ax.errorbar([1 / r[0] for r in sel], [r[2] * 1e3 for r in sel], yerr=[r[3] * 1e3 for r in sel], fmt='o', label=f'-solver_max_it {budget}')
xs = np.linspace(0, dt.max(), 20)
ax.plot(xs, (W0 + c * xs) * 1e3, 'k--', lw=1, label=f'fit, W0 = {W0 * 1e3:.2f} g/s')
ax.set_xlabel('dt (s)'); ax.set_ylabel('discharge rate W (g/s)'); ax.grid(alpha=0.3); ax.legend(fontsize=8)
fig.tight_layout(); fig.savefig('silo_dt.png', dpi=120)
print('plot: silo_dt.png')
PY
