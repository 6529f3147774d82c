#!/usr/bin/env bash
# Millimetre grains in SI units with default settings, on 2 ranks (issue: real granular scales):
#  1. a pour of 20,000 spheres of d = 2 mm (rho 2500 kg/m^3, mu 0.5) from a loose lattice into a
#     60 mm cylinder runs to the end at dt = 1/240 s with at most 6 contacts per sphere in every step
#     (speculative contacts come from relative motion: spheres falling together are not candidates
#     of one another), and no sphere ever moves faster than the fall from the top of the lattice
#     allows, sqrt(2 g z_top) (energy is never created: a blow-up would break it);
#  2. the bed, run on for 1 s from the pour's checkpoint (the warm start kept), stays at rest: the
#     largest speed below 1 mm/s in every frame and its top (highest sphere centre) never more than
#     0.01 d above where it started.
# Part 2 FAILS, on the largest speed: with the pile's run options (over-relaxation 1.8 and the contact
# stop at 1e-4, which `generate pile` writes into the scene) every step of the bed stops on the contact
# residual, the top stays within 0.004 d and the median speed below 0.4 mm/s, but a few spheres to a few
# hundred keep moving at 1-70 mm/s (the figures of the last runs: README, "Status and known gaps"). With the built-in defaults (`-scene_options false`: 100 iterations per step)
# SubADMM stalls on this deep frictional bed (mu = 0.5 is past the friction at which its Coulomb
# solution repels the iteration, docs/SOLVERS.md "Frictional piles") and the bed breathes, its top
# moving by about 0.3 d with a period near 0.2 s and median speeds of 3-20 mm/s. The test prints the
# figures.
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"
SG_CMD_TIMEOUT=1500

section "pour 20,000 spheres of d = 2 mm into a 60 mm cylinder (2 ranks, 1.5 s)"
sg_run gen "$SG" generate pile -n 20000 -radius 0.001 -density 2500 -mu 0.5 -container cylinder -diameter 0.06 -o pour.h5
check "generate" [ "$RC" -eq 0 ]
t0=$(date +%s)
sg_run pour $MPIEXEC -n 2 "$SG" run pour.h5 -o pour_out.h5 -t_final 1.5 -checkpoint_every 360 -progress_interval 60
t1=$(date +%s)
check "the pour runs to the end (exit 0, $((t1 - t0)) s)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { show_file pour.err; finish; }
"$PY" - <<'PY' && pass "at most 6 contacts per sphere in every step; no sphere faster than the fall allows" || fail "pour statistics"
import h5py, numpy as np
f = h5py.File('pour_out.h5', 'r')
nc = f['stats/n_contacts'][()]
moving = ~f['scene/bodies/fixed'][()].astype(bool)
n = int(moving.sum())
z_top = f['frames/position'][0][moving, 2].max()
bound = np.sqrt(2 * 9.81 * z_top)
speed = np.linalg.norm(f['frames/velocity'][()][:, moving, :3], axis=2).max(axis=1)
print(f"    contacts per sphere: max {nc.max() / n:.2f} (step {nc.argmax() + 1}), last {nc[-1] / n:.2f}; "
      f"mean iterations {f['stats/iterations'][()].mean():.1f}; recoveries {f['stats/recoveries'][()].sum()}; "
      f"largest speed {speed.max():.3f} m/s (fall from the lattice top: {bound:.3f} m/s), at the end {speed[-1] * 1e3:.2f} mm/s; "
      f"max penetration {f['stats/max_penetration'][()].max() * 1e3:.3f} mm")
assert nc.max() <= 6 * n
assert speed.max() < bound
PY

section "the bed stays at rest for 1 s"
sg_run rest $MPIEXEC -n 2 "$SG" run pour.h5 -restart pour_out.ckpt.h5 -o rest_out.h5 -t_final 2.5 -progress_interval 60
check "the bed runs 1 s from the checkpoint (exit 0)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { show_file rest.err; finish; }
"$PY" - <<'PY' && pass "largest speed < 1 mm/s in every frame; bed top rises < 0.01 d" || fail "bed at rest"
import h5py, numpy as np
f = h5py.File('rest_out.h5', 'r')
moving = ~f['scene/bodies/fixed'][()].astype(bool)
v = f['frames/velocity'][()][:, moving, :3]
z = f['frames/position'][()][:, moving, 2]
speed = np.linalg.norm(v, axis=2)
rise = z.max(axis=1) - z[0].max()
d = 2e-3
print(f"    bed top rise: max {rise.max() / d:+.2e} d, final {rise[-1] / d:+.2e} d; median speed: max {np.median(speed, axis=1).max() * 1e3:.3f} mm/s; "
      f"largest speed: max {speed.max() * 1e3:.2f} mm/s, {int((speed[-1] > 1e-3).sum())} spheres above 1 mm/s at the end; "
      f"mean iterations {f['stats/iterations'][()].mean():.1f}, steps converged {int(f['stats/converged'][()].sum())}/{len(f['stats/converged'])}")
assert rise.max() < 0.01 * d
assert speed.max() < 1e-3
PY
finish
