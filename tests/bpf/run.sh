#!/usr/bin/env bash
# tests/bpf/run.sh [--update] [NAME...] - BPF golden tests: each NAME.sql is planned, compiled
# and listed offline against the kernel facts in fixture/ (perf-sql --explain --kernel-facts:
# no kernel, no privilege), and the output (stdout and stderr, then "exit N" when not 0) is
# compared with NAME.out; --update writes NAME.out instead. perf-sql's own pid (a ring table's
# filter "common_pid != PID"; of a table that names tasks, "pid != PID": core/target.c) is
# masked; the listing names it (self_tid) by itself.
#   NAME.sql: "-- what it shows" first, then optionally "-- args: OPTIONS" and
#   "-- profiler: NAME [PARAM=VALUE...]" (a built-in profiler instead of the SQL lines).
# The fixture is scripts/kernel-facts.sh's: rewrite it (as root) when the kernel changes, then
# --update; tests/live/bpf_golden.sh loads every golden's program on the running kernel.
set -u
cd "$(dirname "$0")"
: "${PERF_SQL:=../../perf-sql}"
update=false
[ "${1:-}" = --update ] && { update=true; shift; }
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls *.sql | sed 's/\.sql$//'))
pass=0 fail=0
for name in "${names[@]}"; do
	t=$name.sql
	[ -f "$t" ] || { echo "FAIL bpf/$name: no $t"; fail=$((fail + 1)); continue; }
	read -ra args <<< "$(sed -n 's/^-- args: //p' "$t")"
	read -ra prof <<< "$(sed -n 's/^-- profiler: //p' "$t")"
	if [ ${#prof[@]} -gt 0 ]; then
		out=$("$PERF_SQL" --kernel-facts fixture "${args[@]}" "${prof[@]}" 2>&1)
	else
		out=$("$PERF_SQL" --kernel-facts fixture "${args[@]}" "$(grep -v '^--' "$t")" 2>&1)
	fi
	rc=$?
	[ $rc -eq 0 ] || out+=$'\n'"exit $rc"
	out=$(printf '%s\n' "$out" | sed -E 's/(common_pid|prev_pid|next_pid|parent_pid|child_pid|[( ]pid) != [1-9][0-9]*/\1 != PID/g')
	if $update; then
		printf '%s\n' "$out" > "$name.out"
	elif [ "$out" = "$(cat "$name.out" 2>/dev/null)" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL bpf/$name"; diff <(printf '%s\n' "$out") "$name.out" | head -20
	fi
done
$update && echo "bpf: ${#names[@]} goldens written" && exit 0
echo "bpf: $pass passed, $fail failed"
[ $fail -eq 0 ]
