#!/bin/bash
# An error on one rank, in any collective phase of a step, stops every rank together with that
# rank's message: a failure injected with SG_FAULT (docs/TESTING.md) on one rank of 2 and of 4, in
# collision, factorization, refactorization (after an adaptive penalty change), solve (SubADMM's
# iteration; CANAL's Newton assembly) and output (a trajectory frame). Each failing run must exit
# non-zero soon after the failure (no hang: SG_CMD_TIMEOUT), print exactly one error line, holding
# the injected message with the failing rank and the step, in printable characters only, with no
# MPI abort banner, and leave no out.h5 or out.xmf (the .partial may stay).
# Usage: test_fault_injection.sh path/to/signorini scratch_dir   (env SG_MPIEXEC)
set -u
SG_CMD_TIMEOUT=${SG_CMD_TIMEOUT:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
T_FINAL=0.05 # 12 steps of 1/240 s; frames after steps 4, 8 and 12
# Seconds a failing run may take beyond a normal run of the same scene: Open MPI's launcher alone
# adds about one for a non-zero exit, and the machine may be shared; a hang shows as RC 124.
SLACK=${SG_FAULT_SLACK:-10}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

"$SG" generate pile -n 200 -o pile.h5 >/dev/null || { fail "generate pile -n 200"; finish; }

# normal_run NP [run options...]: sets NORMAL to the wall time of a run without a fault.
normal_run() {
  local np=$1 t0
  shift
  t0=$(now)
  # shellcheck disable=SC2086
  sg_run "normal$np$*" $MPIEXEC -n "$np" "$SG" run pile.h5 -o normal.h5 -t_final "$T_FINAL" -progress_interval 0 "$@"
  NORMAL=$(elapsed "$t0" "$(now)")
  section "$np ranks $*, no fault ($NORMAL s)"
  check "exit status 0" [ "$RC" -eq 0 ]
  rm -f normal.h5 normal.xmf
}

no_output_left() { [ ! -e out.h5 ] && [ ! -e out.xmf ]; }

# expect_stop NP SPEC PATTERN [run options...]: a run on NP ranks with SG_FAULT=SPEC stops as described
# above; its error line matches the extended regular expression PATTERN.
expect_stop() {
  local np=$1 spec=$2 pattern=$3 name t0 t line
  shift 3
  name="p${np}_${spec//:/_}${1:+_${1#-}$2}"
  rm -f out.h5 out.h5.partial out.xmf
  t0=$(now)
  # shellcheck disable=SC2086
  SG_FAULT=$spec sg_run "$name" $MPIEXEC -n "$np" "$SG" run pile.h5 -o out.h5 -t_final "$T_FINAL" \
    -progress_interval 0 "$@"
  t=$(elapsed "$t0" "$(now)")
  section "$np ranks, SG_FAULT=$spec $* ($t s, exit status $RC)"
  if [ "$RC" -eq 124 ]; then fail "$name: hung (killed after $SG_CMD_TIMEOUT s)"; show_file "$name.err"; return; fi
  check "$name: exit status non-zero" [ "$RC" -ne 0 ]
  check "$name: took $t s, less than a normal run ($NORMAL s) + $SLACK s" less_than "$t" "$(awk -v a="$NORMAL" -v b="$SLACK" 'BEGIN { print a + b }')"
  local n
  n=$(error_lines "$name.err")
  line=$(grep -m1 '^signorini: error:' "$name.err")
  if [ "$n" -eq 1 ]; then pass "$name: one error line: $line"
  else fail "$name: exactly one 'signorini: error:' line (found $n)"; show_file "$name.err"; fi
  if echo "$line" | grep -Eq "$pattern"; then pass "$name: it names the phase, the rank and the step"
  else fail "$name: error line matches /$pattern/"; fi
  if LC_ALL=C grep -q '[^[:print:][:space:]]' "$name.err" "$name.out"; then fail "$name: non-printable bytes in the output"
  else pass "$name: printable characters only"; fi
  if grep -Eq 'MPI_ABORT|exited on signal|Signal:' "$name.err"; then fail "$name: an MPI abort or a signal"; show_file "$name.err"
  else pass "$name: no abort banner"; fi
  check "$name: no out.h5, no out.xmf" no_output_left
}

injected() { echo "^signorini: error: injected fault in phase '$1' on rank $2 in step $3 \\(SG_FAULT\\)"; }
AT_2='(2|3|4|5|6|7|8|9|1[0-2])' # a step from 2 on: refactorizations and frames come when they come

for np in 2 4; do
  last=$((np - 1))
  normal_run "$np"
  expect_stop "$np" "collision:$last:2" "$(injected collision "$last" 2) \\(in step 2; the last good state"
  expect_stop "$np" "factorization:$last:2" "$(injected factorization "$last" 2) \\(in step 2;"
  expect_stop "$np" "refactorization:$last:2" "$(injected refactorization "$last" "$AT_2") \\(in step $AT_2;"
  expect_stop "$np" "solve:$last:2" "$(injected solve "$last" 2) \\(in step 2;"
  expect_stop "$np" "output:$last:2" "$(injected output "$last" 4) \\(writing the output of step 4\\)"
done
# rank 0, whose message is the one printed anyway
expect_stop 2 "solve:0:3" "$(injected solve 0 3) \\(in step 3;"
expect_stop 4 "collision:0:2" "$(injected collision 0 2) \\(in step 2;"
# a replicated scene (CANAL): the solve phase fails in the Newton assembly, before PETSc's collectives
normal_run 2 -solver canal
expect_stop 2 "solve:1:2" "$(injected solve 1 2) \\(in step 2;" -solver canal
expect_stop 2 "collision:1:3" "$(injected collision 1 3) \\(in step 3;" -solver canal

section "a malformed SG_FAULT is an error"
SG_FAULT=solve sg_run malformed $MPIEXEC -n 2 "$SG" run pile.h5 -o out.h5 -t_final "$T_FINAL"
check "exit status non-zero, no hang" [ "$RC" -ne 0 -a "$RC" -ne 124 ]
check "one error line naming SG_FAULT" grep -q "^signorini: error: SG_FAULT 'solve' is malformed" malformed.err
finish
