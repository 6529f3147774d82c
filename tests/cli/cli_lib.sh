# Helpers shared by the command-line tests (sourced by tests/cli/test_*.sh; not a test itself).
# Usage in a test:  source "$(dirname "$0")/cli_lib.sh" "$@"
# $1: the signorini binary, $2: a scratch directory (emptied here, removed at the end on success).
# Environment: SG_MPIEXEC (mpiexec with its flags; word-split), SG_PYTHON (default /usr/bin/python3).
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 path/to/signorini scratch_dir" >&2
  exit 2
fi
SG=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SCRATCH=$2
MPIEXEC=${SG_MPIEXEC:-mpiexec --oversubscribe --allow-run-as-root}
PY=${SG_PYTHON:-/usr/bin/python3}
SG_CMD_TIMEOUT=${SG_CMD_TIMEOUT:-120}   # a command that takes longer is reported as hung
N_CHECKS=0
N_FAILED=0
FAILED_LIST=""

if [ ! -x "$SG" ]; then
  echo "FAIL: $SG is not an executable" >&2
  exit 1
fi
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
  echo "FAIL: $PY cannot import h5py and numpy (install python3-h5py)" >&2
  exit 1
fi
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH" || exit 1
SCRATCH=$(cd "$SCRATCH" && pwd)
cd "$SCRATCH" || exit 1

section() { echo; echo "== $*"; }
pass() { N_CHECKS=$((N_CHECKS + 1)); echo "  ok    $*"; }
fail() {
  N_CHECKS=$((N_CHECKS + 1)); N_FAILED=$((N_FAILED + 1))
  FAILED_LIST="$FAILED_LIST
  - $*"
  echo "  FAIL  $*"
}
# check "description" command...: passes when the command succeeds.
check() {
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
show_file() { # indented copy of a (short) log for the reader of a failure
  cut -c1-240 "$1" | sed -e 's/^/        | /' | head -n "${2:-15}"
}

# sg_run NAME cmd...: runs cmd with stdout in NAME.out, stderr in NAME.err (current directory)
# under a time limit; sets RC. RC 124 means it hung past SG_CMD_TIMEOUT.
sg_run() {
  local name=$1; shift
  timeout -k 10 "$SG_CMD_TIMEOUT" "$@" >"$name.out" 2>"$name.err"
  RC=$?
}

# Lines "signorini: error: ..." in a file.
error_lines() { grep -c '^signorini: error:' "$1"; }

finish() {
  echo
  if [ "$N_FAILED" -eq 0 ]; then
    echo "PASSED: all $N_CHECKS checks"
    cd / && rm -rf "$SCRATCH"
    exit 0
  fi
  echo "FAILED: $N_FAILED of $N_CHECKS checks (scratch kept in $SCRATCH):$FAILED_LIST"
  exit 1
}
