#!/bin/bash
# A full disk under each writer (issue 17, items 4 and 5): the scene (generate), the trajectory
# (run -o: its layout, its frames, its .xmf), the checkpoint (run -checkpoint), the FCLIB problem
# (run -fclib_dump_file) and the FCLIB solution (fclib -write_solution), each writing into a small
# tmpfs, on 1 and 2 ranks (every command under a time limit: a hang fails its case). Each
# must end with exit 1 and one line "signorini: error: ...", leave nothing under its final name
# (nor a temporary file), and not crash at MPI_Finalize (HDF5 1.10 closed a file whose close had
# failed a second time there: SIGSEGV after the error line). Needs root to mount the tmpfs:
# otherwise the test is skipped (exit 77, CTest's SKIP_RETURN_CODE for the command-line tests).
# Usage: test_full_disk.sh path/to/signorini scratch_dir
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SG_CMD_TIMEOUT=${SG_CMD_TIMEOUT:-60}
source "$HERE/cli_lib.sh" "$@"
DISK=$SCRATCH/disk
mkdir -p "$DISK"

# small_disk SIZE: a fresh, empty tmpfs of SIZE at $DISK
small_disk() {
  umount "$DISK" 2>/dev/null
  mount -t tmpfs -o "size=$1" tmpfs "$DISK"
}
if ! small_disk 64k 2>mount.err; then
  echo "SKIPPED: cannot mount a tmpfs ($(head -n 1 mount.err)); the full-disk cases need root"
  cd / && rm -rf "$SCRATCH"
  exit 77
fi
trap 'umount "$DISK" 2>/dev/null' EXIT

section "a scene, a short run and an FCLIB problem on the ordinary disk"
"$SG" generate pile -n 200 -o scene.h5 >gen.log 2>&1
"$SG" run scene.h5 -o ref.h5 -t_final 0.025 -fclib_dump_step 3 -fclib_dump_file problem.hdf5 >ref.log 2>&1
check "generate and a run with an FCLIB problem" test -f scene.h5 -a -f problem.hdf5

# full NAME NP SIZE FINAL COMMAND...: COMMAND on NP ranks, with a tmpfs of SIZE at $DISK, must fail
# with exit 1 (mpiexec's, when a rank exits 1; a crash gives 134, 139 or 59), one error line, and
# leave $DISK empty (FINAL, the final name, included) and no out.h5 or out.xmf here.
full() {
  local name=$1 np=$2 size=$3 final=$4; shift 4
  rm -f out.h5 out.xmf out.h5.partial
  if ! small_disk "$size"; then fail "$name: cannot mount the tmpfs"; return; fi
  sg_run "$name" $MPIEXEC -n "$np" "$SG" "$@"
  local left
  left=$( (ls -A "$DISK"; ls out.h5 out.xmf 2>/dev/null) | tr '\n' ' ')
  if [ "$RC" -eq 1 ] && [ "$(error_lines "$name.err")" -eq 1 ] && [ ! -e "$DISK/$final" ] && [ -z "$left" ] &&
     ! grep -qi "segmentation\|signal\|MPI_ABORT" "$name.err"; then
    pass "$name (-n $np, $size): $(grep '^signorini: error:' "$name.err" | cut -c1-140)"
  else
    fail "$name (-n $np, $size): exit $RC, expected 1 with one error line and nothing left (left: ${left:-nothing})"
    show_file "$name.err"
  fi
}

for np in 1 2; do
  section "$np rank(s)"
  full scene_$np $np 64k scene.h5 generate pile -n 2000 -o "$DISK/scene.h5"
  # the file's layout: HDF5 1.10 fills the chunks of /ids at their creation (a collective write,
  # then a barrier that a rank whose write failed skips: the others waited in it for ever)
  full trajectory_create_$np $np 64k out.h5 run scene.h5 -o "$DISK/out.h5" -t_final 0.05
  # the frames: a disk that holds the file's layout and its first frames
  full trajectory_frames_$np $np 256k out.h5 run scene.h5 -o "$DISK/out.h5" -t_final 0.05
  full checkpoint_$np $np 16k ck.h5 run scene.h5 -o out.h5 -t_final 0.05 -checkpoint "$DISK/ck.h5" -checkpoint_every 2
  full fclib_dump_$np $np 16k p.hdf5 run scene.h5 -o out.h5 -t_final 0.05 -fclib_dump_step 3 -fclib_dump_file "$DISK/p.hdf5"
  full fclib_solution_$np $np 16k sol.hdf5 fclib problem.hdf5 -solver pgs -write_solution -solution_file "$DISK/sol.hdf5"
done

# The .xmf, written after the frames: a disk that holds the .h5 and half of the .xmf (sizes from a
# run on the ordinary disk; few bodies and a frame per step make the .xmf the larger file).
section "the .xmf of a trajectory whose .h5 fits"
"$SG" generate pile -n 2 -o tiny.h5 >tiny.log 2>&1
SG_CMD_TIMEOUT=300 # 120 frames, each written by every rank: minutes under the sanitizers on a busy machine
for np in 1 2; do
  rm -f xref.h5 xref.xmf
  sg_run xmf_ref_$np $MPIEXEC -n "$np" "$SG" run tiny.h5 -o xref.h5 -t_final 0.5 -output_every 1
  if [ "$RC" -ne 0 ] || [ ! -f xref.xmf ]; then fail "xmf_$np: the run on the ordinary disk failed (exit $RC)"; continue; fi
  size=$(( ($(stat -c %s xref.h5) + $(stat -c %s xref.xmf) / 2) / 1024 ))k
  full xmf_$np "$np" "$size" out.xmf run tiny.h5 -o "$DISK/out.h5" -t_final 0.5 -output_every 1
  check "xmf_$np: the error names the .xmf" grep -q '^signorini: error: .*out\.xmf' xmf_$np.err
done
umount "$DISK"
trap - EXIT
finish
