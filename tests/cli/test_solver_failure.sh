#!/usr/bin/env bash
# A step that fails (here: a finite initial velocity of 1e307 m/s makes SubADMM overflow, which it
# reports as divergence) stops the run with one error line naming the step, exit status 1, no
# out.h5 or out.xmf, and out.h5.partial kept with complete = 0 and the last good state as its final
# frame (here the initial state). Arguments: signorini binary, scratch dir.
set -u
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }
"$bin" generate pile -n 20 -o pile.h5 > /dev/null || exit 1
/usr/bin/python3 - <<'PY' || exit 1
import h5py
with h5py.File('pile.h5', 'r+') as f:
    v = f['bodies/velocity'][()]
    v[-1, 0] = 1e307           # the last body: a moving sphere
    f['bodies/velocity'][...] = v
PY
"$bin" run pile.h5 -o out.h5 -t_final 0.1 > run.out 2> run.err
rc=$?
check "exit status 1" "[ $rc -eq 1 ]"
check "exactly one line on stderr" "[ \$(grep -c . run.err) -eq 1 ]"
check "it is the error line naming the step" "grep -q '^signorini: error: .*(in step 1; the last good state, t = 0 s, is the final frame of out.h5.partial)' run.err"
check "no out.h5 / out.xmf" "[ ! -e out.h5 ] && [ ! -e out.xmf ]"
check "out.h5.partial kept" "[ -e out.h5.partial ]"
/usr/bin/python3 - <<'PY' || fail=1
import h5py, numpy as np
f = h5py.File('out.h5.partial', 'r')
s = h5py.File('pile.h5', 'r')
assert f.attrs['complete'] == 0, 'complete must be 0'
pos = f['frames/position'][()]
assert np.array_equal(pos[-1], s['bodies/position'][()]), 'final frame must be the last good (initial) state'
print('ok    .partial has complete = 0 and the last good state as its final frame')
PY
cat run.err
exit $fail
