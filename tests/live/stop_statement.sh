# SIGINT, SIGTERM and SIGHUP end a statement that would never end, whatever --query-timeout is
# (0 here: no budget), with the documented status: (1) the planning dry run of a statement over
# no event; (2) the statement of a window (live, -d); (3) a replay of a committed capture; (4)
# serve (exit 0, as any stop of serve). (5) A REPL script goes on with its next statement.
# Each run is endless unless the signal ends it: that it ends at all before a 10 s watchdog,
# with its status and one line saying so, is what is checked (no timing).
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'kill -KILL $pid 2>/dev/null; rm -rf "$dir"' EXIT
pid=
cap=$(dirname "$0")/../sql/writes.cap
endless="with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c"
# endless in a window over TABLE (perf_sql_stats has a row per table and CPU there, even with
# no event; none in the planning dry run, which ends)
endless_over() {
	echo "with recursive c(x) as (select 1 where (select count(*) from perf_sql_stats) > 0
		and (select count(*) from $1) >= 0 union all select x + 1 from c) select count(*) from c"
}

# handlers PID: until PID is perf-sql (not the shell's child before its exec, which catches
# signals of its own) and catches SIGINT, SIGTERM and SIGHUP (bits 2, 15, 1 of SigCgt)
exe=$(readlink -f "$PERF_SQL")
handlers() {
	local m
	for _ in $(seq 200); do
		m=
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$exe" ] &&
			m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$m" ] && (( (0x$m & 0x4003) == 0x4003 )) && return 0
		sleep 0.05
	done
	fail "process $1 never caught the stop signals"
}

# stopped SIG WHAT STATUS REPEAT: signals pid (again every 0.25 s with REPEAT=1: a signal
# that lands during collection ends collection, the next one the statement), waits at most
# 10 s for its exit, then checks its status and, for status 1, the one line on stderr
stopped() {
	local sig=$1 what=$2 want=$3 again=$4 rc
	handlers $pid
	kill -"$sig" $pid
	for i in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		[ "$again" = 1 ] && [ $((i % 25)) = 0 ] && kill -"$sig" $pid 2>/dev/null
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid; wait $pid
		fail "$what: still running 10 s after SIG$sig: $(cat "$dir/err")"
	fi
	wait $pid; rc=$?
	eq "$rc" "$want" "$what: exit status after SIG$sig"
	if [ "$want" = 1 ]; then
		eq "$(grep -c . "$dir/err")" 1 "$what: lines on stderr after SIG$sig"
		grep -q "statement interrupted by a signal" "$dir/err" ||
			fail "$what: SIG$sig: not said: $(cat "$dir/err")"
	fi
}

over_switch=$(endless_over sched_switch) over_write=$(endless_over sys_enter_write)
for sig in INT TERM HUP; do
	# (1) no event table: the statement runs in planning, before any window
	"$PERF_SQL" --query-timeout 0 --csv "$endless" >"$dir/out" 2>"$dir/err" & pid=$!
	stopped $sig "planning statement" 1 0
	# (2) a window's statement, after 100 ms of collection
	"$PERF_SQL" --query-timeout 0 --csv -d 100ms "$over_switch" \
		>"$dir/out" 2>"$dir/err" & pid=$!
	stopped $sig "window statement" 1 1
	# (3) a replay of a committed capture
	"$PERF_SQL" --query-timeout 0 --csv -r "$cap" "$over_write" \
		>"$dir/out" 2>"$dir/err" & pid=$!
	stopped $sig "replay statement" 1 1
done

# (4) serve: a stop ends the run at once; the statement of the window that runs is stopped
command -v curl >/dev/null || skip "curl is not installed (the serve part)"
for sig in INT TERM HUP; do
	"$PERF_SQL" serve --listen 127.0.0.1:0 --query-timeout 0 -i 200 --name e \
		"$over_switch" 2>"$dir/err" & pid=$!
	for _ in $(seq 300); do
		grep -q '^perf-sql: serving http' "$dir/err" && break
		kill -0 $pid 2>/dev/null || fail "serve did not start: $(cat "$dir/err")"
		sleep 0.05
	done
	sleep 0.5 # (the first window's statement is running: it never ends by itself)
	stopped $sig "serve" 0 0
	grep -q "serve: stopped after 0 windows" "$dir/err" ||
		fail "serve: SIG$sig: a window ended or the stop was not said: $(cat "$dir/err")"
done

# (5) a REPL script: the statement is stopped, the script goes on with the next one, and its
# status is the first failure's (a signal before the statement starts is a Ctrl-C while
# reading: the next one, 2.5 s later, lands in the statement)
printf '%s;\nselect 40 + 2 as answer;\n' "$endless" |
	"$PERF_SQL" --query-timeout 0 --csv >"$dir/out" 2>"$dir/err" & pid=$!
stopped INT "REPL script" 1 1
eq "$(tail -n 1 "$dir/out" | tr -d '\r')" 42 "REPL script: the next statement's answer"
