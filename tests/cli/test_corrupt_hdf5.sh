#!/bin/bash
# Corrupted HDF5 files that crashed or hung `info`, `run` and `run -restart` inside HDF5 1.10 (found
# by the fuzz harnesses, tests/fuzz; issue 17 item 3: "an HDF5 string attribute corrupted by two bit
# flips"): each must now end with exit 1 and one line "signorini: error: ..." naming the file and
# what is wrong, well within the time limit. corrupt_h5.py makes each case from a fresh scene.
# Usage: test_corrupt_hdf5.sh path/to/signorini scratch_dir
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SG_CMD_TIMEOUT=${SG_CMD_TIMEOUT:-30}
source "$HERE/cli_lib.sh" "$@"

section "scenes and a checkpoint to corrupt"
"$SG" generate pile -n 8 -o scene.h5 >gen.log 2>&1
"$SG" run scene.h5 -o run.h5 -t_final 0.025 -checkpoint_every 3 -fclib_dump_step 2 -fclib_dump_file problem.hdf5 >run.log 2>&1
check "generate and a short run with a checkpoint and an FCLIB problem" test -f scene.h5 -a -f run.ckpt.h5 -a -f problem.hdf5

# expect [-n NP] CASE FILE PATTERN COMMAND...: the corrupted copy of FILE fails COMMAND (FILE's name
# replaced by the copy's) with one error line containing PATTERN; with -n, on NP ranks (every rank
# must stop: mpiexec's exit 1, not a crash's or an abort's code, nor a hang).
expect() {
  local launch=()
  if [ "$1" = -n ]; then launch=($MPIEXEC -n "$2"); shift 2; fi
  local case=$1 src=$2 pattern=$3; shift 3
  local bad=${case}_$(basename "$src")
  if ! "$PY" "$HERE/corrupt_h5.py" "$case" "$src" "$bad" >"$bad.py.log" 2>&1; then
    fail "$case: cannot make the case"; show_file "$bad.py.log"; return
  fi
  local args=() a
  for a in "$@"; do [ "$a" = "$src" ] && args+=("$bad") || args+=("$a"); done
  sg_run "$bad" "${launch[@]}" "$SG" "${args[@]}"
  if [ "$RC" -eq 1 ] && [ "$(error_lines "$bad.err")" -eq 1 ] && grep -q "$pattern" "$bad.err"; then
    pass "$case: ${launch[*]:+${launch[*]} }$* -> $(grep '^signorini: error:' "$bad.err" | cut -c1-150)"
  else
    fail "$case: ${launch[*]:+${launch[*]} }$* (exit $RC, expected 1 and one line with '$pattern')"; show_file "$bad.err"
  fi
}

section "corrupted types and storage"
expect float_size scene.h5 "dataset /bodies/velocity has values of" info scene.h5
expect float_fields scene.h5 "dataset /bodies/size has a non-standard number type" run scene.h5 -o out.h5 -t_final 0.01
expect compact_friction scene.h5 "dataset /materials/friction stores 0 bytes" info scene.h5

section "a contiguous dataset whose extent and stored size run past the end of the file"
expect contiguous_extent problem.hdf5 "dataset /fclib_global/M/p claims 17112760516 bytes, past the end of the" fclib problem.hdf5 -solver pgs

section "a chunked layout of dimensionality 0 (SIGFPE inside H5Dopen2)"
expect chunk_rank scene.h5 "corrupted HDF5 object header (a chunked layout's dimensionality is outside 2 to 33)" info scene.h5
expect -n 2 chunk_rank scene.h5 "corrupted HDF5 object header (a chunked layout's dimensionality is outside 2 to 33)" run scene.h5 -o out.h5 -t_final 0.01

section "a group name heap whose data segment is 16 GB"
expect name_heap_size scene.h5 "a group's name heap lies outside the file" info scene.h5
expect name_heap_size run.ckpt.h5 "a group's name heap lies outside the file" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05

section "the root group's name heap: reserved bytes set, a data size of 256 TB"
expect root_heap_reserved scene.h5 "corrupted HDF5 object header (a group's name heap lies outside the file)" info scene.h5
expect root_heap_reserved run.ckpt.h5 "corrupted HDF5 object header (a group's name heap lies outside the file)" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05
expect root_heap_reserved scene.h5 "corrupted HDF5 object header (a group's name heap lies outside the file)" fclib scene.h5 -solver pgs

section "the root group header's continuation block claims 2^55 bytes"
msg="corrupted HDF5 object header (a block of over 1 MiB) (on the root group)"
expect root_cont_length scene.h5 "$msg" info scene.h5
expect root_cont_length run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05
expect root_cont_length scene.h5 "$msg" fclib scene.h5 -solver pgs

section "a base address of 256 and a continuation block of 2^56 bytes below the root (/bodies)"
msg="corrupted HDF5 object header (a block of over 1 MiB) (on the object at byte [0-9]*, below the root group)"
expect base_cont_length scene.h5 "$msg" info scene.h5
expect -n 2 base_cont_length scene.h5 "$msg" run scene.h5 -o out.h5 -t_final 0.01

section "a group whose symbol table points at no B-tree (the root group)"
expect root_btree_addr scene.h5 "corrupted HDF5 object header (a group's B-tree address points at no B-tree)" info scene.h5
expect root_btree_addr scene.h5 "corrupted HDF5 object header" run scene.h5 -o out.h5 -t_final 0.01
expect root_btree_addr scene.h5 "corrupted HDF5 object header" fclib scene.h5 -solver pgs

section "corrupted variable-length strings (the root attribute kind)"
expect vlen_length scene.h5 "attribute kind is a corrupted variable-length string" info scene.h5
expect vlen_index scene.h5 "attribute kind is a corrupted variable-length string" info scene.h5
expect heap_object_size scene.h5 "attribute kind is a corrupted variable-length string" info scene.h5
expect vlen_index run.ckpt.h5 "attribute kind is a corrupted variable-length string" info run.ckpt.h5
expect vlen_length run.ckpt.h5 "attribute kind is a corrupted variable-length string" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05

section "a dataset's fill value message flagged shared (through a table a superblock-0 file has not)"
msg="corrupted HDF5 object header (a message shared through a table the file does not have)"
expect fill_shared_scene scene.h5 "$msg" info scene.h5
expect -n 2 fill_shared_scene scene.h5 "$msg" run scene.h5 -o out.h5 -t_final 0.01
expect fill_shared_fclib problem.hdf5 "$msg" fclib problem.hdf5 -solver pgs

section "a variable-length string type whose size says 48 bytes (the root attribute kind)"
expect vlen_type_size scene.h5 "corrupted HDF5 object header (an attribute's variable-length type has a corrupted size)" info scene.h5
expect vlen_type_size run.ckpt.h5 "corrupted HDF5 object header (an attribute's variable-length type has a corrupted size)" info run.ckpt.h5

section "a variable-length string whose one-byte character has a bit offset of 65280 (the root attribute kind)"
msg="attribute kind is a variable-length string whose characters are not one byte (a corrupted type)"
expect vlen_base_offset scene.h5 "$msg" info scene.h5
expect -n 2 vlen_base_offset scene.h5 "$msg" run scene.h5 -o out.h5 -t_final 0.01
expect vlen_base_offset run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05

section "a superblock pointing at a driver information block of 2.7 GB"
msg="truncated or corrupted HDF5 file (the superblock's driver information block runs past the end of the file)"
expect driver_block_size scene.h5 "$msg" info scene.h5
expect -n 2 driver_block_size scene.h5 "$msg" run scene.h5 -o out.h5 -t_final 0.01
expect driver_block_size run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05
expect driver_block_size problem.hdf5 "$msg" fclib problem.hdf5 -solver pgs

section "a version-1 attribute's reserved byte set, its collection's free space 0 bytes (the root attribute kind)"
msg="attribute kind is a corrupted variable-length string (its collection's free space is corrupted)"
expect vlen_flags_free_zero scene.h5 "$msg" info scene.h5
expect vlen_flags_free_zero run.ckpt.h5 "$msg" info run.ckpt.h5
expect -n 2 vlen_flags_free_zero run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05

section "an empty variable-length string whose index is corrupted (a checkpoint's /hooks/state names)"
msg="attribute names is a corrupted variable-length string (its collection does not hold its object) (on dataset /hooks/state)"
expect empty_vlen_index run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o hooks_out.h5 -t_final 0.05
expect -n 2 empty_vlen_index run.ckpt.h5 "$msg" run scene.h5 -restart run.ckpt.h5 -o hooks_out.h5 -t_final 0.05
check "empty_vlen_index: no output left by the refused restarts" test ! -e hooks_out.h5

section "an attribute message whose sizes run past it (the root's format_version, /bodies next_gid)"
expect attr_space_size scene.h5 "corrupted HDF5 object header (an attribute's data runs past its message)" info scene.h5
expect attr_space_size run.ckpt.h5 "corrupted HDF5 object header" info run.ckpt.h5
expect next_gid_space_size run.ckpt.h5 "corrupted HDF5 object header (an attribute's data runs past its message)" info run.ckpt.h5
expect next_gid_space_size run.ckpt.h5 "corrupted HDF5 object header" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05
expect next_gid_space_size scene.h5 "corrupted HDF5 object header" run scene.h5 -o out.h5 -t_final 0.01

section "a group name heap whose free list loops"
expect name_heap_loop scene.h5 "a group's name heap has a corrupted free list" info scene.h5
expect name_heap_loop run.ckpt.h5 "a group's name heap has a corrupted free list" run scene.h5 -restart run.ckpt.h5 -o out.h5 -t_final 0.05
finish
