#!/bin/bash
# Checkpoint and restart through the command line:
#  (a) a run restarted from a checkpoint (on 4 ranks, and on 1) is bit for bit the run that went
#      straight through (on 2 ranks): frames at every common time, per-step statistics, the state
#      stored in the checkpoints;
#  (a') the same for the pile with -subadmm_beta_warm (the solver's penalty goes through the
#      checkpoint), restarted on 3 ranks;
#  (b) a checkpoint of another scene is refused, naming the hash mismatch, and nothing is written;
#  (c) a truncated or damaged checkpoint, a file that is no checkpoint, a -dt that differs: one
#      clear error line each, nothing written;
#  (d) a 2-rank run one of whose ranks is killed with SIGKILL ends (no rank left waiting) and leaves
#      its last complete checkpoint readable (step a multiple of -checkpoint_every), and a restart
#      from it on 1 rank is again bit for bit the straight run on 2;
#  (e) bodies that enter and leave (a silo with an inflow and an outflow): a checkpoint holds the
#      body set of its step (ids with gaps, next_gid, the hooks' state), and restarts from it on 3
#      ranks then again on 1 (a restart of a restart), and on 4 ranks, end with the straight run's
#      checkpoint bit for bit; a scene file with another inflow rate is refused.
# Usage: test_checkpoint.sh path/to/signorini scratch_dir   (env SG_MPIEXEC: mpiexec and its flags)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"
CK="$HERE/ckpt_check.py"
DT=0.004166666666666667   # the default -dt, 1/240 s
KILL_AFTER=${SG_KILL_AFTER:-2}

cleanup() { # on an early exit, stop the runs of this script still going (its own jobs, by id)
  local p
  for p in $(jobs -p); do kill -TERM "$p" 2>/dev/null; done
}
trap cleanup EXIT

t_of() { "$PY" -c "import sys; print(repr(int(sys.argv[1]) * $DT))" "$1"; } # time of step N
# pycheck NAME what args...: a ckpt_check.py check, its log shown on failure.
pycheck() {
  local name=$1; shift
  if "$PY" "$CK" "$@" >"$name.log" 2>&1; then pass "$name ($(grep -c '^  ok' "$name.log") h5py checks)"
  else fail "$name"; grep -v '^  ok' "$name.log" | show_file /dev/stdin 20; fi
}
ran_ok() { # NAME: the run NAME (RC set) exited 0
  if [ "$RC" -eq 0 ]; then pass "$1: exit status 0"; else fail "$1: exit status 0 (got $RC)"; show_file "$1.err"; fi
}
RUN_OPTS=(-output_every 5 -progress_interval 0)

section "scenes"
sg_run gen_stack "$SG" generate stack -n 5 -o stack.h5
check "generate stack -n 5: exit status 0" test "$RC" -eq 0
sg_run gen_pile "$SG" generate pile -n 100 -o pile.h5
check "generate pile -n 100: exit status 0" test "$RC" -eq 0
sg_run gen_other "$SG" generate pile -n 100 -mu 0.5 -o pile_mu05.h5
check "generate pile -n 100 -mu 0.5 (another scene): exit status 0" test "$RC" -eq 0
[ -f stack.h5 ] && [ -f pile.h5 ] && [ -f pile_mu05.h5 ] || finish

T50=$(t_of 50)
T100=$(t_of 100)
for scene in pile stack; do
  section "(a) $scene: 100 steps straight on 2 ranks = 50 steps + restart on 4 ranks (and on 1)"
  mkdir -p "a_$scene" && cd "a_$scene" || exit 1
  # shellcheck disable=SC2086
  sg_run straight $MPIEXEC -n 2 "$SG" run ../$scene.h5 -o straight.h5 -t_final "$T100" -checkpoint_every 50 "${RUN_OPTS[@]}"
  ran_ok "straight run (2 ranks, -checkpoint_every 50)"
  check "straight run: its checkpoint straight.ckpt.h5 exists, no temporary left" \
    sh -c 'test -f straight.ckpt.h5 && ! ls | grep -q "ckpt.h5.tmp"'
  check "straight run: the summary names the last checkpoint (step 100)" grep -q 'straight.ckpt.h5 (step 100)' straight.out
  pycheck "straight.ckpt.h5 is a complete checkpoint at step 100" ckpt straight.ckpt.h5 ../$scene.h5 50
  pycheck "straight.ckpt.h5 holds the final frame of the straight run" matches_frame straight.ckpt.h5 straight.h5

  # shellcheck disable=SC2086
  sg_run half $MPIEXEC -n 2 "$SG" run ../$scene.h5 -o half.h5 -t_final "$T50" -checkpoint_every 50 "${RUN_OPTS[@]}"
  ran_ok "run to step 50 (2 ranks, -checkpoint_every 50)"
  pycheck "half.ckpt.h5 is a complete checkpoint at step 50" ckpt half.ckpt.h5 ../$scene.h5 50
  pycheck "half.ckpt.h5 holds the straight run's frame at step 50" matches_frame half.ckpt.h5 straight.h5

  # shellcheck disable=SC2086
  sg_run restart4 $MPIEXEC -n 4 "$SG" run ../$scene.h5 -restart half.ckpt.h5 -o restart4.h5 -t_final "$T100" "${RUN_OPTS[@]}"
  ran_ok "restart from step 50 on 4 ranks"
  check "restart (4 ranks): 50 steps taken, t = 0.4167" grep -qE '^signorini: 50 steps of .*t = 0\.4167 s' restart4.out
  check "restart (4 ranks): the summary names the checkpoint" grep -q 'restarted from  *half.ckpt.h5 (step 50' restart4.out
  check "restart (4 ranks): no checkpoint written without -checkpoint_every" test ! -e restart4.ckpt.h5
  pycheck "restart (4 ranks): frames equal the straight run's" frames_equal straight.h5 restart4.h5 11
  pycheck "restart (4 ranks): statistics continue the straight run's" stats_continue straight.h5 restart4.h5
  pycheck "restart (4 ranks): first frame is the checkpoint's state" first_frame restart4.h5 half.ckpt.h5

  sg_run restart1 "$SG" run ../$scene.h5 -restart half.ckpt.h5 -o restart1.h5 -t_final "$T100" -checkpoint_every 25 \
    "${RUN_OPTS[@]}"
  ran_ok "restart from step 50 on 1 rank, -checkpoint_every 25"
  pycheck "restart (1 rank): frames equal the straight run's" frames_equal straight.h5 restart1.h5 11
  pycheck "restart (1 rank): its checkpoint (step 100) equals the straight run's final frame" \
    matches_frame restart1.ckpt.h5 straight.h5
  cd "$SCRATCH" || exit 1
done

section "(a') pile with -subadmm_beta_warm: the checkpoint carries the solver's penalty, the restart on 3 ranks continues bit for bit"
mkdir -p a_warm && cd a_warm || exit 1
WARM=(-subadmm_beta_warm 1 "${RUN_OPTS[@]}")
# shellcheck disable=SC2086
sg_run straight $MPIEXEC -n 2 "$SG" run ../pile.h5 -o straight.h5 -t_final "$T100" "${WARM[@]}"
ran_ok "straight run with the warm penalty (2 ranks)"
# shellcheck disable=SC2086
sg_run half $MPIEXEC -n 2 "$SG" run ../pile.h5 -o half.h5 -t_final "$T50" -checkpoint_every 50 "${WARM[@]}"
ran_ok "run to step 50 with the warm penalty"
check "half.ckpt.h5 holds a positive solver_penalty" "$PY" -c \
  "import h5py, sys; sys.exit(0 if h5py.File('half.ckpt.h5', 'r').attrs['solver_penalty'] > 0 else 1)"
# shellcheck disable=SC2086
sg_run restart3 $MPIEXEC -n 3 "$SG" run ../pile.h5 -restart half.ckpt.h5 -o restart3.h5 -t_final "$T100" "${WARM[@]}"
ran_ok "restart from step 50 on 3 ranks with the warm penalty"
pycheck "restart (3 ranks, warm penalty): frames equal the straight run's" frames_equal straight.h5 restart3.h5 11
pycheck "restart (3 ranks, warm penalty): statistics continue the straight run's" stats_continue straight.h5 restart3.h5
cd "$SCRATCH" || exit 1

# expect_error NAME PATTERN... -- ARGS...: `signorini ARGS` in the empty folder errors/NAME fails
# with exactly one error line containing every PATTERN, and writes nothing there.
expect_error() {
  local name=$1; shift
  local patterns=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  mkdir -p "$SCRATCH/errors/$name" && cd "$SCRATCH/errors/$name" || exit 1
  sg_run ../$name "$SG" "$@"
  check "$name: exit status 1 (got $RC)" test "$RC" -eq 1
  local n line p
  n=$(error_lines "../$name.err")
  line=$(grep -m1 '^signorini: error:' "../$name.err")
  if [ "$n" -eq 1 ]; then pass "$name: one error line: $line"
  else fail "$name: exactly one 'signorini: error:' line (found $n)"; show_file "../$name.err"; fi
  for p in "${patterns[@]}"; do check "$name: the message names '$p'" grep -qF -- "$p" <<<"$line"; done
  check "$name: nothing written (found: $(ls -A | tr '\n' ' '))" test -z "$(ls -A)"
  cd "$SCRATCH" || exit 1
}
CKPT=$SCRATCH/a_pile/half.ckpt.h5

section "(b) a checkpoint of another scene"
expect_error other_scene "half.ckpt.h5 was written for a different scene" "hash" "pile_mu05.h5" -- \
  run "$SCRATCH/pile_mu05.h5" -restart "$CKPT" -o out.h5 -t_final "$T100" -checkpoint_every 10
expect_error other_scene_stack "half.ckpt.h5 was written for a different scene" "hash" -- \
  run "$SCRATCH/stack.h5" -restart "$CKPT" -o out.h5 -t_final "$T100"

section "(c) damaged checkpoints and bad restarts"
mkdir -p damaged
cp "$CKPT" damaged/truncated.h5 && truncate -s 2000 damaged/truncated.h5
for e in no_lambda nan_velocity nudge_position; do
  "$PY" "$CK" edit "$CKPT" "damaged/$e.h5" "$e" || fail "making damaged/$e.h5"
done
printf 'not HDF5\n' >damaged/text.h5
D=$SCRATCH/damaged
expect_error truncated "truncated.h5" "truncated or corrupted" -- run "$SCRATCH/pile.h5" -restart "$D/truncated.h5" -o out.h5 -t_final "$T100"
expect_error missing_dataset "no_lambda.h5" "missing dataset /warm/lambda" -- \
  run "$SCRATCH/pile.h5" -restart "$D/no_lambda.h5" -o out.h5 -t_final "$T100"
expect_error nan "nan_velocity.h5" "NaN" "body 104" -- run "$SCRATCH/pile.h5" -restart "$D/nan_velocity.h5" -o out.h5 -t_final "$T100"
expect_error nudged "nudge_position.h5" "corrupted" "state_hash" -- \
  run "$SCRATCH/pile.h5" -restart "$D/nudge_position.h5" -o out.h5 -t_final "$T100"
expect_error missing_file "nothere.h5" "no such file" -- run "$SCRATCH/pile.h5" -restart "$D/nothere.h5" -o out.h5 -t_final "$T100"
expect_error text_file "text.h5" "not a checkpoint" -- run "$SCRATCH/pile.h5" -restart "$D/text.h5" -o out.h5 -t_final "$T100"
expect_error scene_as_checkpoint "pile.h5" "not a checkpoint" "signorini-scene" -- \
  run "$SCRATCH/pile.h5" -restart "$SCRATCH/pile.h5" -o out.h5 -t_final "$T100"
expect_error dt_mismatch "-dt 0.002" "half.ckpt.h5" "0.0041666666666666666" -- \
  run "$SCRATCH/pile.h5" -restart "$CKPT" -o out.h5 -t_final "$T100" -dt 0.002
expect_error theta_mismatch "-theta 0.5" "half.ckpt.h5" -- \
  run "$SCRATCH/pile.h5" -restart "$CKPT" -o out.h5 -t_final "$T100" -theta 0.5
expect_error before_checkpoint "-t_final 0.1" "before" "half.ckpt.h5" -- \
  run "$SCRATCH/pile.h5" -restart "$CKPT" -o out.h5 -t_final 0.1
expect_error checkpoint_dir "$SCRATCH/no_dir/c.h5" "does not exist" -- \
  run "$SCRATCH/pile.h5" -o out.h5 -t_final "$T100" -checkpoint_every 10 -checkpoint "$SCRATCH/no_dir/c.h5"
# the same -dt written out in full is accepted
mkdir -p same_dt && cd same_dt || exit 1
sg_run same_dt "$SG" run ../pile.h5 -restart "$CKPT" -o out.h5 -t_final "$T100" -dt "$DT" "${RUN_OPTS[@]}"
ran_ok "restart with -dt $DT (the checkpoint's) given"
pycheck "restart with -dt given: frames equal the straight run's" frames_equal ../a_pile/straight.h5 out.h5 11
cd "$SCRATCH" || exit 1

section "(d) a run one of whose ranks is killed with SIGKILL ends, and leaves its last checkpoint usable"
EVERY=5
mkdir -p killed && cd killed || exit 1
# descendants PID: the ids of every process below PID.
descendants() {
  local c
  for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}
# shellcheck disable=SC2086
$MPIEXEC -n 2 "$SG" run ../pile.h5 -o long.h5 -t_final 600 -checkpoint_every $EVERY -progress_interval 0 \
  >long.out 2>long.err &
pid=$!
for ((t = 0; t < 300; ++t)); do # up to 30 s for the first checkpoint
  [ -e long.ckpt.h5 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
check "the long run writes long.ckpt.h5" test -e long.ckpt.h5
sleep "$KILL_AFTER"
if kill -0 "$pid" 2>/dev/null; then
  victims=$(for p in $(descendants "$pid"); do [ "$(ps -o comm= -p "$p" 2>/dev/null)" = signorini ] && echo "$p"; done)
  check "found the 2 signorini processes under mpiexec (got: $(echo $victims))" test "$(echo "$victims" | wc -w)" -eq 2
  # one rank dies: the job must end, the other rank not left waiting in a collective
  first=$(echo "$victims" | head -n 1)
  [ -n "$first" ] && kill -9 "$first"
  for ((t = 0; t < 300; ++t)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  ended=1
  kill -0 "$pid" 2>/dev/null && ended=0
  check "killing one rank ends the whole job within 30 s (no rank left waiting)" test "$ended" -eq 1
  # shellcheck disable=SC2086
  [ "$ended" -eq 0 ] && { kill -9 $victims "$pid" 2>/dev/null; }
  { wait "$pid"; } 2>/dev/null
  rc=$?
  check "the run was killed (exit status $rc != 0)" test "$rc" -ne 0
else
  fail "the long run ended by itself before the kill"; show_file long.err
fi
echo "  left behind: $(ls | tr '\n' ' ')"
if "$PY" "$CK" ckpt long.ckpt.h5 ../pile.h5 $EVERY >ckpt.log 2>&1; then
  pass "long.ckpt.h5 opens and is complete ($(grep -c '^  ok' ckpt.log) h5py checks)"
else
  fail "long.ckpt.h5 opens and is complete"; grep -v '^  ok' ckpt.log | show_file /dev/stdin 20
fi
step=$(sed -n 's/^step \([0-9]*\)$/\1/p' ckpt.log)
if [ -n "$step" ]; then
  echo "  the last complete checkpoint is at step $step"
  T_END=$(t_of $((step + 20)))
  sg_run resumed "$SG" run ../pile.h5 -restart long.ckpt.h5 -o resumed.h5 -t_final "$T_END" "${RUN_OPTS[@]}"
  ran_ok "restart from the killed run's checkpoint (1 rank), 20 more steps"
  # shellcheck disable=SC2086
  sg_run reference $MPIEXEC -n 2 "$SG" run ../pile.h5 -o reference.h5 -t_final "$T_END" "${RUN_OPTS[@]}"
  ran_ok "the same run straight through (2 ranks)"
  pycheck "restart after the kill: frames equal the straight run's" frames_equal reference.h5 resumed.h5 4
  pycheck "restart after the kill: statistics continue the straight run's" stats_continue reference.h5 resumed.h5
fi
cd "$SCRATCH" || exit 1

section "(e) bodies enter and leave: the body set goes through checkpoints"
mkdir -p flow && cd flow || exit 1
# same_checkpoint A B: the same bodies by id (description and state), next_gid, hooks' state, warm
# start and state_hash, bit for bit.
same_checkpoint() {
  "$PY" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
def load(p):
    f = h5py.File(p, "r"); b = f["bodies"]
    gid = b["gid"][()] if "gid" in b else np.arange(b["shape"].shape[0])
    o = np.argsort(gid, kind="stable")
    d = {k: b[k][()][o] for k in ("shape", "size", "material", "fixed", "density", "position", "orientation", "velocity")}
    w = np.lexsort((f["warm/feature"][()], f["warm/gid_b"][()], f["warm/gid_a"][()]))
    d.update(gid=gid[o], next_gid=int(b.attrs["next_gid"]), state_hash=int(f.attrs["state_hash"]),
             hooks=f["hooks/state"][()], names=str(f["hooks/state"].attrs["names"]), lam=f["warm/lambda"][()][w])
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = [k for k in a if not np.array_equal(a[k], b[k])]
print(f"{len(a['gid'])} bodies, next_gid {a['next_gid']}, hooks {a['names']}; differing: {bad or 'none'}")
sys.exit(1 if bad else 0)
PY
}
"$SG" generate silo -n 60 -radius 0.005 -drop 0.1 -gate_open 0.05 -outflow_depth 0.03 -inflow_rate 200 -o flow.h5 >gen.out 2>&1
check "generate silo with an inflow and an outflow: exit status 0" test $? -eq 0
"$SG" generate silo -n 60 -radius 0.005 -drop 0.1 -gate_open 0.05 -outflow_depth 0.03 -inflow_rate 100 -o flow_rate.h5 >gen2.out 2>&1
T60=$(t_of 60)
T90=$(t_of 90)
T120=$(t_of 120)
# shellcheck disable=SC2086
sg_run straight $MPIEXEC -n 2 "$SG" run flow.h5 -o straight.h5 -t_final "$T120" -checkpoint_every 120 "${RUN_OPTS[@]}"
ran_ok "flow: straight run to step 120 (2 ranks)"
# shellcheck disable=SC2086
sg_run half $MPIEXEC -n 2 "$SG" run flow.h5 -o half.h5 -t_final "$T60" -checkpoint_every 60 "${RUN_OPTS[@]}"
ran_ok "flow: run to step 60 (2 ranks)"
check "flow: half.ckpt.h5 holds ids with gaps (/bodies/gid)" "$PY" -c \
  'import sys, h5py; g = h5py.File(sys.argv[1], "r")["bodies/gid"][()]; sys.exit(0 if len(g) < g.max() + 1 else 1)' half.ckpt.h5
sg_run info "$SG" info half.ckpt.h5
check "flow: info on half.ckpt.h5 shows the body count and next_gid" grep -qE '^  ids: [0-9]+ bodies, .*next_gid [0-9]+' info.out
# shellcheck disable=SC2086
sg_run rest3 $MPIEXEC -n 3 "$SG" run flow.h5 -restart half.ckpt.h5 -o rest3.h5 -t_final "$T90" -checkpoint_every 30 "${RUN_OPTS[@]}"
ran_ok "flow: restart from step 60 on 3 ranks to step 90"
sg_run rest31 "$SG" run flow.h5 -restart rest3.ckpt.h5 -o rest31.h5 -t_final "$T120" -checkpoint_every 30 "${RUN_OPTS[@]}"
ran_ok "flow: restart of the restart (step 90) on 1 rank to step 120"
# shellcheck disable=SC2086
sg_run rest4 $MPIEXEC -n 4 "$SG" run flow.h5 -restart half.ckpt.h5 -o rest4.h5 -t_final "$T120" -checkpoint_every 60 "${RUN_OPTS[@]}"
ran_ok "flow: restart from step 60 on 4 ranks to step 120"
for r in rest31 rest4; do
  if same_checkpoint straight.ckpt.h5 $r.ckpt.h5 >same_$r.log 2>&1; then pass "flow: $r.ckpt.h5 is the straight run's checkpoint bit for bit ($(cat same_$r.log))"
  else fail "flow: $r.ckpt.h5 is the straight run's checkpoint bit for bit"; show_file same_$r.log; fi
done
pycheck "flow: restart (4 ranks): frames equal the straight run's" frames_equal straight.h5 rest4.h5 3
cd "$SCRATCH" || exit 1
expect_error flow_other_rate "half.ckpt.h5 was written for a different scene" "flow_rate.h5" -- \
  run "$SCRATCH/flow/flow_rate.h5" -restart "$SCRATCH/flow/half.ckpt.h5" -o out.h5 -t_final "$T120"

finish
