#!/bin/bash
# Bad input on the command line: every case must exit non-zero with exactly one line
# "signorini: error: ..." that names the culprit (file, dataset, body, option), and write nothing:
# no out.h5, out.xmf, out.h5.partial (nor a scene). Some cases run on 2 ranks as well: all ranks
# stop together and only rank 0 prints.
# Usage: test_bad_input.sh path/to/signorini scratch_dir   (env SG_MPIEXEC: mpiexec and its flags)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
H5CHECK="$HERE/h5check.py"
SC=$SCRATCH/scenes
mkdir -p "$SC" "$SCRATCH/cases"

# expect_error NAME NP PATTERN... -- ARGS...
# Runs `signorini ARGS` (NP = 1) or `$SG_MPIEXEC -n NP signorini ARGS` in the empty folder
# cases/NAME[_npNP] and checks the failure. A PATTERN is a fixed string the error line must
# contain, or "re:REGEX" (extended regular expression).
expect_error() {
  local name=$1 np=$2; shift 2
  local patterns=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  local label=$name
  [ "$np" -gt 1 ] && label="${name} (np=$np)"
  local dir=$SCRATCH/cases/$name
  [ "$np" -gt 1 ] && dir=${dir}_np$np
  mkdir -p "$dir" && cd "$dir" || exit 1
  if [ "$np" -gt 1 ]; then
    # shellcheck disable=SC2086
    sg_run cmd $MPIEXEC -n "$np" "$SG" "$@"
  else
    sg_run cmd "$SG" "$@"
  fi
  local out err
  out=../$(basename "$dir").out
  err=../$(basename "$dir").err
  mv cmd.out "$out" && mv cmd.err "$err"
  echo "-- $label: signorini $*"
  if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
    fail "$label: finished (it hung past ${SG_CMD_TIMEOUT} s and was killed)"
  else
    check "$label: exit status != 0 (got $RC)" test "$RC" -ne 0
  fi
  local n_err
  n_err=$(error_lines "$err")
  if [ "$n_err" -eq 1 ]; then pass "$label: exactly one 'signorini: error:' line on stderr"
  else fail "$label: exactly one 'signorini: error:' line on stderr (found $n_err)"; show_file "$err"; fi
  check "$label: no error line on stdout" test "$(error_lines "$out")" -eq 0
  # Nothing else on stderr but the usage text (after a bad command); on several ranks mpiexec adds
  # its own notice of the exit status, but neither PETSc's error traces nor MPI_Abort's may appear.
  local noise
  if [ "$np" -gt 1 ]; then
    noise=$(grep -E 'PETSC ERROR|MPI_ABORT|MPI_Abort|Segmentation|signal' "$err")
  else
    noise=$(grep -vE '^signorini: error:|^usage: signorini|^       (mpirun|signorini)|^Options follow' "$err")
  fi
  if [ -z "$noise" ]; then pass "$label: nothing else on stderr"
  else fail "$label: nothing else on stderr"; show_file "$err" 8; fi
  local line
  line=$(grep -m1 '^signorini: error:' "$err")
  local p
  for p in "${patterns[@]}"; do
    if [ "${p#re:}" != "$p" ]; then
      check "$label: message matches /${p#re:}/" grep -qE -- "${p#re:}" <<<"$line"
    else
      check "$label: message names '$p'" grep -qF -- "$p" <<<"$line"
    fi
  done
  [ -n "$line" ] && echo "        message: $line"
  local left
  left=$(ls -A)
  if [ -z "$left" ]; then pass "$label: no file written (no out.h5, out.xmf, .partial)"
  else fail "$label: no file written (found: $(echo $left))"; fi
  cd "$SCRATCH" || exit 1
}

# Cases run MAX_JOBS at a time (most of a case is the start-up of MPI and PETSc, not CPU): each in a
# subshell writing its log and its counts, shown and added up in order by collect_cases.
MAX_JOBS=${SG_CLI_JOBS:-4}
CASES=()
case_bg() { # same arguments as expect_error
  local key=$1
  [ "$2" -gt 1 ] && key=${key}_np$2
  while [ "$(jobs -rp | wc -l)" -ge "$MAX_JOBS" ]; do wait -n; done
  (
    N_CHECKS=0 N_FAILED=0 FAILED_LIST=""
    expect_error "$@"
    echo "$N_CHECKS $N_FAILED" >"$SCRATCH/cases/$key.count"
    printf '%s' "$FAILED_LIST" >"$SCRATCH/cases/$key.failed"
  ) >"$SCRATCH/cases/$key.log" 2>&1 &
  CASES+=("$key")
}
case_section() { CASES+=("=$*"); }
collect_cases() {
  wait
  local key c f
  for key in "${CASES[@]}"; do
    if [ "${key#=}" != "$key" ]; then section "${key#=}"; continue; fi
    cat "$SCRATCH/cases/$key.log"
    if read -r c f <"$SCRATCH/cases/$key.count"; then
      N_CHECKS=$((N_CHECKS + c)); N_FAILED=$((N_FAILED + f))
      FAILED_LIST="$FAILED_LIST$(cat "$SCRATCH/cases/$key.failed")"
    else
      fail "$key: the case did not finish"
    fi
  done
  CASES=()
}

section "scenes"
sg_run gen_base "$SG" generate pile -n 8 -o "$SC/base.h5"
check "generate pile -n 8 (the valid base scene): exit status 0" test "$RC" -eq 0
[ -f "$SC/base.h5" ] || { fail "no base scene, cannot go on"; finish; }
"$PY" "$H5CHECK" describe "$SC/base.h5" | sed 's/^/  base scene: /'
# Bodies of the pile: 0 plane, 1-4 walls (fixed boxes), 5-12 moving spheres.
"$PY" - "$SC/base.h5" <<'EOF' || fail "the base scene has the expected layout (0 plane, 1-4 fixed boxes, 5.. moving spheres)"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    sh, fx = list(f["bodies/shape"][:]), list(f["bodies/fixed"][:])
assert sh[0] == 3 and sh[1:5] == [1] * 4 and all(s == 0 for s in sh[5:]) and len(sh) >= 10, sh
assert fx[:5] == [1] * 5 and all(v == 0 for v in fx[5:]), fx
EOF
for edit in no_size nan_position_3 negative_density_6 zero_radius_7 tiny_radius_6 shape99_9 friction_not_square \
            restitution_1p5 restitution_shape rolling_negative rolling_box_6 period_outside period_half far_position_6 \
            motion_nan_1 motion_empty_2 motion_overlap_3 motion_moving_6 \
            region_outside region_overlap region_sink region_nan region_unit \
            wall_disk_1 wall_cone_2 wall_moving_5 wall_company_1; do
  "$PY" "$H5CHECK" mutate "$SC/base.h5" "$SC/$edit.h5" "$edit" || fail "making $edit.h5"
done
printf 'this is a text file, not HDF5\n' >"$SC/text_scene.h5"
printf 'solid nothing\nendsolid nothing\n' >"$SC/empty.stl"
printf 't_final 0.01\n' >"$SC/bad_syntax.txt"   # an options file line must start with -name
printf -- '-t_final 0.02 0.03\n' >"$SC/two_values.txt"
printf -- '-options_file %s\n' "$SC/includes_itself.txt" >"$SC/includes_itself.txt"
head -c 300 "$SG" >"$SC/binary_options.txt"
# lines the check passed and PETSc then refused with a message naming no line (found by tests/fuzz)
printf -- '-\n' >"$SC/dash_only.txt"
printf -- '-dt -theta\n' >"$SC/value_is_name.txt"
printf -- '-t_final 0.01\n-inf-x 1\n' >"$SC/number_name.txt"
printf -- '-PREFIX_pop\n' >"$SC/prefix_pop.txt"
printf -- '-solver "subadmm\n' >"$SC/quote.txt"
mkdir -p "$SC/options_dir"
rm -f "$SC/options_fifo" && mkfifo "$SC/options_fifo"
sg_run traj_as_scene "$SG" run "$SC/base.h5" -o "$SC/a_trajectory.h5" -t_final 0.01 -progress_interval 0
check "a short run for a trajectory file: exit status 0" test "$RC" -eq 0

case_section "bad scene files"
case_bg missing_scene 1 missing.h5 -- run "$SC/missing.h5" -o out.h5 -t_final 0.01
case_bg text_scene 1 text_scene.h5 -- run "$SC/text_scene.h5" -o out.h5 -t_final 0.01
case_bg no_size 1 no_size.h5 bodies/size -- run "$SC/no_size.h5" -o out.h5 -t_final 0.01
case_bg nan_position 1 nan_position_3.h5 're:body 3([^0-9]|$)' -- run "$SC/nan_position_3.h5" -o out.h5 -t_final 0.01
case_bg negative_density 1 negative_density_6.h5 're:body 6([^0-9]|$)' density -- \
  run "$SC/negative_density_6.h5" -o out.h5 -t_final 0.01
case_bg zero_radius 1 zero_radius_7.h5 're:body 7([^0-9]|$)' -- run "$SC/zero_radius_7.h5" -o out.h5 -t_final 0.01
case_bg mass_underflow 1 tiny_radius_6.h5 're:body 6([^0-9]|$)' 'positive normal number' -- run "$SC/tiny_radius_6.h5" -o out.h5 -t_final 0.01
case_bg mass_underflow 2 tiny_radius_6.h5 're:body 6([^0-9]|$)' 'positive normal number' -- run "$SC/tiny_radius_6.h5" -o out.h5 -t_final 0.01
case_bg unknown_shape 1 shape99_9.h5 're:body 9([^0-9]|$)' 're:shape' -- run "$SC/shape99_9.h5" -o out.h5 -t_final 0.01
case_bg friction_not_square 1 friction_not_square.h5 materials/friction -- \
  run "$SC/friction_not_square.h5" -o out.h5 -t_final 0.01
case_bg restitution_out_of_range 1 restitution_1p5.h5 restitution 'not in [0, 1]' -- \
  run "$SC/restitution_1p5.h5" -o out.h5 -t_final 0.01
case_bg restitution_not_square 1 restitution_shape.h5 materials/restitution -- \
  run "$SC/restitution_shape.h5" -o out.h5 -t_final 0.01
case_bg rolling_negative 1 rolling_negative.h5 rolling_friction 'not a finite non-negative' -- \
  run "$SC/rolling_negative.h5" -o out.h5 -t_final 0.01
case_bg rolling_on_a_box 1 rolling_box_6.h5 'body 6' 'spheres only' -- \
  run "$SC/rolling_box_6.h5" -o out.h5 -t_final 0.01
case_bg period_outside 1 period_outside.h5 'outside the periodic cell' -- \
  run "$SC/period_outside.h5" -o out.h5 -t_final 0.01
case_bg period_outside 2 period_outside.h5 'outside the periodic cell' -- \
  run "$SC/period_outside.h5" -o out.h5 -t_final 0.01
case_bg period_half 1 period_half.h5 period_lo period_hi 'go together' -- \
  run "$SC/period_half.h5" -o out.h5 -t_final 0.01
case_bg far_position 2 far_position_6.h5 'body 6' 'too far from the origin' -- \
  run "$SC/far_position_6.h5" -o out.h5 -t_final 0.01
case_bg motion_not_finite 1 motion_nan_1.h5 motions 're:body 1([^0-9]|$)' 'not finite' -- \
  run "$SC/motion_nan_1.h5" -o out.h5 -t_final 0.01
case_bg motion_empty_window 1 motion_empty_2.h5 motions 're:body 2([^0-9]|$)' window -- \
  run "$SC/motion_empty_2.h5" -o out.h5 -t_final 0.01
case_bg motion_overlap 1 motion_overlap_3.h5 motions 're:body 3([^0-9]|$)' overlap -- \
  run "$SC/motion_overlap_3.h5" -o out.h5 -t_final 0.01
case_bg motion_moving_body 1 motion_moving_6.h5 motions/body 're:body 6([^0-9]|$)' 'not a fixed body' -- \
  run "$SC/motion_moving_6.h5" -o out.h5 -t_final 0.01
case_bg motion_moving_body 2 motion_moving_6.h5 motions/body 're:body 6([^0-9]|$)' 'not a fixed body' -- \
  run "$SC/motion_moving_6.h5" -o out.h5 -t_final 0.01
case_bg region_outside_domain 1 region_outside.h5 regions 're:inflow region 0' 'not inside the domain' -- \
  run "$SC/region_outside.h5" -o out.h5 -t_final 0.01
case_bg region_outside_domain 2 region_outside.h5 regions 're:inflow region 0' 'not inside the domain' -- \
  run "$SC/region_outside.h5" -o out.h5 -t_final 0.01
case_bg regions_overlap 1 region_overlap.h5 regions 're:inflow regions 0 and 1 overlap' -- \
  run "$SC/region_overlap.h5" -o out.h5 -t_final 0.01
case_bg inflow_in_outflow 1 region_sink.h5 regions 'deleting zone of outflow region 1' -- \
  run "$SC/region_sink.h5" -o out.h5 -t_final 0.01
case_bg region_not_finite 1 region_nan.h5 regions 're:region 0' 'not finite' -- \
  run "$SC/region_nan.h5" -o out.h5 -t_final 0.01
case_bg region_bad_rate_unit 1 region_unit.h5 regions 're:region 0' 'unit 5' -- \
  run "$SC/region_unit.h5" -o out.h5 -t_final 0.01
case_bg disk_hole_too_wide 1 wall_disk_1.h5 're:body 1([^0-9]|$)' 'hole radius < outer radius' -- \
  run "$SC/wall_disk_1.h5" -o out.h5 -t_final 0.01
case_bg cone_without_radius 1 wall_cone_2.h5 're:body 2([^0-9]|$)' 'not both 0' -- run "$SC/wall_cone_2.h5" -o out.h5 -t_final 0.01
case_bg cylinder_moving 1 wall_moving_5.h5 're:body 5([^0-9]|$)' 'fixed or kinematic' -- run "$SC/wall_moving_5.h5" -o out.h5 -t_final 0.01
case_bg cylinder_beside_box 1 wall_company_1.h5 're:body 6([^0-9]|$)' 'cannot touch the cylinder of body 1' -- \
  run "$SC/wall_company_1.h5" -o out.h5 -t_final 0.01
case_bg trajectory_as_scene 1 a_trajectory.h5 -- run "$SC/a_trajectory.h5" -o out.h5 -t_final 0.01
case_bg info_fifo 1 options_fifo 'not a regular file' -- info "$SC/options_fifo"
case_bg scene_fifo 2 options_fifo 'not a regular file' -- run "$SC/options_fifo" -o out.h5 -t_final 0.01
case_bg fclib_fifo 1 options_fifo 'not a regular file' -- fclib "$SC/options_fifo"
case_bg info_missing 1 missing.h5 -- info "$SC/missing.h5"
case_bg info_text 1 text_scene.h5 -- info "$SC/text_scene.h5"

case_section "bad options"
case_bg unknown_option 1 -no_such_option -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -no_such_option 1
case_bg dt_not_a_number 1 -dt abc -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -dt abc
case_bg t_final_negative 1 -t_final -- run "$SC/base.h5" -o out.h5 -t_final -1
case_bg step_count_overflow 1 -t_final -dt 'more than a run can count' -- run "$SC/base.h5" -o out.h5 -t_final 1e8 -dt 1e-12
case_bg t_final_no_value 1 -t_final -- run "$SC/base.h5" -o out.h5 -t_final
case_bg solver_unknown 1 -solver nosuch -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -solver nosuch
case_bg solver_max_it_negative 1 -solver_max_it -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -solver_max_it -5
case_bg options_file_missing 1 no_such_options.txt -- \
  run "$SC/base.h5" -o out.h5 -options_file "$SC/no_such_options.txt"
case_bg options_file_malformed 1 bad_syntax.txt -- run "$SC/base.h5" -o out.h5 -options_file "$SC/bad_syntax.txt"
# PETSc reads an options file on rank 0 only: every rank must stop when it rejects one (no hang)
case_bg options_file_malformed 2 bad_syntax.txt 'line 1' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/bad_syntax.txt"
case_bg options_file_two_values 2 two_values.txt 'line 1' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/two_values.txt"
case_bg options_file_includes_itself 2 includes_itself.txt 'may not name another' -- \
  run "$SC/base.h5" -o out.h5 -options_file "$SC/includes_itself.txt"
case_bg options_file_dash_only 2 dash_only.txt 'line 1' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/dash_only.txt"
case_bg options_file_value_is_name 1 value_is_name.txt 'line 1' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/value_is_name.txt"
case_bg options_file_number_name 1 number_name.txt 'line 2' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/number_name.txt"
case_bg options_file_quote 1 quote.txt 'no quotes' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/quote.txt"
case_bg options_file_prefix_pop 2 prefix_pop.txt 'is not supported' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/prefix_pop.txt"
case_bg options_file_binary 2 binary_options.txt 'not a text file' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/binary_options.txt"
case_bg options_file_directory 2 options_dir 'not a regular file' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/options_dir"
case_bg options_file_fifo 1 options_fifo 'not a regular file' -- run "$SC/base.h5" -o out.h5 -options_file "$SC/options_fifo"
case_bg options_file_proc_mem 1 /proc/self/mem 'unknown size' -- run "$SC/base.h5" -o out.h5 -options_file /proc/self/mem
case_bg stray_argument 1 stray.h5 -- run "$SC/base.h5" stray.h5 -o out.h5 -t_final 0.01
case_bg info_unknown_option 1 -bogus -- info "$SC/base.h5" -bogus 1

case_section "bad output paths"
case_bg output_dir_missing 1 /nonexistent_dir/out.h5 -- run "$SC/base.h5" -o /nonexistent_dir/out.h5 -t_final 0.01
long_name=$(printf 'x%.0s' $(seq 1 240)).h5   # Open MPI's MPI-IO crashes on such names: refused first
case_bg output_name_too_long 2 'characters long' -- run "$SC/base.h5" -o "$long_name" -t_final 0.01
case_bg scene_name_too_long 1 'characters long' -- info "$long_name"
case_bg output_is_directory 1 "$SC" -- run "$SC/base.h5" -o "$SC" -t_final 0.01
case_bg generate_dir_missing 1 /nonexistent_dir/scene.h5 -- generate pile -n 5 -o /nonexistent_dir/scene.h5

case_section "bad commands"
case_bg unknown_command 1 frobnicate -- frobnicate "$SC/base.h5"
case_bg missing_command 1 command --
case_bg run_without_scene 1 scene -- run -o out.h5
case_bg generate_unknown 1 marbles -- generate marbles -o scene.h5
case_bg generate_bad_count 1 -n abc -- generate pile -n abc -o scene.h5
case_bg generate_sizes_unordered 1 -size_dist 'must be positive' -- \
  generate pile -n 5 -size_dist uniform -radius_min 0.02 -radius_max 0.01 -o scene.h5
case_bg generate_sizes_missing 1 -size_dist 'radii [0, 0]' -- generate silo -n 5 -size_dist uniform -o scene.h5
case_bg generate_mixture_sum 1 -mixture 'sum to 1.1' -- generate pile -n 5 -size_dist mixture -mixture 0.01:0.5,0.02:0.6 -o scene.h5
case_bg generate_orifice_too_wide 1 -orifice 'narrower than -width' -- generate silo -n 5 -width 0.02 -orifice 0.03 -o scene.h5
case_bg generate_hopper_orifice 1 -orifice 'narrower than -width' -- generate hopper -n 5 -width 0.02 -orifice 0.02 -o scene.h5
case_bg generate_drum_overfilled 1 -fill 'lower -spacing or -fill' -- generate drum -fill 0.9 -o scene.h5
case_bg generate_stl_missing 1 /nonexistent_dir/wall.stl 'cannot open' -- generate pile -n 5 -stl /nonexistent_dir/wall.stl -o scene.h5
case_bg generate_stl_not_stl 1 text_scene.h5 'neither a binary STL' -- generate pile -n 5 -stl "$SC/text_scene.h5" -o scene.h5
case_bg generate_stl_empty 1 empty.stl 'no triangles' -- generate pile -n 5 -stl "$SC/empty.stl" -o scene.h5
case_bg generate_stl_position 1 -stl_position 'not a point' -- generate pile -n 5 -stl_position 1,2 -o scene.h5
case_bg generate_mixture_syntax 1 -mixture 'radius:fraction' -- generate pile -n 5 -size_dist mixture -mixture 0.01 -o scene.h5

collect_cases
check "output_dir_missing: /nonexistent_dir was not created" test ! -e /nonexistent_dir
check "output_is_directory: no $SC.partial nor .xmf beside it" test ! -e "$SC.partial" -a ! -e "$SC.xmf"

section "a failed run leaves an existing output alone"
mkdir -p keep && cd keep || exit 1
sg_run keep_first "$SG" run "$SC/base.h5" -o out.h5 -t_final 0.01 -progress_interval 0
check "first run: exit status 0" test "$RC" -eq 0
sum_before=$(md5sum out.h5 out.xmf 2>/dev/null)
sg_run keep_second "$SG" run "$SC/nan_position_3.h5" -o out.h5 -t_final 0.01
check "second run (bad scene) to the same output: exit status != 0 (got $RC)" test "$RC" -ne 0
check "second run: out.h5 and out.xmf unchanged" test "$(md5sum out.h5 out.xmf 2>/dev/null)" = "$sum_before"
check "second run: no out.h5.partial left" test ! -e out.h5.partial
cd "$SCRATCH" || exit 1

section "an output named as an input (by another path to the same file)"
mkdir -p self && cd self || exit 1
cp "$SC/base.h5" scene.h5
sum_scene=$(md5sum <scene.h5)
sg_run self_scene "$SG" run scene.h5 -o ./scene.h5 -t_final 0.01 -progress_interval 0
check "run scene.h5 -o ./scene.h5: exit status != 0 (got $RC)" test "$RC" -ne 0
check "run scene.h5 -o ./scene.h5: one error line naming the scene" \
  grep -q '^signorini: error: -o ./scene.h5 would overwrite the scene file scene.h5$' self_scene.err
check "run scene.h5 -o ./scene.h5: the scene is unchanged" test "$(md5sum <scene.h5)" = "$sum_scene"
sg_run self_make_ckpt "$SG" run scene.h5 -o first.h5 -t_final 0.02 -checkpoint_every 2 -checkpoint ck.h5 -progress_interval 0
check "a run writing ck.h5: exit status 0" test "$RC" -eq 0
sum_ckpt=$(md5sum <ck.h5)
sg_run self_ckpt "$SG" run scene.h5 -restart ck.h5 -o "$PWD/ck.h5" -t_final 0.04 -progress_interval 0
check "-restart ck.h5 -o \$PWD/ck.h5: exit status != 0 (got $RC)" test "$RC" -ne 0
check "-restart ck.h5 -o \$PWD/ck.h5: the error names the checkpoint" grep -q 'would overwrite the checkpoint ck.h5' self_ckpt.err
check "-restart ck.h5 -o \$PWD/ck.h5: the checkpoint is unchanged" test "$(md5sum <ck.h5)" = "$sum_ckpt"
cd "$SCRATCH" || exit 1

case_section "on 2 ranks"
case_bg missing_scene 2 missing.h5 -- run "$SC/missing.h5" -o out.h5 -t_final 0.01
case_bg nan_position 2 nan_position_3.h5 're:body 3([^0-9]|$)' -- run "$SC/nan_position_3.h5" -o out.h5 -t_final 0.01
case_bg zero_radius 2 zero_radius_7.h5 're:body 7([^0-9]|$)' -- run "$SC/zero_radius_7.h5" -o out.h5 -t_final 0.01
case_bg unknown_option 2 -no_such_option -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -no_such_option 1
case_bg dt_not_a_number 2 -dt abc -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -dt abc
case_bg solver_unknown 2 -solver nosuch -- run "$SC/base.h5" -o out.h5 -t_final 0.01 -solver nosuch
case_bg output_dir_missing 2 /nonexistent_dir/out.h5 -- run "$SC/base.h5" -o /nonexistent_dir/out.h5 -t_final 0.01
case_bg unknown_command 2 frobnicate -- frobnicate
case_bg generate_unknown 2 marbles -- generate marbles -o scene.h5

collect_cases

finish
