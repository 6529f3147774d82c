#!/bin/bash
# Robots from URDF (scripts/urdf_to_scene.py, docs/FORMATS.md "Robots from URDF"; issue 16 part 1),
# with the files of urdf_cases.py:
# - a pendulum (one revolute joint, a small bob at L) swings with the period 2 pi sqrt(L/g) within
#   0.5%, and within 1e-4 of its physical pendulum's (the bound of physics/test_pendulum);
# - a mass on a prismatic joint stops on its limit, a floating link and a link welded to it by a
#   turned fixed joint fall freely (to 1e-9 at 0.2 s);
# - the same pendulum with its joint frame, inertial frame and box collision turned by rpy angles
#   (and axis, centre of mass, inertia and box turned back) moves as the unturned one to 1e-9: the
#   rpy convention (fixed axes x, y, z) and the inertia's and geoms' frames are URDF's;
# - URDFs of `generate chain` (limits, PD, sphere geoms, a ground) and `generate quadruped` (a
#   floating base, continuous joints, box, capsule and sphere geoms) give the generators' tree
#   model to 1e-12 and, run, the same trajectory bit for bit;
# - malformed robots and options are refused with one line each; a mesh collision is skipped with a
#   warning, a massless leaf frame too; the example data/two_link_arm.urdf converts and runs.
# Usage: test_urdf.sh path/to/signorini scratch_dir
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
SRC=${SG_SOURCE:-$HERE/../..}
CONVERT=("$PY" "$SRC/scripts/urdf_to_scene.py")
CASES=("$PY" "$HERE/urdf_cases.py")

# convert NAME ARGS...: urdf_to_scene.py ARGS, which must succeed (NAME.log keeps its output)
convert() {
  local name=$1; shift
  if "${CONVERT[@]}" "$@" >"$name.log" 2>&1; then return 0; fi
  fail "$name: urdf_to_scene.py $* (exit $?)"; show_file "$name.log"; return 1
}
# run_scene NAME SCENE ARGS...: signorini run, which must succeed
run_scene() {
  local name=$1 scene=$2; shift 2
  sg_run "$name" "$SG" run "$scene" -o "${name}_out.h5" "$@"
  [ "$RC" -eq 0 ] && return 0
  fail "$name: run $scene $* (exit $RC)"; show_file "$name.err"; return 1
}
# verdict WHAT CHECK ARGS...: a urdf_cases.py check, its report shown
verdict() {
  local what=$1; shift
  if "${CASES[@]}" "$@" >"$1.txt" 2>&1; then pass "$what: $(tail -n 1 "$1.txt")"; else fail "$what"; show_file "$1.txt" 30; fi
}

section "a pendulum's period"
"${CASES[@]}" pendulum pendulum.urdf
convert pendulum pendulum.urdf pendulum.h5 -q hinge 0.05 &&
  run_scene pendulum pendulum.h5 -dt 0.001 -theta 0.5 -t_final 7 -output_every 5 &&
  verdict "period" period pendulum_out.h5

section "prismatic, floating and fixed joints"
"${CASES[@]}" slider slider.urdf
convert slider slider.urdf slider.h5 &&
  run_scene slider slider.h5 -dt 0.001 -theta 0.5 -t_final 1 -output_every 10 &&
  verdict "fall" fall slider_out.h5

section "rpy: turned joint, inertial and collision frames"
"${CASES[@]}" plain plain.urdf && "${CASES[@]}" rotated rotated.urdf
convert plain plain.urdf plain.h5 -q hinge 0.6 && convert rotated rotated.urdf rotated.h5 -q hinge 0.6 &&
  run_scene plain plain.h5 -dt 0.002 -theta 0.5 -t_final 1 -output_every 10 &&
  run_scene rotated rotated.h5 -dt 0.002 -theta 0.5 -t_final 1 -output_every 10 &&
  verdict "the turned pendulum moves as the plain one" close_motion plain_out.h5 rotated_out.h5

section "generate chain as a URDF"
"${CASES[@]}" chain chain.urdf
"$SG" generate chain -n 3 -length 0.5 -mass 0.7 -radius 0.03 -height 1.5 -theta0 20 -limit_lower -40 -limit_upper 60 \
  -kp 2 -kd 0.5 -geom sphere -ground plane -o chain_gen.h5 >chain_gen.log 2>&1 || fail "generate chain"
convert chain chain.urdf chain.h5 -q j0 "$("${CASES[@]}" rad 20)" -target j0 0 -kp 2 -kd 0.5 -ground plane -body_radius 0.03 &&
  verdict "chain: the generator's model" same_model chain_gen.h5 chain.h5 &&
  run_scene chain_gen chain_gen.h5 -t_final 0.6 -theta 0.5 && run_scene chain chain.h5 -t_final 0.6 -theta 0.5 &&
  verdict "chain: the generator's trajectory" same_frames chain_gen_out.h5 chain_out.h5

section "generate quadruped as a URDF"
"${CASES[@]}" quadruped quadruped.urdf
"$SG" generate quadruped -o quadruped_gen.h5 >quadruped_gen.log 2>&1 || fail "generate quadruped"
pose=()
for k in 0 1 2 3; do pose+=(-q "thigh${k}_joint" 0.7 -q "calf${k}_joint" -1.4); done
convert quadruped quadruped.urdf quadruped.h5 -base free -xyz 0 0 "$("${CASES[@]}" stand_height)" -kp 400 -kd 8 "${pose[@]}" \
  -ground plane -mu 0.8 -body_radius 0.02 &&
  verdict "quadruped: the generator's model" same_model quadruped_gen.h5 quadruped.h5 &&
  run_scene quadruped_gen quadruped_gen.h5 -t_final 0.25 && run_scene quadruped quadruped.h5 -t_final 0.25 &&
  verdict "quadruped: the generator's trajectory" same_frames quadruped_gen_out.h5 quadruped_out.h5

section "bad robots and options: one line each"
# refused CASE PATTERN [OPTIONS...]: urdf_cases.py's bad CASE exits 1 with one line, an error with PATTERN
refused() {
  local case=$1 pattern=$2; shift 2
  [ -f "$case.urdf" ] || "${CASES[@]}" bad "$case" "$case.urdf"
  "${CONVERT[@]}" "$@" "$case.urdf" "$case.h5" >"$case.out" 2>"$case.err"
  local rc=$?
  if [ "$rc" -eq 1 ] && [ "$(wc -l <"$case.err")" -eq 1 ] && [ "$(error_lines "$case.err")" -eq 1 ] &&
     grep -q -- "$pattern" "$case.err" && grep -q "($case.urdf\|(command line)" "$case.err" && [ ! -e "$case.h5" ]; then
    pass "$case ${*}: $(cut -c1-150 "$case.err")"
  else
    fail "$case $*: exit $rc, expected 1 and one line naming $case.urdf with '$pattern'"; show_file "$case.err"
  fi
}
refused missing_parent "the parent link 'nowhere' is not a <link>.*joint 'hinge'"
refused cycle "link 'bob' is not connected to the root link 'world': its joints form a cycle"
refused loop "link 'bob' is also the child of joint 'hinge': a closed loop"
refused two_roots "2 root links ('world', 'other')"
refused unknown_type "joint type 'hinged' is not one of fixed, revolute, continuous, prismatic, floating"
refused planar "joint type 'planar' is not one of"
refused negative_mass "mass -1 is not positive.*link 'bob' <inertial>"
refused inertia "the inertia is not positive definite.*link 'bob' <inertial>"
refused no_inertial "no <inertial>: every link but a world root link and massless leaf frames needs a positive mass.*link 'bob'"
refused massless_middle "no <inertial>: .*massless_middle.urdf, link 'tip'"
refused limits "the <limit> lower 1 is above upper -1.*joint 'hinge'"
refused mimic "<mimic> joints are not supported.*joint 'a'"
refused cylinder "a <cylinder> collision: signorini has no cylinder.*link 'bob' <collision> 1"
refused bad_number "<axis> xyz=\"0 1\" is not 3 finite numbers"
refused not_xml "not well-formed XML"
"${CASES[@]}" pendulum options.urdf
refused options "-q names 'knee', not a revolute" -q knee 0.1
refused options "the root link has no <inertial>: it is the world frame, which -base free cannot move" -base free
refused options "-kp needs -kd > 0" -kp 10
refused options "option -base: 'floating' is not one of fixed|free" -base floating
refused options "option -q hinge: 'x' is not a number" -q hinge x

section "skipped and approximated collisions"
"${CASES[@]}" bad mesh mesh.urdf
convert mesh mesh.urdf mesh.h5 &&
  check "a <mesh> collision: one warning, no geom" grep -q "^signorini: warning: a <mesh> collision is skipped" mesh.log
"${CASES[@]}" bad frame frame.urdf
convert frame frame.urdf frame.h5 && check "a massless leaf frame on a fixed joint: one warning, 1 link" \
  bash -c "grep -q \"^signorini: warning: a frame without mass is skipped.*link 'tip'\" frame.log && grep -q '1 links' frame.log"
convert cylinder_capsule cylinder.urdf cylinder_capsule.h5 -cylinder capsule &&
  check "a <cylinder> as a capsule of its radius and length: (0.125, 0.125)" "$PY" -c "
import h5py, numpy as np, sys
s = h5py.File('cylinder_capsule.h5', 'r')['trees/geom_size'][()]
sys.exit(0 if np.array_equal(s, [[0.125, 0.125, 0.0]]) else 1)"

section "the example robot"
convert arm "$SRC/data/two_link_arm.urdf" arm.h5 -kp 50 -kd 2 -q elbow 0.5 -target elbow 0 -ground plane &&
  run_scene arm arm.h5 -t_final 0.2 &&
  check "data/two_link_arm.urdf: 2 links, 3 geoms, a complete run" grep -q "2 links, 2 velocities, 3 collision geoms" arm.log

finish
