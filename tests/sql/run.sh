#!/usr/bin/env bash
# tests/sql/run.sh - golden SQL tests: each NAME.sql runs against the capture its first line
# names (with the args it names), output (stdout and stderr) compared with NAME.out.
#   bash tests/sql/run.sh [--update]     (PERF_SQL set; needs no privileges)
set -u
cd "$(dirname "$0")"
: "${PERF_SQL:=../../perf-sql}"
pass=0 fail=0
for t in *.sql; do
	name=${t%.sql}
	cap=$(sed -n '1s/.*capture: \([^ ]*\).*/\1/p' "$t")
	args=$(sed -n '1s/.*args: \([^(]*\).*/\1/p' "$t")
	# one statement per line-group: the file's statements run as one query (one window)
	out=$("$PERF_SQL" -r "$cap" --csv $args "$(grep -v '^--' "$t")" 2>&1 | tr -d '\r')
	if [ "${1:-}" = --update ]; then
		printf '%s\n' "$out" > "$name.out"
	elif [ "$out" = "$(cat "$name.out")" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL sql/$name"; diff <(printf '%s\n' "$out") "$name.out" | head -20
	fi
done
echo "sql: $pass passed, $fail failed"
[ $fail -eq 0 ]
