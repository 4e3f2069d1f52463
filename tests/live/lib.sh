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
