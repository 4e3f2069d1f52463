#!/usr/bin/env bash
# bench/lib.sh - what bench/run.sh's sections share: the results file (put, skip, anomaly), timed
# runs (timed, run_timed, stamped), traced runs (start_tracer, stop_tracer, collect, traced), the
# peers found at set-up (probe_peers, tools) and the ftrace row. Sourced by run.sh after its
# settings (TMP, RES, HERE, PERF_SQL, W, PAGES, ...): it defines functions and runs nothing.

calc() { python3 "$HERE/calc.py" "$@"; }
log() { printf 'bench: %s\n' "$*" >&2; }
put() { [ -n "${2:-}" ] && [ "$2" != - ] && echo "$1 $2" >> "$RES"; return 0; }
skip() { grep -q "^skip\.$1 " "$RES" || echo "skip.$1 $2" >> "$RES"; }
anomaly() { echo "$*" >> "$TMP/anomalies"; }
oneline() { tr '\n' ' ' | head -c "${1:-300}"; }
elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { print e - s }'; }

ftrace_remove() {
	[ -d "$FT" ] || return 0
	echo 0 > "$FT/tracing_on"
	echo 0 > "$FT/events/enable"
	rmdir "$FT" || log "could not remove $FT"
}

cleanup() {
	local p
	[ -n "$GO" ] && exec {GO}>&-
	for p in "${FT_PIDS[@]}" $(pgrep -x "$MARK"); do kill "$p" 2> /dev/null; done
	[ -n "$TRACER_PID" ] && wait "$TRACER_PID" 2> /dev/null
	[ ${#FT_PIDS[@]} -gt 0 ] && wait "${FT_PIDS[@]}" 2> /dev/null
	ftrace_remove
	if [ "${BENCH_KEEP:-0}" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}

die() { log "$*"; exit 1; }

# ------------------------------------------------------------------------------- traced runs

# A traced run: the tracer is started system-wide with a window marker as its command (a copy
# of cat named pqbw<pid>, reading a FIFO this script holds open). Once the marker's comm appears
# the tracer is collecting; the workload then runs on its own, so /usr/bin/time on the tracer
# counts the tracer alone; closing the FIFO ends the marker and so the tracer. Tools are
# interleaved within each repetition, and the report prints medians.

# timed CMD...: start CMD in the background under /usr/bin/time; outputs in $TMP/t.{out,err,time}
timed() {
	local tm=()
	rm -f "$TMP/t.out" "$TMP/t.err" "$TMP/t.time"
	[ -x /usr/bin/time ] && tm=(/usr/bin/time -f "%e %U %S %M" -o "$TMP/t.time")
	if [ -n "$GO" ]; then   # the tracer must not hold the marker's FIFO open itself
		"${tm[@]}" "$@" > "$TMP/t.out" 2> "$TMP/t.err" {GO}>&- &
	else
		"${tm[@]}" "$@" > "$TMP/t.out" 2> "$TMP/t.err" &
	fi
	TRACER_PID=$!
}

# run_timed CMD...: run CMD to its end under /usr/bin/time; sets WALL and TRACER_RC
run_timed() {
	local s e
	s=$EPOCHREALTIME
	timed "$@"
	wait "$TRACER_PID"
	TRACER_RC=$?
	e=$EPOCHREALTIME
	TRACER_PID=
	WALL=$(elapsed "$s" "$e")
}

# start_tracer TOOL SYS:EVENT: start TOOL system-wide in the background with the window marker as
# its command; returns 0 once it collects, 1 if it failed (reason in $TMP/t.err)
start_tracer() {
	local tool=$1 ev=$2 tp=${2#*:} i
	local win=("$TMP/$MARK" "$TMP/go")

	exec {GO}<> "$TMP/go"   # held open for writing: the marker reads until it is closed
	case $tool in
	perf-sql)
		# count(_cpu), not count(*): a query that reads no column is counted in the kernel
		# (counting mode, like perf stat); this row is about sampling every event.
		# --max-memory: the default 256M budget refuses rows past ~4.8M getppid events and
		# counts them as lost; this row is about ring losses, the RSS row shows the memory
		timed "$PERF_SQL" -a --no-bpf -m "$PAGES" --max-memory "$MAXMEM" --csv "select count(_cpu) as n
			from $tp; $STATS_SQL" -- "${win[@]}" ;;
	perf-sql-count)   # counting mode: no column read
		timed "$PERF_SQL" -a --csv "select count(*) as n from $tp; $STATS_SQL" -- "${win[@]}" ;;
	perf-sql-pd | perf-sql-nopd)   # section pushdown: $PD_SQL with the kernel filter on / off
		timed "$PERF_SQL" -a --no-bpf -m "$PD_PAGES" --max-memory "$MAXMEM" \
			$([ "$tool" = perf-sql-nopd ] && echo --no-pushdown) --csv "$PD_SQL; $STATS_SQL" \
			-- "${win[@]}" ;;
	perf-record)
		timed perf record -e "$ev" -a -m "$PAGES" -o "$TMP/perf.data" -- "${win[@]}" ;;
	perf-record-filter)   # section pushdown: perf's own kernel filter
		timed perf record -e "$ev" --filter "$PD_FILTER" -a -m "$PD_PAGES" -o "$TMP/perf.data" \
			-- "${win[@]}" ;;
	perf-stat)
		timed perf stat -e "$ev" -a -x, -o "$TMP/perf-stat.csv" -- "${win[@]}" ;;
	trace-cmd)
		timed trace-cmd record -e "$ev" -b $((PAGES * 4)) -o "$TMP/tc.dat" "${win[@]}" ;;
	ftrace)
		ftrace_start "$ev"
		return ;;
	esac
	for ((i = 0; i < 1000; i++)); do
		pgrep -x "$MARK" > /dev/null && return 0
		kill -0 "$TRACER_PID" 2> /dev/null || return 1
		sleep 0.01
	done
	echo "not collecting after 10 s" >> "$TMP/t.err"
	return 1
}

# stop_tracer TOOL: end the window and wait for the tracer; sets TRACER_RC
stop_tracer() {
	local p running=0
	if [ "$1" = ftrace ]; then
		ftrace_stop
	else
		# asked before the FIFO closes: after, the marker may have ended already, and a tracer
		# taken for one that never started would be killed mid-report (exit 143)
		pgrep -x "$MARK" > /dev/null && running=1
		exec {GO}>&-
		GO=
		if [ "$running" = 0 ]; then   # it failed before the marker ran
			for p in $(pgrep -P "$TRACER_PID") "$TRACER_PID"; do kill "$p" 2> /dev/null; done
		fi
		wait "$TRACER_PID"
		TRACER_RC=$?
		TRACER_PID=
	fi
	[ -n "$GO" ] && exec {GO}>&-
	GO=
}

# trace-cmd 3.1 record dies on kernels where set_ftrace_filter cannot be opened for writing
# (kernel lockdown: EPERM). The script probes that with O_APPEND (which changes nothing) and then
# measures the same kernel path itself as row "ftrace": a private tracefs instance with the event
# enabled and the ring at BENCH_PAGES pages, read by bench/ftrace_reader.c (splice of
# per_cpu/cpuN/trace_pipe_raw, one process per CPU, as trace-cmd's recorders do). The instance is
# removed on every exit path; top-level tracing state is only touched by trace-cmd itself, and
# every trace-cmd record is followed by `trace-cmd reset`.

# probe_peers: which peers run here; sets HAVE_PERF, HAVE_TC and HAVE_FT (skip lines say why not)
probe_peers() {
	local err
	HAVE_PERF=1
	if ! command -v perf > /dev/null; then
		HAVE_PERF=0
		skip perf-record "no perf"
		skip perf-stat "no perf"
	elif ! perf stat -e sched:sched_switch -o /dev/null -- true > /dev/null 2>&1; then
		HAVE_PERF=0
		skip perf-record "perf cannot open sched:sched_switch"
		skip perf-stat "perf cannot open sched:sched_switch"
	fi
	HAVE_TC=0
	if ! command -v trace-cmd > /dev/null; then
		skip trace-cmd "no trace-cmd"
	elif [ -e "$TRACEFS/set_ftrace_filter" ] && ! err=$( (: >> "$TRACEFS/set_ftrace_filter") 2>&1); then
		skip trace-cmd "trace-cmd $(trace-cmd --version 2>&1 | grep -o 'version [0-9.]*' | head -1 |
			cut -d' ' -f2) record fails on this kernel; it dies opening set_ftrace_filter for writing (${err##*: }: kernel lockdown), so row ftrace measures the same kernel path with bench/ftrace_reader.c"
	else
		HAVE_TC=1
	fi
	HAVE_FT=0
	if [ "$HAVE_TC" = 1 ]; then
		:   # trace-cmd itself is the ftrace peer
	elif [ ! -d "$TRACEFS/instances" ]; then
		skip ftrace "no tracefs instances at $TRACEFS"
	elif ! cc -O2 -o "$TMP/ftrace_reader" "$HERE/ftrace_reader.c" 2> "$TMP/cc.err"; then
		skip ftrace "cannot build bench/ftrace_reader.c: $(oneline 200 < "$TMP/cc.err")"
	else
		HAVE_FT=1
	fi
}

ftrace_start() {
	local sys=${1%%:*} name=${1#*:} c
	rm -f "$TMP"/ft.* "$TMP/t.err"
	FT_PIDS=()
	if ! { mkdir "$FT" && echo 0 > "$FT/tracing_on" && echo $((PAGES * 4)) > "$FT/buffer_size_kb" &&
	       echo 1 > "$FT/events/$sys/$name/enable"; } 2> "$TMP/t.err"; then
		ftrace_remove
		return 1
	fi
	for ((c = 0; c < NCPU; c++)); do
		"$TMP/ftrace_reader" "$FT/per_cpu/cpu$c/trace_pipe_raw" "$TMP/ft.raw.$c" \
			> "$TMP/ft.cpu.$c" 2>> "$TMP/t.err" {GO}>&- &
		FT_PIDS+=($!)
	done
	echo 1 > "$FT/tracing_on"
}

ftrace_stop() {
	local c
	echo 0 > "$FT/tracing_on"
	for ((c = 0; c < NCPU; c++)); do cp "$FT/per_cpu/cpu$c/stats" "$TMP/ft.stats.$c"; done
	kill "${FT_PIDS[@]}" 2> /dev/null
	wait "${FT_PIDS[@]}"
	TRACER_RC=$?
	FT_PIDS=()
	ftrace_remove
}

# check_perf_sql WHAT [WANT_N]: note a failed or inconsistent perf-sql run; sets N RECV LOST.
# Without WANT_N every received event is a row (n = received); with it, n must be WANT_N.
check_perf_sql() {
	read -r N RECV LOST < <(calc parse perf-sql "$TMP/t.out")
	if [ "$TRACER_RC" != 0 ] || [ "$RECV" = - ]; then
		anomaly "$1: perf-sql exit $TRACER_RC; stdout: $(oneline 200 < "$TMP/t.out");" \
			"stderr: $(grep -v 'warning: .* lost' "$TMP/t.err" | oneline)"
	elif [ -n "${2:-}" ]; then
		[ "$N" = "$2" ] || [ "$LOST" != 0 ] || anomaly "$1: perf-sql counted $N rows, not $2"
	elif [ "$N" != "$RECV" ]; then
		anomaly "$1: count(*) = $N but perf_sql_stats received = $RECV"
	fi
	grep -q 'warning: .* lost' "$TMP/t.err" && echo "$1" >> "$TMP/lostwarn"
	return 0
}

# collect SEC TOOL CALLS: parse the outputs of TOOL's run; record recv/lost/cpu/rss
collect() {
	local sec=$1 tool=$2 calls=$3 recv=- lost=- cpu rss
	read -r _ cpu rss < <(calc parse time "$TMP/t.time")
	case $tool in
	perf-sql | perf-sql-count)
		check_perf_sql "$sec"
		recv=$RECV lost=$LOST ;;
	perf-sql-pd | perf-sql-nopd)
		check_perf_sql "$sec.$tool" "$PD_N"
		recv=$RECV lost=$LOST ;;
	perf-record | perf-record-filter)
		perf report -i "$TMP/perf.data" --stats > "$TMP/perf.stats" 2>&1
		read -r recv lost < <(calc parse perf-record "$TMP/perf.stats")
		rm -f "$TMP/perf.data" "$TMP/perf.data.old" ;;
	perf-stat)
		read -r recv < <(calc parse perf-stat "$TMP/perf-stat.csv")
		cpu=- ;;
	trace-cmd)
		trace-cmd report --stat -i "$TMP/tc.dat" > "$TMP/tc.stat" 2>&1
		read -r recv lost < <(calc parse ftrace "$TMP/tc.stat")
		trace-cmd reset > /dev/null 2>&1 || log "trace-cmd reset failed"
		rm -f "$TMP"/tc.dat* ;;
	ftrace)
		read -r recv lost < <(calc parse ftrace "$TMP"/ft.stats.*)
		read -r cpu < <(calc parse reader "$TMP"/ft.cpu.*)
		rss=-
		rm -f "$TMP"/ft.raw.* ;;
	esac
	put "$sec.$tool.recv" "$recv"
	put "$sec.$tool.lost" "$lost"
	put "$sec.$tool.cpu" "$cpu"
	put "$sec.$tool.rss" "$rss"
	# a tracer that did not see the whole workload would measure less than it should
	[ "$sec" = pp ] || [ "$sec" = pushdown ] || [ "$calls" = - ] || [ "$recv" = - ] && return 0
	if awk -v r="$recv" -v l="${lost/-/0}" -v c="$calls" 'BEGIN { exit !(r + l < 0.97 * c) }'; then
		if [ "${tool#perf-sql}" != "$tool" ]; then
			anomaly "$sec: perf-sql received+lost = $recv+$lost, under 97% of the $calls calls"
		else
			echo "note $sec: $tool saw $recv+$lost events of $calls calls" >> "$RES"
		fi
	fi
}

# traced SEC TOOL EVENT WORKLOAD...: one run of WORKLOAD (loops N / pingpong) traced by TOOL
# (base: untraced); records SEC.TOOL.nspc (ns/call, or round trips/s for pingpong)
traced() {
	local sec=$1 tool=$2 ev=$3 calls v
	shift 3
	if [ "$tool" = base ]; then
		read -r calls v < <("$@")
		put "$sec.base.nspc" "$v"
		return
	fi
	if ! start_tracer "$tool" "$ev"; then
		stop_tracer "$tool"
		skip "$tool.$sec" "$tool did not start: $(tail -c 200 "$TMP/t.err" | oneline)"
		[ "${tool#perf-sql}" != "$tool" ] &&
			anomaly "$sec: $tool did not start: $(tail -c 300 "$TMP/t.err" | oneline)"
		return
	fi
	read -r calls v < <("$@")
	stop_tracer "$tool"
	put "$sec.$tool.nspc" "$v"
	collect "$sec" "$tool" "$calls"
}

# tools SEC: the tools of a section's traced runs, base (untraced) first
tools() {
	case $1 in
	count)
		echo base perf-sql-count
		[ "$HAVE_PERF" = 1 ] && echo perf-stat ;;
	pushdown)
		echo base perf-sql-pd perf-sql-nopd
		[ "$HAVE_PERF" = 1 ] && echo perf-record-filter ;;
	*)
		echo base perf-sql
		[ "$HAVE_PERF" = 1 ] && echo perf-record
		# perf stat is the counting peer: section count (here it would be counting against
		# perf-sql's sampling)
		[ "$1" = pp ] && [ "$HAVE_PERF" = 1 ] && echo perf-stat
		[ "$HAVE_TC" = 1 ] && echo trace-cmd
		[ "$HAVE_FT" = 1 ] && echo ftrace ;;
	esac
	return 0
}

# stamped OUT ARGS...: perf-sql --csv ARGS, each output line time-stamped (calc.py stamp) into
# $TMP/OUT, then one "NAME SECONDS V1 V2" line per statement in $TMP/OUT.q (calc.py parse stamps:
# perf-sql flushes after each statement, so the gap between two statements' output is the run
# time of the second, collection excluded); sets TRACER_RC
stamped() {
	local out=$1
	shift
	"$PERF_SQL" --no-bpf --csv "$@" 2> "$TMP/t.err" | calc stamp > "$TMP/$out"
	TRACER_RC=${PIPESTATUS[0]}
	calc parse stamps "$TMP/$out" > "$TMP/$out.q"
}

# q_val FILE NAME FIELD: field 2 (seconds), 3 (V1) or 4 (V2) of statement NAME in FILE
q_val() { awk -v n="$2" -v f="$3" '$1 == n { print $f; exit }' "$1"; }
