#!/usr/bin/env bash
# `signorini fclib` on problems a user may hand it (issue 17, items 6 and 8): every error about a
# problem names its file (and the dataset where one is at fault), also those raised after the
# reader (the conversion, a local problem's factorization); a problem whose entries are all scaled
# by 1e-300 or 1e300 is solved to the answer of the unscaled one (CANAL used to stop at its cold
# start and report "converged"), and one whose answer cannot be held in doubles is refused.
# The problems are made from the project's own dump of a pile (no file of ../shared is needed).
# Arguments: signorini binary, scratch dir.
source "$(dirname "$0")/cli_lib.sh" "$@"

section "an FCLIB problem: step 10 of an 8-sphere pile"
"$SG" generate pile -n 8 -o pile.h5 >gen.log 2>&1
sg_run dump "$SG" run pile.h5 -o out.h5 -t_final 0.05 -fclib_dump_step 10 -fclib_dump_file p.hdf5
check "the dump is written" [ "$RC" -eq 0 -a -f p.hdf5 ]

# variant NAME: a copy of p.hdf5 (or a new file) edited as NAME says.
variant() {
  "$PY" - "$1" <<'PY'
import shutil, sys
import h5py, numpy as np
name = sys.argv[1]
if name == "local_negative_w":  # W = -I: no eps makes W + eps I positive definite
    with h5py.File(name + ".hdf5", "w") as f:
        g = f.create_group("fclib_local")
        g["spacedim"] = np.array([3], dtype="i4")
        W = g.create_group("W")
        for k, v in (("m", 3), ("n", 3), ("nz", -1), ("nzmax", 3)):
            W[k] = np.array([v], dtype="i4")
        W["p"] = np.array([0, 1, 2, 3], dtype="i4")
        W["i"] = np.array([0, 1, 2], dtype="i4")
        W["x"] = -np.ones(3)
        g["vectors/q"] = np.array([-1.0, 0, 0])
        g["vectors/mu"] = np.array([0.5])
    sys.exit(0)
shutil.copy("p.hdf5", name + ".hdf5")
with h5py.File(name + ".hdf5", "r+") as f:
    g = f["fclib_global"]
    def scale(names, s):
        for n in names:
            g[n][...] = g[n][...] * s
    if name == "empty_contact":  # contact 0's three columns of H (CSC) hold nothing
        p = g["H/p"][...]
        p[1:4] = 0
        g["H/p"][...] = p
    elif name == "nan_f":
        f_ = g["vectors/f"][...]
        f_[5] = np.nan
        g["vectors/f"][...] = f_
    elif name == "no_mu":
        del g["vectors/mu"]
    elif name == "all_tiny":
        scale(["M/x", "H/x", "vectors/f", "vectors/w"], 1e-300)
    elif name == "all_huge":
        scale(["M/x", "H/x", "vectors/f", "vectors/w"], 1e300)
    elif name == "fw_tiny":  # the answer (v, r) scales with f and w: below what doubles hold
        scale(["vectors/f", "vectors/w"], 1e-300)
    else:
        sys.exit("unknown variant " + name)
PY
}

# refused NAME PATTERN: fclib on variant NAME exits 1 with one error line that names the file
# and contains PATTERN.
refused() {
  local name=$1 pattern=$2
  variant "$name" || { fail "$name: cannot make the variant"; return; }
  sg_run "$name" "$SG" fclib "$name.hdf5" -solver canal
  local line
  line=$(grep '^signorini: error:' "$name.err")
  if [ "$RC" -eq 1 ] && [ "$(error_lines "$name.err")" -eq 1 ] && [[ "$line" == *"$name.hdf5"* ]] &&
     grep -q "$pattern" "$name.err"; then
    pass "$name -> $(echo "$line" | cut -c1-160)"
  else
    fail "$name (exit $RC, expected 1 and one line naming $name.hdf5 with '$pattern')"; show_file "$name.err"
  fi
}

section "every error names the file (and the dataset at fault)"
refused empty_contact "matrix /fclib_global/H: the three columns of contact 0 are empty"
refused local_negative_w "matrix /fclib_local/W: W + eps I is not positive definite"
refused nan_f "dataset /fclib_global/vectors/f: entry 5 is NaN or Inf"
refused no_mu "missing dataset /fclib_global/vectors/mu"

section "a problem scaled by 1e-300 or 1e300 as a whole has the unscaled one's answer"
opts=(-solver canal -solver_tol 1e-10 -solver_max_it 200 -write_solution)
sg_run ref "$SG" fclib p.hdf5 "${opts[@]}" -solution_file ref.sol.hdf5
check "unscaled: exit 0, converged" grep -q "iterations .*(converged" ref.out
for name in all_tiny all_huge; do
  variant "$name" || { fail "$name: cannot make the variant"; continue; }
  sg_run "$name" "$SG" fclib "$name.hdf5" "${opts[@]}" -solution_file "$name.sol.hdf5"
  check "$name: exit 0, converged" grep -q "iterations .*(converged" "$name.out"
  check "$name: solved on its scaled form, announced" grep -q "^  scaled  .*solved with entries" "$name.out"
  # r and v do not change when M, H, f and w are scaled alike (u does, by the same factor)
  "$PY" - "$name" <<'PY' && pass "$name: r and v within 1e-6 of the unscaled answer" || fail "$name: answer differs"
import sys
import h5py, numpy as np
a, b = h5py.File("ref.sol.hdf5", "r")["solution"], h5py.File(sys.argv[1] + ".sol.hdf5", "r")["solution"]
for k in ("r", "v"):
    x, y = a[k][...], b[k][...]
    err = np.linalg.norm(x - y) / np.linalg.norm(x)
    print(k, "relative difference", err, "norm", np.linalg.norm(x))
    assert np.linalg.norm(x) > 0 and err < 1e-6, (k, err)
PY
done

section "an answer beyond what doubles hold is refused, not reported as converged"
refused fw_tiny "the answer's impulses r reach at most .* subnormal doubles"
finish
