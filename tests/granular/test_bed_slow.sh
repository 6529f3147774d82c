#!/usr/bin/env bash
# Millimetre grains in SI units with default settings, on 2 ranks (issue: real granular scales):
#  1. a pour of 20,000 spheres of d = 2 mm (rho 2500 kg/m^3, mu 0.5) from a loose lattice into a
#     60 mm cylinder settles at dt = 1/240 s: it runs to the end, with at most 6 contacts per sphere
#     in every step (speculative contacts come from relative motion: spheres falling together are
#     not candidates of one another) and the spheres at rest at the end (largest speed < 5 mm/s);
#  2. that settled bed, run on for 1 s, stays at rest: the largest speed in every frame below
#     1 mm/s and the bed top (highest sphere centre) never more than 0.01 d above where it started
#     (a solver that injects energy lifts the bed).
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC, SG_SOURCE (the source tree).
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"
SG_CMD_TIMEOUT=1500
SRC=${SG_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}

section "pour 20,000 spheres of d = 2 mm into a 60 mm cylinder (2 ranks, 1.5 s)"
sg_run gen "$SG" generate pile -n 20000 -radius 0.001 -density 2500 -mu 0.5 -container cylinder -diameter 0.06 -o pour.h5
check "generate" [ "$RC" -eq 0 ]
t0=$(date +%s)
sg_run pour $MPIEXEC -n 2 "$SG" run pour.h5 -o pour_out.h5 -t_final 1.5 -progress_interval 60
t1=$(date +%s)
check "the pour runs to the end (exit 0, $((t1 - t0)) s)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { show_file pour.err; finish; }
"$PY" - <<'PY' && pass "at most 6 contacts per sphere in every step; at rest at the end" || fail "pour statistics"
import h5py, numpy as np
f = h5py.File('pour_out.h5', 'r')
nc = f['stats/n_contacts'][()]
n = 20000
v = f['frames/velocity'][-1][:, :3]
moving = ~f['scene/bodies/fixed'][()].astype(bool)
speed = np.linalg.norm(v[moving], axis=1).max()
print(f"    contacts per sphere: max {nc.max() / n:.2f} (step {nc.argmax() + 1}), last {nc[-1] / n:.2f}; "
      f"mean iterations {f['stats/iterations'][()].mean():.1f}; recoveries {f['stats/recoveries'][()].sum()}; "
      f"largest speed at the end {speed * 1e3:.2f} mm/s; max penetration {f['stats/max_penetration'][()].max() * 1e3:.3f} mm")
assert nc.max() <= 6 * n
assert speed < 5e-3
PY

section "the settled bed stays at rest for 1 s"
"$PY" "$SRC/scripts/frame_to_scene.py" pour_out.h5 bed.h5 > /dev/null
check "frame_to_scene" [ -s bed.h5 ]
sg_run rest $MPIEXEC -n 2 "$SG" run bed.h5 -o rest_out.h5 -t_final 1 -progress_interval 60
check "the bed runs 1 s (exit 0)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { show_file rest.err; finish; }
"$PY" - <<'PY' && pass "largest speed < 1 mm/s in every frame; bed top rises < 0.01 d" || fail "bed at rest"
import h5py, numpy as np
f = h5py.File('rest_out.h5', 'r')
moving = ~f['scene/bodies/fixed'][()].astype(bool)
v = f['frames/velocity'][()][:, moving, :3]
z = f['frames/position'][()][:, moving, 2]
speed = np.linalg.norm(v, axis=2).max(axis=1)
rise = z.max(axis=1) - z[0].max()
d = 2e-3
print(f"    largest speed per frame: max {speed.max() * 1e3:.3f} mm/s (frame {speed.argmax()}); "
      f"bed top rise: max {rise.max() / d:.2e} d; mean iterations {f['stats/iterations'][()].mean():.1f}; "
      f"steps converged {int(f['stats/converged'][()].sum())}/{len(f['stats/converged'])}")
assert speed.max() < 1e-3
assert rise.max() < 0.01 * d
PY
finish
