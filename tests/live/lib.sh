# tests/live/lib.sh - helpers for live tests (sourced). PERF_SQL, WL (workloads dir) are set
# by tests/run.sh. A test exits 0 (pass), 77 (skip, last line = reason) or 1 (fail).
set -u
# fail also ends what hold/query_held started (BG), so no held process is left blocked
fail() {
	echo "FAIL: $*" >&2
	[ -n "${BG+x}" ] && kill "${BG[@]}" 2>/dev/null
	[ -n "${BUSY+x}" ] && kill "${BUSY[@]}" 2>/dev/null
	exit 1
}
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
# wait_plan PID FILE: until perf-sql PID, run with -v, has written its plan to FILE (its events
# are open), or fail
wait_plan() {
	for _ in $(seq 600); do
		grep -q '^table ' "$2" && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	grep -q '^table ' "$2" || fail "perf-sql did not start: $(cat "$2")"
}
# event_fds PID: the perf event fds and BPF links process PID holds (its events: a count(*) of
# sched_switch is a tp_btf program's, bpf/hook.h (4))
event_fds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event\|bpf_link'; }
# wait_perf_fds PID: until process PID holds event fds (it has opened its events), or fail
wait_perf_fds() {
	for _ in $(seq 600); do
		[ "$(event_fds "$1")" -gt 0 ] && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	fail "process $1 never opened a perf event"
}
# need_tracefs: set TFS to the tracefs directory perf-sql uses. perf-sql runs once first: on a
# fresh machine nothing has mounted tracefs yet, and perf-sql mounts it (as root)
need_tracefs() {
	"$PERF_SQL" --schema sched_switch >/dev/null 2>&1
	for TFS in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$TFS/events" ] && return 0
	done
	fail "no tracefs events directory after perf-sql ran (looked in /sys/kernel/tracing and /sys/kernel/debug/tracing)"
}
# Tracing a process from its first instruction without a race: hold starts CMD blocked on a
# FIFO before its exec, the tracers attach (query_held waits until perf-sql has started
# collecting: with -v it prints the plan then), release lets CMD run and waits for all of them.
# hold DIR CMD [ARGS...]: start CMD held; HELD is its pid
hold() {
	local dir=$1; shift
	mkfifo "$dir/go" || fail "mkfifo in $dir"
	sh -c 'read -r _ < "$0" && exec "$@"' "$dir/go" "$@" & HELD=$!
	BG=($HELD)
	# back once it sleeps in the FIFO's open (openat, 257 on x86_64): a system-wide tracer
	# started before then may see it run (start up, be named sh) and one started after not
	for _ in $(seq 600); do
		[ "$(cut -d' ' -f1 "/proc/$HELD/syscall" 2>/dev/null)" = 257 ] && return 0
		sleep 0.01
	done
	fail "the held command never blocked on $dir/go"
}
# query_held DIR SQL [OPTIONS...]: perf-sql --csv -v OPTIONS SQL (default: -p HELD) in the
# background into DIR/query (stderr, the plan first, into DIR/query.err), back once collecting
query_held() {
	local dir=$1 sql=$2 pq; shift 2
	[ $# -gt 0 ] || set -- -p "$HELD"
	"$PERF_SQL" --csv -v "$@" "$sql" >"$dir/query" 2>"$dir/query.err" & pq=$!
	BG+=($pq)
	for _ in $(seq 600); do
		grep -q '^table ' "$dir/query.err" && return 0
		kill -0 $pq 2>/dev/null || break
		sleep 0.05
	done
	kill "${BG[@]}" 2>/dev/null; wait
	fail "perf-sql $* did not start collecting: $(cat "$dir/query" "$dir/query.err")"
}
# release DIR: let the held CMD run; wait for it and for the tracers (each must exit 0)
release() {
	local dir=$1 p
	echo go >"$dir/go"
	for p in "${BG[@]}"; do
		wait "$p" || fail "release: process $p (of: held CMD, tracers) exited $?:" \
			"$(cat "$dir"/*.err 2>/dev/null)"
	done
}
# same_run DIR EVENTS SQL [OPTIONS...] -- CMD [ARGS...]: one run of CMD, counted at once by perf
# stat (-e EVENTS -p, into DIR/stat; EVENTS may go on with perf stat options, as
# "sched:sched_switch --filter prev_state==1") and by perf-sql (SQL with OPTIONS, default -p,
# into DIR/query), both attached before CMD starts (and, with SAME_RUN_CGROUP set to a cgroup
# directory, CMD moved into it first): perf stat has acked "enable" and perf-sql
# collects, so both see the same events of the same execution (a reference that holds on any
# CPU and under any load). SQL and OPTIONS may name the held process's pid as HELD.
same_run() {
	local dir=$1 sql=$3 ctl ack reply opts=() events
	read -ra events <<<"$2"
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
	mkfifo "$dir/ctl" "$dir/ack" || fail "mkfifo in $dir"
	hold "$dir" "$@"
	if [ -n "${SAME_RUN_CGROUP:-}" ]; then
		echo $HELD >"$SAME_RUN_CGROUP/cgroup.procs" || fail "cannot move $HELD into $SAME_RUN_CGROUP"
	fi
	perf stat -x, -e "${events[@]}" -D -1 --control "fifo:$dir/ctl,$dir/ack" -p $HELD \
		-o "$dir/stat" 2>"$dir/stat.err" &
	BG+=($!)
	query_held "$dir" "${sql//HELD/$HELD}" ${opts[@]+"${opts[@]//HELD/$HELD}"}
	# read-write opens never block, so a perf stat that died is a timeout, not a hang
	exec {ctl}<>"$dir/ctl" {ack}<>"$dir/ack"
	echo enable >&$ctl
	read -r -t 30 reply <&$ack
	exec {ctl}>&- {ack}<&-
	if [ "$reply" != ack ]; then
		kill "${BG[@]}" 2>/dev/null; wait
		fail "same_run: perf stat did not ack enable: '$reply' $(cat "$dir/stat.err")"
	fi
	release "$dir"
}
# stat_count DIR EVENT: EVENT's count in DIR/stat (written by same_run)
stat_count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1/stat"; }
# window_sum DIR [COLUMN]: the sum over windows (-i) of a column (default 2) of DIR/query
window_sum() { tail -n +2 "$1/query" | tr -d '\r' | awk -F, -v c="${2:-2}" '{ s += $c } END { print s + 0 }'; }
# busy_cpus: two busy loops per CPU at nice 19, unpinned (the balancer spreads them), pids in
# BUSY, so that no CPU idles. For tests that compare with the perf ring: on this VM the kernel writes
# no sample of a tracepoint fired in an idle CPU's interrupts (docs/reliability.md), which the
# kernel path counts; a CPU that never idles loses none. idle_cpus ends them.
busy_cpus() {
	BUSY=()
	for _ in $(seq $(($(nproc) * 2))); do
		nice -n 19 sh -c 'while :; do :; done' & BUSY+=($!)
	done
}
idle_cpus() {
	[ -n "${BUSY+x}" ] && [ ${#BUSY[@]} -gt 0 ] && kill "${BUSY[@]}" 2>/dev/null &&
		wait "${BUSY[@]}" 2>/dev/null
	BUSY=()
	return 0
}

# profiler_args NAME: the parameters a built-in profiler needs to run (the table it reads, ...)
profiler_args() {
	case $1 in
	trace|stat|top|hrcount) echo "table=sched_switch" ;;
	num-dist) echo "table=sched_switch field=prev_prio" ;;
	multi-trace) echo "start=sys_enter_read end=sys_exit_read" ;;
	esac
}

# where the cgroup v2 hierarchy is mounted: a pure v2 /sys/fs/cgroup, or a hybrid's unified one
cgroup_v2() {
	local d
	for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && { echo "$d"; return 0; }
	done
	return 1
}
