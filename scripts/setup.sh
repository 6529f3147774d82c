#!/usr/bin/env bash
# Install the Debian packages signorini needs (idempotent: skips what is present), then configure and build.
# Usage: scripts/setup.sh [build-dir] [extra cmake args...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$here/build"}; shift || true

# libopenblas0-serial: an optimized BLAS/LAPACK behind the libblas.so.3 / liblapack.so.3 alternatives that
# PETSc and CHOLMOD load (Debian's default is the reference BLAS). The sparse Cholesky of the Newton
# solvers runs 4x faster with it (a 1,000-sphere pile Hessian: 0.17 -> 0.044 s per factorization);
# the serial build, so that MPI ranks do not each start a thread per core.
packages=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin petsc-dev libmetis-dev
          libhdf5-openmpi-dev hdf5-tools libopenblas0-serial python3-h5py python3-numpy python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all packages present"
fi

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
