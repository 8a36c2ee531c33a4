#!/usr/bin/env bash
# Runs the unmodified plain MPI program with and without LD_PRELOAD=libtopocoll_pmpi.so and
# checks that the outputs are identical and that TOPOCOLL_VERBOSE shows topocoll (not the MPI
# library) served every collective. TOPOCOLL_MACHINE=none: `auto` serves with the built-in
# table, without handing calls its default machine predicts no faster to the library (this
# checks the interception; tests/mpi/misuse.cpp checks that comparison).
# usage: preload_test.sh MPIEXEC NPROC_FLAG RANKS LIBRARY PROGRAM [ARGUMENTS...]
#        preload_test.sh MPIEXEC NPROC_FLAG RANKS linked=LINKED_PROGRAM PROGRAM
#        (the second form compares with PROGRAM built and linked with -ltopocoll_pmpi)
set -euo pipefail
mpiexec=$1 np_flag=$2 ranks=$3 library=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$mpiexec" "$np_flag" "$ranks" "$@" >"$work/plain.out"
if [[ "$library" == linked=* ]]; then
  # The same program linked with -ltopocoll_pmpi instead of preloading it.
  library=${library#linked=}
  "$mpiexec" "$np_flag" "$ranks" env TOPOCOLL_MACHINE=none TOPOCOLL_VERBOSE=1 "$library" \
    >"$work/preload.out" 2>"$work/preload.err"
else
  "$mpiexec" "$np_flag" "$ranks" env LD_PRELOAD="$library" TOPOCOLL_MACHINE=none TOPOCOLL_VERBOSE=1 "$@" \
    >"$work/preload.out" 2>"$work/preload.err"
fi

if ! diff "$work/plain.out" "$work/preload.out"; then
  echo "FAIL: results differ with topocoll ($library; diff above)"
  exit 1
fi
echo "identical results for $(wc -l <"$work/plain.out") checksum lines on $ranks ranks"
status=0
for coll in allreduce reduce_scatter_block reduce_scatter allgather bcast reduce gather scatter alltoall; do
  served=$(grep -c "^topocoll: $coll comm_size=$ranks .* algorithm=[a-z0-9-]*$" "$work/preload.err" || true)
  fallback=$(grep -c "^topocoll: $coll .*algorithm=mpi" "$work/preload.err" || true)
  echo "$coll: $served calls served by topocoll, $fallback by the MPI library"
  if [ "$served" -eq 0 ] || [ "$fallback" -ne 0 ]; then status=1; fi
done
# (no pipe into head: with pipefail, grep's SIGPIPE would fail the test)
grep "^topocoll: " "$work/preload.err" >"$work/verbose.txt" || true
head -n 12 "$work/verbose.txt"
[ "$status" -eq 0 ] || echo "FAIL: a collective was not served by topocoll"
exit "$status"
