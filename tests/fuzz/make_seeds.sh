#!/usr/bin/env bash
# Seed corpora of the fuzz targets, made from the project's own files at test time (nothing binary
# is committed): scenes from `signorini generate`, checkpoints and an FCLIB problem from short runs
# of them, the FCLIB problems of ../shared/fclib when that folder exists, and options files.
# Usage: make_seeds.sh path/to/signorini OUT_DIR [SHARED_FCLIB_DIR]
# Writes OUT_DIR/{scene,checkpoint,fclib,options}/ (one corpus per target), OUT_DIR/scenes/ (the
# scenes the checkpoints belong to: SG_FUZZ_SCENE of fuzz_checkpoint) and an empty OUT_DIR/findings/.
set -eu
sg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shared=${3:-}
rm -rf "$out"
mkdir -p "$out"/{scene,checkpoint,fclib,options,scenes,findings,work}
cd "$out/work"

quiet() { "$@" >/dev/null 2>&1 || { echo "make_seeds: failed: $*" >&2; "$@"; exit 1; }; }

# A tetrahedron as an ASCII STL: a mesh wall in a scene.
cat >tet.stl <<'STL'
solid tet
facet normal 0 0 -1
 outer loop
  vertex 0 0 0
  vertex 0 1 0
  vertex 1 0 0
 endloop
endfacet
facet normal 0 -1 0
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 0 1
 endloop
endfacet
facet normal -1 0 0
 outer loop
  vertex 0 0 0
  vertex 0 0 1
  vertex 0 1 0
 endloop
endfacet
facet normal 1 1 1
 outer loop
  vertex 1 0 0
  vertex 0 1 0
  vertex 0 0 1
 endloop
endfacet
endsolid tet
STL

# Scenes: every shape, meshes, motions (the drum's kinematic walls), regions (inflow, outflow),
# size distributions, several materials' worth of tables.
quiet "$sg" generate pile -n 8 -o "$out/scene/pile.h5"
quiet "$sg" generate incline -o "$out/scene/incline.h5"
quiet "$sg" generate stack -n 3 -o "$out/scene/stack.h5"
quiet "$sg" generate pile -n 4 -size_dist lognormal -radius_sigma 0.2 -restitution 0.5 -o "$out/scene/poly.h5"
quiet "$sg" generate incline -spheres 2 -stl tet.stl -o "$out/scene/mesh.h5"
quiet "$sg" generate drum -fill 0.01 -o "$out/scene/drum.h5"
quiet "$sg" generate silo -n 10 -outflow_depth 0.01 -inflow_rate 100 -o "$out/scene/flow.h5"

# Checkpoints (warm starts, hooks' state, ids with gaps, kinematic walls) and their scenes.
for s in pile drum flow; do
  cp "$out/scene/$s.h5" "$out/scenes/$s.h5"
  quiet "$sg" run "$out/scenes/$s.h5" -o "$s.out.h5" -t_final 0.025 -checkpoint_every 3 -checkpoint "$out/checkpoint/$s.ckpt.h5"
done

# FCLIB: a step of the pile dumped by the project, and the shared reference problems.
quiet "$sg" run "$out/scenes/pile.h5" -o dump.out.h5 -t_final 0.05 -fclib_dump_step 10 -fclib_dump_file "$out/fclib/pile-step10.hdf5"
if [ -n "$shared" ] && [ -d "$shared" ]; then
  for f in "$shared"/*.hdf5; do [ -f "$f" ] && cp "$f" "$out/fclib/"; done
fi

# Options files: every kind of line the check accepts, and the kinds it refuses.
o=$out/options
printf -- '-t_final 0.5\n-dt 0.001\n-solver subadmm\n-solver_max_it 200\n-solver_tol 1e-8\n' >"$o/run.opts"
printf -- '# comment\n\n-solver canal # trailing\n-canal_ksp_type cg\n-canal_pc_type bjacobi\n-theta 0.5\n' >"$o/canal.opts"
printf -- '-solver sap\n-sap_stiffness 1e8\n-contact_margin 0.001\n-contact_erp 0.3\n-restitution_threshold 0.01\n' >"$o/sap.opts"
printf -- '-solver nsn\r\n-nsn_damping 0.5\r\n-solver_monitor\r\n-solver_view false\r\n' >"$o/crlf.opts"
printf -- '-fclib_dump_step 3\n-fclib_dump_file x.hdf5\n-size_dist mixture\n-mixture 0.001:0.5,0.002:0.5\n' >"$o/dump.opts"
printf -- '\t-output_every\t8\n-repartition_every 0\n-contact_recheck 2\n-subadmm_beta 10\n' >"$o/tabs.opts"
printf -- '-t_final 0.02 0.03\n' >"$o/two_values.opts"
printf -- 't_final 1\n' >"$o/no_dash.opts"
printf -- '-options_file other.opts\n' >"$o/nested.opts"
printf -- '-no_such_option 1\n-dt nan\n' >"$o/unknown.opts"
rm -rf "$out/work"
echo "make_seeds: $(ls "$out/scene" | wc -l) scenes, $(ls "$out/checkpoint" | wc -l) checkpoints," \
  "$(ls "$out/fclib" | wc -l) FCLIB problems, $(ls "$o" | wc -l) options files in $out"
