#!/usr/bin/env bash
# tests/run.sh [--repeat N] - run the unit tests, the golden SQL and BPF tests (as an
# unprivileged user when run as root), then the live tests, N times (default 1); print one closing line
# "tests: N passed, N failed, N skipped" (over all runs: a failure in any run fails).
# Called by `make test` (PERF_SQL and BUILD set; `make test REPEAT=5` passes --repeat 5).
#
# A live test is tests/live/NAME.sh; it uses the helpers in tests/live/lib.sh, exits 0 (pass),
# 77 (skip: it prints the reason) or anything else (fail). TESTS="name1 name2" runs only those
# ("golden": both golden sets, "sql-golden", "bpf-golden": one).
set -u
cd "$(dirname "$0")/.."
repeat=1
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) repeat=${2:-}; shift 2 || { echo "tests/run.sh: --repeat needs N" >&2; exit 2; } ;;
	--repeat=*) repeat=${1#--repeat=}; shift ;;
	*) echo "usage: tests/run.sh [--repeat N]" >&2; exit 2 ;;
	esac
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: --repeat '$repeat': expected N >= 1" >&2; exit 2; }
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

# golden tests: SQL over committed captures (tests/sql), BPF plans and listings over committed
# kernel facts (tests/bpf); they need no privileges, so as root they run as nobody (uid 65534),
# from a copy nobody can read (the checkout may be private to root)
golden() {
	local kind=$1 dir rc
	if [ "$(id -u)" != 0 ]; then
		PERF_SQL=$PERF_SQL bash "tests/$kind/run.sh" 2>&1
		return
	fi
	command -v setpriv >/dev/null || { echo "setpriv is not installed (util-linux)"; return 77; }
	dir=$(mktemp -d) || return 1
	cp -r "tests/$kind" "$dir/$kind" && cp "$PERF_SQL" "$dir/perf-sql" && chmod -R a+rX "$dir" &&
		chmod 0755 "$dir" || { rm -rf "$dir"; return 1; }
	(cd "$dir/$kind" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PERF_SQL="$dir/perf-sql" HOME=/nonexistent bash run.sh 2>&1); rc=$?
	rm -rf "$dir"
	return $rc
}
filter=${TESTS:-}
for kind in sql bpf; do
	[ -z "$filter" ] || [[ " $filter " == *" golden "* ]] || [[ " $filter " == *" $kind-golden "* ]] ||
		continue
	out=$(golden $kind); rc=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	case $rc in
	0) pass=$((pass + 1)); echo "ok    $kind/golden  ($line, uid $([ "$(id -u)" = 0 ] && echo 65534 || id -u))" ;;
	77) skip=$((skip + 1)); echo "skip  $kind/golden  [skipped: $line]" ;;
	*) fail=$((fail + 1)); failed+=("$kind/golden"); printf '%s\n' "$out" | tail -n 30 | sed 's/^/      /'; echo "FAIL  $kind/golden" ;;
	esac
done

for run in $(seq "$repeat"); do
	[ "$repeat" -gt 1 ] && echo "== live tests, run $run of $repeat"
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
		*) fail=$((fail + 1)); failed+=("live/$name$([ "$repeat" -gt 1 ] && echo " (run $run)")")
		   printf '%s\n' "$out" | tail -n 30 | sed 's/^/      /'; echo "FAIL  live/$name (exit $rc, ${secs}s)" ;;
		esac
	done
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
