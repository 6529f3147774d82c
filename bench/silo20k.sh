#!/usr/bin/env bash
# Issue 14's benchmark silo: 20,000 spheres of d = 2 mm (rho 2500 kg/m^3, mu 0.5) in a 60 mm cylinder,
# an orifice of D/d = 8 behind a gate opened at 0.25 s, the discharged grains deleted 20 mm below it;
# 1 s of discharge on 2 ranks with the silo's run options. Prints the figures the issue asks for: the
# wall time of the discharge second (the steps after the gate opens, from /stats/wall_seconds), steps,
# iterations and added solves per step, contacts, mean contact residual, the largest penetration of
# each step (median, 90th percentile, max), W and Beverloo's C (scripts/beverloo.py), and the run's
# time by phase.
# Usage: bench/silo20k.sh [signorini binary] [work dir]
# Environment: RANKS (2), RUN_ARGS (extra run options, e.g. "-contact_margin_factor 0.2"), GEN_ARGS
#              (extra generate options), NAME (run name: out)
set -euo pipefail
bin=$(realpath "${1:-build/signorini}")
work=${2:-silo20k}
here=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
name=${NAME:-out}
gate=0.25
mkdir -p "$work" && cd "$work"
# generated every time: a scene left from another build or GEN_ARGS would carry its run options
"$bin" generate silo -n 20000 -radius 0.001 -width 0.06 -orifice 0.016 -gate_open $gate \
  -gate_speed 0.5 -outflow_depth 0.02 ${GEN_ARGS:-} -o silo20k.h5 > /dev/null
$mpiexec -n "${RANKS:-2}" "$bin" run silo20k.h5 -o "$name.h5" -t_final $(python3 -c "print($gate + 1)") \
  -progress_interval 0 ${RUN_ARGS:-} > "$name.log"
"${SG_PYTHON:-/usr/bin/python3}" - "$here/scripts" "$name.h5" "$gate" <<'PY'
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[1])
from beverloo import measure
path, gate = sys.argv[2], float(sys.argv[3])
with h5py.File(path, 'r') as f:
    s = {k: f['stats'][k][()] for k in ('time', 'wall_seconds', 'iterations', 'resolves', 'n_contacts',
                                         'contact_residual', 'max_penetration')}
m = s['time'] > gate + 1e-9
pen = s['max_penetration'][m] * 1e3
r = measure(path, (gate + 0.25, gate + 1.0), 1.5)
print(f"discharge second {s['wall_seconds'][m].sum():.1f} s ({m.sum()} steps); iterations per step "
      f"{s['iterations'][m].mean():.1f}; solves added per step {s['resolves'][m].mean():.3f}; contacts "
      f"{s['n_contacts'][m].mean():.0f}; mean contact residual {s['contact_residual'][m].mean():.3e}")
print(f"largest penetration per step: median {np.median(pen):.3f}, 90th percentile {np.percentile(pen, 90):.3f}, "
      f"max {pen.max():.3f} mm")
print(f"W over {gate + 0.25:g}-{gate + 1:g} s = {r['W'] * 1e3:.3f} +- {r['err'] * 1e3:.3f} g/s, bulk density "
      f"{r['rho_b']:.0f} kg/m^3, C = {r['C']:.3f} at k = 1.5 (Beverloo with C = 0.58: "
      f"{r['W'] * 0.58 / r['C'] * 1e3:.1f} g/s)")
PY
sed -n '/^timing over/,/^  halo per/p' "$name.log"
