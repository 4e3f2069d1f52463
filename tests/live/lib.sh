# tests/live/lib.sh - helpers for live tests (sourced). PERF_SQL, WL (workloads dir) are set
# by tests/run.sh. A test exits 0 (pass), 77 (skip, last line = reason) or 1 (fail).
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (perf_event_open of tracepoints)"; }
# eq ACTUAL EXPECTED WHAT
eq() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; echo "ok: $3 = $2"; }
# between VALUE LOW HIGH WHAT
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: got $1, expected $2..$3"; echo "ok: $4 = $1 (in $2..$3)"; }
# q ARGS...: run perf-sql with CSV output, print the rows without the header
q() { "$PERF_SQL" --csv "$@" | tail -n +2 | tr -d '\r'; }
# qx PATTERN ARGS...: like q, but first drops lines the workload printed (matching PATTERN)
qx() { local pat=$1; shift; "$PERF_SQL" --csv "$@" | grep -v -- "$pat" | tail -n +2 | tr -d '\r'; }
# need_tracefs: set TFS to the tracefs directory perf-sql uses. perf-sql runs once first: on a
# fresh machine nothing has mounted tracefs yet, and perf-sql mounts it (as root)
need_tracefs() {
	"$PERF_SQL" --schema sched_switch >/dev/null 2>&1
	for TFS in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$TFS/events" ] && return 0
	done
	fail "no tracefs events directory after perf-sql ran (looked in /sys/kernel/tracing and /sys/kernel/debug/tracing)"
}
# same_run DIR EVENTS SQL -- CMD [ARGS...]: one run of CMD, counted at once by perf stat
# (-e EVENTS, into DIR/stat) and by perf-sql (--csv -i 100 SQL, one row per window, into
# DIR/query), both attached with -p to the process before it starts: CMD is held until perf
# stat has acked "enable" and perf-sql has printed its first window, so both see the same
# events of the same execution (a reference that holds on any CPU and under any load).
same_run() {
	local dir=$1 events=$2 sql=$3 target ps pq ctl ack reply
	shift 4
	command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
	mkfifo "$dir/go" "$dir/ctl" "$dir/ack" || fail "mkfifo in $dir"
	sh -c 'read -r _ < "$0" && exec "$@"' "$dir/go" "$@" & target=$!
	perf stat -x, -e "$events" -D -1 --control "fifo:$dir/ctl,$dir/ack" -p $target \
		-o "$dir/stat" 2>"$dir/stat.err" & ps=$!
	"$PERF_SQL" --csv -i 100 "$sql" -p $target >"$dir/query" 2>"$dir/query.err" & pq=$!
	for _ in $(seq 200); do
		[ "$(grep -c . "$dir/query")" -ge 2 ] && break
		kill -0 $pq 2>/dev/null || break
		sleep 0.05
	done
	exec {ctl}>"$dir/ctl" {ack}<"$dir/ack"
	echo enable >&$ctl
	read -r -t 30 reply <&$ack
	exec {ctl}>&- {ack}<&-
	if [ "$(grep -c . "$dir/query")" -lt 2 ] || [ "$reply" != ack ]; then
		kill $target $ps $pq 2>/dev/null; wait
		fail "same_run: not both counting (perf stat: '$reply' $(cat "$dir/stat.err");" \
			"perf-sql: $(cat "$dir/query" "$dir/query.err"))"
	fi
	echo go >"$dir/go"
	wait $target || fail "same_run: $* exited $?"
	wait $ps || fail "same_run: perf stat exited $?: $(cat "$dir/stat.err")"
	wait $pq || fail "same_run: perf-sql exited $?: $(cat "$dir/query.err")"
}
# stat_count DIR EVENT: EVENT's count in DIR/stat (written by same_run)
stat_count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1/stat"; }
# window_sum DIR [COLUMN]: the sum over windows of a column (default 2) of DIR/query
window_sum() { tail -n +2 "$1/query" | tr -d '\r' | awk -F, -v c="${2:-2}" '{ s += $c } END { print s + 0 }'; }
