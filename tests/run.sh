#!/usr/bin/env bash
# tests/run.sh - run the unit tests, then the live tests; print one closing line
# "tests: N passed, N failed, N skipped". Called by `make test` (PERF_SQL and BUILD set).
#
# A live test is tests/live/NAME.sh; it uses the helpers in tests/live/lib.sh, exits 0 (pass),
# 77 (skip: it prints the reason) or anything else (fail).
set -u
cd "$(dirname "$0")/.."
: "${PERF_SQL:=$PWD/perf-sql}" "${BUILD:=$PWD/build}"
export PERF_SQL BUILD WL="$BUILD/workloads"
pass=0 fail=0 skip=0 failed=()
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "ok    unit/${t##*/}  ($line)"
	else fail=$((fail + 1)); failed+=("unit/${t##*/}"); printf '%s\n' "$out" | sed 's/^/      /'; echo "FAIL  unit/${t##*/}"; fi
done
filter=${TESTS:-}
for t in tests/live/*.sh; do
	name=${t##*/}; name=${name%.sh}
	[ "$name" = lib ] && continue
	[ -n "$filter" ] && [[ ! " $filter " == *" $name "* ]] && continue
	start=$(date +%s%N)
	out=$(timeout 300 bash "$t" 2>&1); rc=$?
	ms=$((($(date +%s%N) - start) / 1000000)); secs=$((ms / 1000)).$((ms % 1000 / 100))
	case $rc in
	0) pass=$((pass + 1)); echo "ok    live/$name  (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "skip  live/$name  [skipped: $(printf '%s\n' "$out" | tail -n 1)]" ;;
	*) fail=$((fail + 1)); failed+=("live/$name"); printf '%s\n' "$out" | tail -n 30 | sed 's/^/      /'; echo "FAIL  live/$name (exit $rc, ${secs}s)" ;;
	esac
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
