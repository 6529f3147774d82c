#!/bin/bash
# A run killed with SIGKILL must not leave anything that looks complete: no out.h5 (only
# out.h5.partial, with complete = 0), no out.xmf; and an out.h5 from an earlier successful run to
# the same path must survive the killed run unchanged (still complete = 1).
# Usage: test_interrupted_output.sh path/to/signorini scratch_dir   (env SG_MPIEXEC)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
H5CHECK="$HERE/h5check.py"
# The long run is killed after KILL_AFTER seconds of writing; its t_final only has to be long enough
# that it cannot finish first (pile -n 200 does about 100 steps/s of 1/240 s on one core today).
LONG_T_FINAL=${SG_LONG_T_FINAL:-60}
KILL_AFTER=${SG_KILL_AFTER:-2}

cleanup() { # on an early exit, stop the runs of this script still going (its own jobs, by id)
  local p
  for p in $(jobs -p); do kill -TERM "$p" 2>/dev/null; done
}
trap cleanup EXIT

# descendants PID: the ids of every process below PID.
descendants() {
  local c
  for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}

# start_and_kill NAME NP: starts `signorini run scene.h5 -o out.h5 -t_final LONG` (on NP ranks) in
# the current folder, waits for out.h5.partial, lets it run KILL_AFTER seconds, and kills it with
# SIGKILL (on 2 ranks: the signorini processes themselves, as a crashed node would).
start_and_kill() {
  local name=$1 np=$2 pid t victims
  if [ "$np" -gt 1 ]; then
    # shellcheck disable=SC2086
    $MPIEXEC -n "$np" "$SG" run ../pile200.h5 -o out.h5 -t_final "$LONG_T_FINAL" -progress_interval 0 \
      >"$name.out" 2>"$name.err" &
  else
    "$SG" run ../pile200.h5 -o out.h5 -t_final "$LONG_T_FINAL" -progress_interval 0 >"$name.out" 2>"$name.err" &
  fi
  pid=$!
  for ((t = 0; t < 300; ++t)); do # up to 30 s for the start
    [ -e out.h5.partial ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  check "$name: out.h5.partial appears while the run goes on" test -e out.h5.partial
  sleep "$KILL_AFTER"
  if ! kill -0 "$pid" 2>/dev/null; then
    fail "$name: the run ended by itself before the kill at ${KILL_AFTER} s (raise SG_LONG_T_FINAL)"
    show_file "$name.err"
    { wait "$pid"; } 2>/dev/null
    return
  fi
  if [ "$np" -gt 1 ]; then
    victims=$(for p in $(descendants "$pid"); do
      [ "$(ps -o comm= -p "$p" 2>/dev/null)" = signorini ] && echo "$p"; done)
    check "$name: found the $np signorini processes under mpiexec (got: $(echo $victims))" \
      test "$(echo "$victims" | wc -w)" -eq "$np"
    # shellcheck disable=SC2086
    [ -n "$victims" ] && kill -9 $victims
    # mpiexec notices and ends; give it time, then stop it too.
    for ((t = 0; t < 150; ++t)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  else
    kill -9 "$pid"
  fi
  { wait "$pid"; } 2>/dev/null
  local rc=$?
  check "$name: the run was killed (exit status $rc != 0)" test "$rc" -ne 0
  sleep 0.2
}

# nothing_complete NAME: no out.h5 and no out.xmf; a left .partial opens with complete = 0.
nothing_complete() {
  local name=$1
  check "$name: no out.h5" test ! -e out.h5
  check "$name: no out.xmf" test ! -e out.xmf
  if [ -e out.h5.partial ]; then
    if "$PY" "$H5CHECK" complete out.h5.partial 0 >"$name.partial.log" 2>&1; then
      pass "$name: out.h5.partial opens and has complete == 0"
    else fail "$name: out.h5.partial opens and has complete == 0"; show_file "$name.partial.log"; fi
    sg_run "$name.info" "$SG" info out.h5.partial
    check "$name: signorini info out.h5.partial succeeds and says complete: 0" \
      sh -c "[ $RC -eq 0 ] && grep -qE '^ *complete: 0' '$name.info.out'"
  else
    pass "$name: (no out.h5.partial left either)"
  fi
  local other
  other=$(ls | grep -vE '^(out\.h5\.partial|.*\.(out|err|log))$')
  check "$name: no other file written (found: $(echo $other))" test -z "$other"
}

section "scene"
sg_run gen "$SG" generate pile -n 200 -o pile200.h5
check "generate pile -n 200: exit status 0 (got $RC)" test "$RC" -eq 0
[ -f pile200.h5 ] || finish

section "a fresh run killed with SIGKILL (1 rank)"
mkdir -p fresh && cd fresh || exit 1
start_and_kill fresh 1
nothing_complete fresh
# A new run to the same path replaces the stale .partial and finishes normally.
had_partial=no
[ -e out.h5.partial ] && had_partial=yes
sg_run rerun "$SG" run ../pile200.h5 -o out.h5 -t_final 0.02 -progress_interval 0
check "rerun to the same path (stale .partial: $had_partial): exit status 0 (got $RC)" test "$RC" -eq 0
check "rerun: out.h5 and out.xmf exist, no .partial left" test -f out.h5 -a -f out.xmf -a ! -e out.h5.partial
check "rerun: out.h5 has complete == 1" "$PY" "$H5CHECK" complete out.h5 1
cd "$SCRATCH" || exit 1

section "a fresh run killed with SIGKILL (2 ranks)"
mkdir -p fresh2 && cd fresh2 || exit 1
start_and_kill fresh2 2
nothing_complete fresh2
cd "$SCRATCH" || exit 1

section "a killed run does not harm the out.h5 of an earlier run to the same path"
mkdir -p again && cd again || exit 1
sg_run first "$SG" run ../pile200.h5 -o out.h5 -t_final 0.05 -progress_interval 0
check "first run: exit status 0 (got $RC)" test "$RC" -eq 0
check "first run: out.h5 and out.xmf exist" test -f out.h5 -a -f out.xmf
steps=$(sed -n 's/^signorini: \([0-9][0-9]*\) steps of .*/\1/p' first.out)
sum_before=$(md5sum out.h5 out.xmf 2>/dev/null)
start_and_kill second 1
check "after the killed run: out.h5 and out.xmf are byte for byte the earlier ones" \
  test "$(md5sum out.h5 out.xmf 2>/dev/null)" = "$sum_before"
if "$PY" "$H5CHECK" complete out.h5 1 >complete.log 2>&1 &&
  "$PY" "$H5CHECK" traj out.h5 ../pile200.h5 0.05 "${steps:--1}" >traj.log 2>&1; then
  pass "after the killed run: out.h5 opens, complete == 1, and holds the earlier run ($(grep -c '^  ok' traj.log) checks)"
else
  fail "after the killed run: out.h5 opens, complete == 1, and holds the earlier run"
  cat complete.log traj.log | grep -v '^  ok' | show_file /dev/stdin 20
fi
sg_run info "$SG" info out.h5
check "after the killed run: signorini info out.h5 says complete: 1" \
  sh -c "[ $RC -eq 0 ] && grep -qE '^ *complete: 1' info.out"
if [ -e out.h5.partial ]; then
  check "the killed run's out.h5.partial has complete == 0" "$PY" "$H5CHECK" complete out.h5.partial 0
fi
cd "$SCRATCH" || exit 1

finish
