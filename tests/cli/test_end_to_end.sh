#!/bin/bash
# End to end through the command line: generate each scenario, `info` it, run it on 1 and 2 ranks,
# and check the trajectory (complete, shapes, one stats entry per step, bodies in scene order) and
# its .xmf; -options_file; the -help listings.
# Usage: test_end_to_end.sh path/to/signorini scratch_dir   (env SG_MPIEXEC: mpiexec and its flags)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
H5CHECK="$HERE/h5check.py"
T_FINAL=0.05

# no_leftovers DIR STEM: nothing named STEM.partial or STEM.tmp.* is left in DIR.
no_leftovers() { ! ls "$1" | grep -qE "^$2\.(partial|tmp\.)"; }
# steps_printed NAME: the step count of the "signorini: N steps of ..." summary in NAME.out.
steps_printed() { sed -n 's/^signorini: \([0-9][0-9]*\) steps of .*/\1/p' "$1.out" | head -n 1; }

# check_run NAME SCENE OUT T_FINAL launcher...: the run NAME (already done, RC set) succeeded and
# wrote a finished trajectory OUT (.h5) from SCENE.
check_run() {
  local name=$1 scene=$2 out=$3 tf=$4
  local stem=${out%.h5}
  if [ "$RC" -eq 0 ]; then pass "$name: exit status 0"; else
    fail "$name: exit status 0 (got $RC)"; show_file "$name.err"; fi
  check "$name: $out exists" test -f "$out"
  check "$name: $stem.xmf exists" test -f "$stem.xmf"
  check "$name: no $out.partial (or .tmp) left" no_leftovers . "$(basename "$out")"
  check "$name: nothing on stderr starts with 'signorini: error:'" test "$(error_lines "$name.err")" -eq 0
  local steps
  steps=$(steps_printed "$name")
  [ -n "$steps" ] || steps=-1
  if [ -f "$out" ]; then
    if "$PY" "$H5CHECK" traj "$out" "$scene" "$tf" "$steps" >"$name.h5check" 2>&1; then
      pass "$name: trajectory contents ($(grep -c '^  ok' "$name.h5check") h5py checks)"
    else
      fail "$name: trajectory contents"; grep -v '^  ok' "$name.h5check" | show_file /dev/stdin 30
    fi
  fi
}

section "generate, info, run on 1 and 2 ranks"
for spec in "incline" "stack -n 3" "pile -n 50"; do
  read -r scen extra <<<"$spec"
  read -r -a extra_args <<<"${extra:-}"
  scene=$scen.h5
  echo "-- $spec"
  sg_run gen_$scen "$SG" generate "$scen" "${extra_args[@]}" -o "$scene"
  check "generate $spec: exit status 0 (got $RC)" test "$RC" -eq 0
  check "generate $spec: $scene exists" test -f "$scene"
  check "generate $spec: no temporary file left" no_leftovers . "$scene"
  check "generate $spec: stdout names $scene" grep -qF "$scene" gen_$scen.out
  [ -f "$scene" ] || continue

  sg_run info_$scen "$SG" info "$scene"
  check "info $scene: exit status 0 (got $RC)" test "$RC" -eq 0
  check "info $scene: says it is a scene" grep -q 'signorini scene' info_$scen.out
  n=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1],'r')['bodies/shape'].shape[0])" "$scene")
  check "info $scene: reports its $n bodies" grep -qE "bodies: $n( |$)" info_$scen.out

  sg_run run1_$scen "$SG" run "$scene" -o ${scen}_np1.h5 -t_final $T_FINAL -progress_interval 0
  check_run run1_$scen "$scene" ${scen}_np1.h5 $T_FINAL
  # shellcheck disable=SC2086
  sg_run run2_$scen $MPIEXEC -n 2 "$SG" run "$scene" -o ${scen}_np2.h5 -t_final $T_FINAL -progress_interval 0
  check_run run2_$scen "$scene" ${scen}_np2.h5 $T_FINAL
  if [ -f ${scen}_np1.h5 ] && [ -f ${scen}_np2.h5 ]; then
    # Same physics on 1 and 2 ranks, up to the solver tolerance.
    if "$PY" "$H5CHECK" same ${scen}_np1.h5 ${scen}_np2.h5 1e-6 >same_$scen.log 2>&1; then
      pass "$scen: 1-rank and 2-rank frames agree within 1e-6"
    else fail "$scen: 1-rank and 2-rank frames agree within 1e-6"; show_file same_$scen.log; fi
  fi

  sg_run infot_$scen "$SG" info ${scen}_np2.h5
  check "info ${scen}_np2.h5: exit status 0 (got $RC)" test "$RC" -eq 0
  check "info ${scen}_np2.h5: says it is a complete trajectory" \
    grep -q 'signorini trajectory' infot_$scen.out
  check "info ${scen}_np2.h5: complete: 1" grep -qE '^ *complete: 1' infot_$scen.out
done

section "-options_file"
printf -- '-t_final 0.025\n-progress_interval 0\n' >opts.txt
if [ -f pile.h5 ]; then
  sg_run optfile1 "$SG" run pile.h5 -o optfile_np1.h5 -options_file opts.txt
  check_run optfile1 pile.h5 optfile_np1.h5 0.025
  # shellcheck disable=SC2086
  sg_run optfile2 $MPIEXEC -n 2 "$SG" run pile.h5 -o optfile_np2.h5 -options_file opts.txt
  check_run optfile2 pile.h5 optfile_np2.h5 0.025
  # An unknown option inside the file is refused like one on the command line.
  printf -- '-t_final 0.025\n-no_such_option_in_file 3\n' >bad_opts.txt
  sg_run optfile_bad "$SG" run pile.h5 -o optfile_bad.h5 -options_file bad_opts.txt
  check "unknown option in an options file: exit status != 0 (got $RC)" test "$RC" -ne 0
  check "unknown option in an options file: one error line naming it" \
    test "$(grep -c '^signorini: error:.*no_such_option_in_file' optfile_bad.err)" -eq 1
  check "unknown option in an options file: no output written" test ! -e optfile_bad.h5 -a ! -e optfile_bad.h5.partial
fi

section "-help"
mkdir -p help && cd help || exit 1
sg_run run_help "$SG" run -help
check "run -help: exit status 0 (got $RC)" test "$RC" -eq 0
for opt in -o -t_final -dt -theta -solver -solver_max_it -solver_tol -output_every; do
  check "run -help: lists $opt" grep -qE "^ +$opt( |$)" run_help.out
done
check "run -help: no error line" test "$(error_lines run_help.err)" -eq 0
sg_run gen_help "$SG" generate pile -help
check "generate pile -help: exit status 0 (got $RC)" test "$RC" -eq 0
check "generate pile -help: lists -n and -o" sh -c 'grep -qE "^ +-n( |$)" gen_help.out && grep -qE "^ +-o( |$)" gen_help.out'
# main.c means `signorini -help` (no command) to print the usage and succeed.
sg_run top_help "$SG" -help
check "signorini -help: exit status 0 (got $RC)" test "$RC" -eq 0
check "signorini -help: prints the usage on stdout" grep -q '^usage: signorini' top_help.out
check "signorini -help: no error line" test "$(error_lines top_help.err)" -eq 0
check "-help wrote no file" test -z "$(ls | grep -vE '\.(out|err)$')"
cd "$SCRATCH" || exit 1

finish
