#!/usr/bin/env bash
# Run options carried by a scene (include/signorini/scene_options.h): `generate pile` writes its kind's
# solver settings into /world/run_options; `run` takes them below its command line. Checked: they
# are taken and reported; a command-line value overrides each (the same bits as the built-in
# defaults when both are overridden); -scene_options false leaves them out; with another solver they
# may stay unused while a mistyped option is still refused; SubADMM with them keeps its bits on 1, 2
# and 3 ranks; a scene without them (-run_options none) runs with the built-in defaults; an attribute
# naming a forbidden or malformed option is refused with one line naming file and attribute, and no
# output is written. A silo's `-contact_margin_factor 0.3` gives a margin of 0.3 smallest radii, the
# factor on the command line overrides it and `-contact_margin` overrides both.
# Arguments: signorini binary, scratch dir. Environment: SG_MPIEXEC.
source "$(dirname "$0")/cli_lib.sh" "$@"

RUN_ARGS=(-t_final 0.1 -progress_interval 0)
sg_run gen "$SG" generate pile -n 150 -o pile.h5
check "generate pile" [ "$RC" -eq 0 ]
sg_run info "$SG" info pile.h5
check "info lists the scene's run options" grep -q '^  run options: -subadmm_relax 1.8 -subadmm_contact_tol 1e-4$' info.out

section "taken, overridden, left out"
sg_run scene "$SG" run pile.h5 -o scene.h5 "${RUN_ARGS[@]}"
check "a run takes them (exit 0)" [ "$RC" -eq 0 ]
check "the summary names them" grep -q 'options from the scene     -subadmm_relax 1.8 -subadmm_contact_tol 1e-4' scene.out
sg_run builtin "$SG" run pile.h5 -o builtin.h5 "${RUN_ARGS[@]}" -scene_options false
check "-scene_options false runs" [ "$RC" -eq 0 ]
check "-scene_options false: no options from the scene" bash -c '! grep -q "options from the scene" builtin.out'
sg_run override "$SG" run pile.h5 -o override.h5 "${RUN_ARGS[@]}" -subadmm_relax 1 -subadmm_contact_tol 0
check "both overridden on the command line runs" [ "$RC" -eq 0 ]
sg_run half "$SG" run pile.h5 -o half.h5 "${RUN_ARGS[@]}" -subadmm_relax 1
check "one overridden: the other still taken" grep -q 'options from the scene     -subadmm_contact_tol 1e-4 ' half.out
sg_run plain_gen "$SG" generate pile -n 150 -o plain.h5 -run_options none
sg_run plain "$SG" run plain.h5 -o plain_run.h5 "${RUN_ARGS[@]}"
check "a scene generated with -run_options none runs" [ "$RC" -eq 0 ]
sg_run plain_info "$SG" info plain.h5
check "a scene generated with -run_options none carries none" bash -c '! grep -q "run options" plain_info.out'
"$PY" - <<'PY' && pass "trajectories: overridden = left out = none carried; the scene's settings change the solve" || fail "trajectories do not relate as the precedence says"
import h5py, numpy as np
pos = {n: h5py.File(f'{n}.h5', 'r')['frames/position'][()] for n in ('scene', 'builtin', 'override', 'plain_run')}
attrs = h5py.File('scene.h5', 'r').attrs
taken = attrs.get('scene_options', b'')
taken = taken.decode() if isinstance(taken, bytes) else taken
ok = (np.array_equal(pos['builtin'], pos['override']) and np.array_equal(pos['builtin'], pos['plain_run'])
      and not np.array_equal(pos['scene'], pos['builtin']) and taken == '-subadmm_relax 1.8 -subadmm_contact_tol 1e-4'
      and 'scene_options' not in h5py.File('builtin.h5', 'r').attrs)
print(f'    scene vs built-in: largest position difference {float(np.max(np.abs(pos["scene"] - pos["builtin"]))):.3e} m; trajectory attribute: {taken!r}')
raise SystemExit(0 if ok else 1)
PY

section "another solver"
sg_run pgs "$SG" run pile.h5 -o pgs.h5 "${RUN_ARGS[@]}" -solver pgs
check "-solver pgs: the scene's SubADMM options may stay unused (exit 0)" [ "$RC" -eq 0 ]
sg_run typo "$SG" run pile.h5 -o typo.h5 "${RUN_ARGS[@]}" -subadmm_relx 1.5
[ "$RC" -ne 0 ] && grep -q "unknown option -subadmm_relx" typo.err && pass "a mistyped option is still refused" || fail "a mistyped option was not refused"

section "ranks"
for np in 1 2 3; do
  sg_run ranks_$np $MPIEXEC -n "$np" "$SG" run pile.h5 -o ranks_$np.h5 "${RUN_ARGS[@]}"
  check "$np rank(s) with the scene's options (exit 0)" [ "$RC" -eq 0 ]
done
"$PY" - <<'PY' && pass "the same bits on 1, 2 and 3 ranks" || fail "the scene's settings differ across ranks"
import h5py, numpy as np
ref = h5py.File('ranks_1.h5', 'r')['frames/position'][()]
raise SystemExit(0 if all(np.array_equal(ref, h5py.File(f'ranks_{n}.h5', 'r')['frames/position'][()]) for n in (2, 3)) else 1)
PY

section "a silo's contact margin"
sg_run silo_gen "$SG" generate silo -n 150 -o silo.h5
sg_run silo_info "$SG" info silo.h5
check "generate silo carries -contact_margin_factor 0.3" grep -q 'run options: .*-contact_margin_factor 0.3' silo_info.out
for run in scene:"" factor:"-contact_margin_factor 0.2" margin:"-contact_margin 0.0005"; do
  name=${run%%:*}
  sg_run margin_$name "$SG" run silo.h5 -o margin_$name.h5 -t_final 0.0084 -checkpoint_every 2 -progress_interval 0 ${run#*:}
  check "silo run, margin from the $name (exit 0)" [ "$RC" -eq 0 ]
done
"$PY" - <<'PY' && pass "the margin: 0.3 smallest radii from the scene, 0.2 with the factor overridden, -contact_margin above both" || fail "the silo's margin"
import h5py, numpy as np
b = h5py.File('silo.h5', 'r')['bodies']
r = float(np.min(b['size'][()][(b['shape'][()] == 0) & (b['fixed'][()] == 0), 0]))  # the grains' smallest radius
got = {n: float(h5py.File(f'margin_{n}.ckpt.h5', 'r').attrs['contact_margin']) for n in ('scene', 'factor', 'margin')}
print(f'    smallest radius {r:.4g} m; margins {got}')
raise SystemExit(0 if np.isclose(got['scene'], 0.3 * r, rtol=1e-12) and np.isclose(got['factor'], 0.2 * r, rtol=1e-12)
                 and got['margin'] == 0.0005 else 1)
PY

section "bad attributes"
i=0
for text in '-subadmm_relax 1.8 -o /tmp/elsewhere.h5' '1.8 -subadmm_relax' '-subadmm_relax 1 -subadmm_relax 2' '-options_file x.txt'; do
  i=$((i + 1))
  cp pile.h5 bad$i.h5
  "$PY" -c "import h5py, sys; h5py.File('bad$i.h5', 'r+')['world'].attrs['run_options'] = sys.argv[1]" "$text"
  sg_run bad$i "$SG" run bad$i.h5 -o bad_out$i.h5 "${RUN_ARGS[@]}"
  if [ "$RC" -ne 0 ] && [ "$(error_lines bad$i.err)" -eq 1 ] && grep -q "bad$i.h5: attribute run_options of /world" bad$i.err && [ ! -e bad_out$i.h5 ]; then
    pass "'$text': refused, one line naming the file and attribute, no output"
  else
    fail "'$text': not refused as expected (rc $RC)"; show_file bad$i.err
  fi
done
cp pile.h5 badvalue.h5
"$PY" -c "import h5py; h5py.File('badvalue.h5', 'r+')['world'].attrs['run_options'] = '-subadmm_relax x'"
sg_run badvalue "$SG" run badvalue.h5 -o badvalue_out.h5 "${RUN_ARGS[@]}"
if [ "$RC" -ne 0 ] && [ "$(error_lines badvalue.err)" -eq 1 ] && grep -q "option -subadmm_relax: 'x'.*from the run options of badvalue.h5" badvalue.err && [ ! -e badvalue_out.h5 ]; then
  pass "a malformed value from the scene: refused, the line names the scene as its source"
else
  fail "a malformed value from the scene was not refused as expected (rc $RC)"; show_file badvalue.err
fi
finish
