#!/usr/bin/env bash
# The drop-in under hostile files: every file the runtime reads (TOPOCOLL_RULES, file:
# schedules of TOPOCOLL_<COLL>_ALGORITHM and of topocoll-bench --algorithm) given as a FIFO,
# /dev/zero, a directory, a deeply nested document or a tiny file declaring 2^24 chunks. The
# program must complete (`timeout` turns a hang into a failure), its results must equal the
# plain run's, and the fallback's reason line must name the file.
# usage: hostile_inputs.sh CASE MPIEXEC NPROC_FLAG RANKS LIBRARY PROGRAM
#        hostile_inputs.sh bench-fifo MPIEXEC NPROC_FLAG RANKS BENCH
set -uo pipefail
case_name=$1 mpiexec=$2 np_flag=$3 ranks=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=${HOSTILE_TIMEOUT:-120}  # seconds before a run counts as hung
fail() { echo "FAIL ($case_name): $1"; [ -f "$work/err" ] && head -c 3000 "$work/err"; exit 1; }

mkfifo "$work/fifo"
mkdir "$work/dir"
# 200,000 nested arrays (400 KB): the old reader's memory grew with the square of the depth.
python3 -c "print('[' * 200000 + ']' * 200000)" >"$work/deep.json"
# 1 KB that declares 2^24 chunks per buffer: verifying it would take about 800 MB per rank.
cat >"$work/huge.xml" <<XML
<algo name="huge" proto="Simple" nchannels="1" nchunksperloop="16777216" ngpus="$ranks" coll="allreduce" inplace="1">
$(for ((r = 0; r < ranks; r++)); do echo "  <gpu id=\"$r\" i_chunks=\"16777216\" o_chunks=\"0\" s_chunks=\"0\"></gpu>"; done)
</algo>
XML

if [ "$case_name" = bench-fifo ]; then
  bench=$1
  timeout "$limit" "$mpiexec" "$np_flag" "$ranks" "$bench" -b 1K -e 1K -n 1 -w 0 \
    --algorithm "mpi,file:$work/fifo" >"$work/out" 2>"$work/err"
  code=$?
  [ "$code" -ne 124 ] || fail "did not complete within $limit s"
  [ "$code" -eq 0 ] || fail "exit $code"
  grep -Eq "is a FIFO. accepted: a regular file" "$work/out" "$work/err" ||
    fail "no reason line naming the FIFO"
  grep -q "# OK: " "$work/out" || fail "the MPI library's measurements did not validate"
  echo "PASS ($case_name): completed, the file refused with its reason"
  exit 0
fi

library=$1
shift
case "$case_name" in
  rules-devzero) setting=(TOPOCOLL_RULES=/dev/zero) reason="is a character device; accepted: a regular file" ;;
  rules-fifo) setting=(TOPOCOLL_RULES="$work/fifo") reason="is a FIFO; accepted: a regular file" ;;
  rules-dir) setting=(TOPOCOLL_RULES="$work/dir") reason="is a directory; accepted: a regular file" ;;
  rules-deep) setting=(TOPOCOLL_RULES="$work/deep.json") reason="nested deeper than 16 levels" ;;
  file-fifo) setting=(TOPOCOLL_ALLREDUCE_ALGORITHM="file:$work/fifo")
    reason="is a FIFO; accepted: a regular file" ;;
  file-dir) setting=(TOPOCOLL_ALLREDUCE_ALGORITHM="file:$work/dir")
    reason="is a directory; accepted: a regular file" ;;
  file-devzero) setting=(TOPOCOLL_ALLREDUCE_ALGORITHM="file:/dev/zero")
    reason="is a character device; accepted: a regular file" ;;
  file-huge) setting=(TOPOCOLL_ALLREDUCE_ALGORITHM="file:$work/huge.xml")
    reason="verifying it needs about .*accepted: at most 256 MiB \(TOPOCOLL_MAX_VERIFY_BYTES\)" ;;
  *) fail "unknown case" ;;
esac

timeout "$limit" "$mpiexec" "$np_flag" "$ranks" "$@" >"$work/plain.out" 2>"$work/err" ||
  fail "the plain run failed"
timeout "$limit" "$mpiexec" "$np_flag" "$ranks" env LD_PRELOAD="$library" "${setting[@]}" "$@" \
  >"$work/out" 2>"$work/err"
code=$?
[ "$code" -ne 124 ] || fail "did not complete within $limit s"
[ "$code" -eq 0 ] || fail "exit $code"
diff -q "$work/plain.out" "$work/out" >/dev/null || fail "results differ from the plain run"
grep -Eq "^topocoll: .*$reason" "$work/err" || fail "no reason line matching '$reason'"
lines=$(grep -Ec "^topocoll: .*$reason" "$work/err")
echo "PASS ($case_name): completed, identical results, reason printed ($lines line(s)):"
grep -Em 1 "^topocoll: .*$reason" "$work/err" | cut -c 1-300
