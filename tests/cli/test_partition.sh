#!/bin/bash
# `signorini partition`: the table for -parts 2,4 on a generated pile (proximity graph, and the
# contact graph of a touching pile), one row per P with a sane cut and imbalance, reproducible,
# printed once on 2 ranks; bad values (-parts 0, -parts abc, no -parts, more parts than bodies, an
# unknown -method) give exactly one "signorini: error:" line and a non-zero exit status.
# Usage: test_partition.sh path/to/signorini scratch_dir   (env SG_MPIEXEC: mpiexec and its flags)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/cli_lib.sh" "$@"

# table_row NAME P: the row of the table for P parts (first column P)
table_row() { awk -v p="$2" '$1 == p && NF >= 8' "$1.out"; }

# check_table NAME P...: exit 0, a header, one row per P with cut >= 0 and imbalance in [1, 1.05]
check_table() {
  local name=$1; shift
  if [ "$RC" -eq 0 ]; then pass "$name: exit status 0"; else
    fail "$name: exit status 0 (got $RC)"; show_file "$name.err"; return; fi
  check "$name: no error line" test "$(error_lines "$name.err")" -eq 0
  check "$name: table header" grep -qE '^ +P +method +edge_cut +imbalance' "$name.out"
  check "$name: total time line" grep -qE '^total [0-9.]+ s' "$name.out"
  local p row
  for p in "$@"; do
    row=$(table_row "$name" "$p")
    if [ "$(printf '%s\n' "$row" | grep -c .)" -ne 1 ]; then
      fail "$name: exactly one row for P = $p"; show_file "$name.out" 20; continue
    fi
    pass "$name: one row for P = $p"
    check "$name: P = $p: edge cut is a number >= 0, imbalance in [1, 1.05]" \
      awk -v r="$row" 'BEGIN { split(r, f); exit !(f[3] ~ /^[0-9]+$/ && f[4] >= 1 && f[4] <= 1.05) }'
    check "$name: P = $p: halo min/mean/max and memory min/mean/max" \
      awk -v r="$row" 'BEGIN { split(r, f); exit !(split(f[5], h, "/") == 3 && split(f[7], m, "/") == 3 && h[1] <= h[3] && m[1] <= m[3] + 0) }'
  done
}

section "a pile (proximity graph)"
sg_run gen "$SG" generate pile -n 400 -o pile.h5
check "generate pile: exit status 0 (got $RC)" test "$RC" -eq 0
sg_run prox "$SG" partition pile.h5 -parts 2,4
check_table prox 2 4
check "prox: 2 parts by recursive bisection (auto)" test "$(table_row prox 2 | awk '{print $2}')" = rb
check "prox: the graph line names the proximity margin" grep -qE '^graph: proximity \(margin' prox.out
sg_run prox_again "$SG" partition pile.h5 -parts 2,4
check "prox: the same table the second time (times aside)" \
  test "$(sed 's/built in [0-9.]* s//' prox.out | awk 'NF >= 8 {$8 = ""; print}')" = \
       "$(sed 's/built in [0-9.]* s//' prox_again.out | awk 'NF >= 8 {$8 = ""; print}')"
sg_run kway "$SG" partition pile.h5 -parts 4 -method kway -seed 3
check_table kway 4
check "kway: method column says kway" test "$(table_row kway 4 | awk '{print $2}')" = kway
sg_run one "$SG" partition pile.h5 -parts 1
check_table one 1
check "one part: zero cut" test "$(table_row one 1 | awk '{print $3}')" = 0

section "contact graph of a touching pile"
sg_run gen_touch "$SG" generate pile -n 400 -spacing 2.05 -o touching.h5
check "generate touching pile: exit status 0 (got $RC)" test "$RC" -eq 0
sg_run contacts "$SG" partition touching.h5 -parts 2,4 -graph contacts
check_table contacts 2 4
edges=$(sed -n 's/^graph: contacts .*: \([0-9]*\) contacts, \([0-9]*\) edges.*/\2/p' contacts.out)
check "contacts: the lattice's contacts make edges (got ${edges:-none})" test "${edges:-0}" -gt 0
check "contacts: a positive cut for 2 parts" test "$(table_row contacts 2 | awk '{print $3}')" -gt 0

section "on 2 ranks: one table"
# shellcheck disable=SC2086
sg_run np2 $MPIEXEC -n 2 "$SG" partition pile.h5 -parts 2,4
check_table np2 2 4
check "np2: the header printed once" test "$(grep -cE '^ +P +method' np2.out)" -eq 1

section "bad values: one error line"
bad() { # bad NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  sg_run "$name" "$SG" partition "$@"
  check "$name: exit status != 0 (got $RC)" test "$RC" -ne 0
  if [ "$(error_lines "$name.err")" -eq 1 ]; then pass "$name: exactly one error line"
  else fail "$name: exactly one error line"; show_file "$name.err"; fi
  check "$name: the message names '$pattern'" grep -qF -- "$pattern" "$name.err"
  check "$name: no table" test "$(grep -cE '^ +P +method' "$name.out")" -eq 0
  echo "        message: $(grep -m1 '^signorini: error:' "$name.err")"
}
bad parts0 "-parts: '0'" pile.h5 -parts 0
bad parts_abc "-parts: 'abc'" pile.h5 -parts abc
bad parts_list "-parts" pile.h5 -parts 2,x
bad parts_missing "-parts" pile.h5
bad parts_too_many "1000 parts for 400 moving bodies" pile.h5 -parts 1000
bad method "-method" pile.h5 -parts 2 -method metis
bad graph "-graph" pile.h5 -parts 2 -graph nearest
bad no_file "nonexistent.h5" nonexistent.h5 -parts 2
bad no_scene "missing scene file" -parts 2

finish
