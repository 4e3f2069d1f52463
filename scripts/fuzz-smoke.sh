#!/usr/bin/env bash
# scripts/fuzz-smoke.sh DIR SECONDS JOBS TARGET... - `make fuzz-smoke`: run each libFuzzer
# target DIR/fuzz_NAME for SECONDS, JOBS at a time, and fail on any finding.
#
# Each target starts from tests/fuzz/corpus/NAME (committed) plus its scratch corpus
# DIR/corpus/NAME, which keeps what earlier runs found; `make fuzz-merge` minimises the scratch
# corpus into tests/fuzz/corpus/NAME to commit. A crashing input is kept in
# tests/fuzz/regress/NAME/ and replayed by every `make test` (tests/unit/test_fuzz_regress.c).
# One line per target: "ok    fuzz/NAME  (N executions in Ss)", or its log's tail and "FAIL".
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/fuzz-smoke.sh DIR SECONDS JOBS TARGET..." >&2; exit 2; }
dir=$1 secs=$2 jobs=$3
shift 3
[[ "$secs" =~ ^[1-9][0-9]*$ && "$jobs" =~ ^[1-9][0-9]*$ ]] ||
	{ echo "fuzz-smoke: SECONDS and JOBS must be whole numbers >= 1 ('$secs', '$jobs')" >&2; exit 2; }

# one NAME: run it, print its line, exit non-zero on a finding
one() {
	local t=$1 log=$dir/$1.log dict=
	mkdir -p "$dir/corpus/$t" "tests/fuzz/regress/$t"
	[ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
	if ASAN_OPTIONS=allocator_may_return_null=1 "$dir/fuzz_$t" -max_total_time="$secs" \
		-timeout=25 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/regress/$t/" $dict "$dir/corpus/$t" \
		"tests/fuzz/corpus/$t" >"$log" 2>&1; then
		echo "ok    fuzz/$t  ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
			grep -o '[0-9]*$') executions in ${secs}s)"
	else
		tail -n 40 "$log" | sed 's/^/      /'
		echo "FAIL  fuzz/$t  (input kept in tests/fuzz/regress/$t/)"
		return 1
	fi
}
export -f one
export dir secs
printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one {}'
