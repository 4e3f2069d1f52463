#!/usr/bin/env bash
# bench/run.sh - perf-sql side by side with perf record, perf stat and trace-cmd on the same
# workloads, in one run, printed as ratios perf-sql / peer.
#
#   make bench                                   # PERF_SQL=/abs/perf-sql BUILD=/abs/build
#   BENCH_REPS=1 bash bench/run.sh               # quicker, noisier
#   BENCH_SECTIONS="slow1 start" bash bench/run.sh
#
# Sections (BENCH_SECTIONS, default all: slow1 slow2 pp count start win sym burn pushdown agg replay
# unwind serve; unwind: CFI unwinding against perf record --call-graph dwarf, see bench/unwind.sh;
# serve: perf-sql serve's CPU per scrape and the slowdown with 1 scrape/s, see bench/serve.sh;
# bpf: the BPF path against bpftrace, see bench/bpf.sh; ustr: user strings against bpftrace's
# str(), see bench/user_str.sh; pairs: pairs() in the kernel, perf-sql syscalls and rundelay
# against bpftrace, perf trace -s and bcc syscount -L, see bench/bpf_pairs.sh):
#  slow1  getppid_loop -t SECS pinned to CPU 0, untraced vs traced system-wide on
#         syscalls:sys_enter_getppid, every event sampled (perf-sql reads a column: count(_cpu);
#         count(*) alone would be counted in the kernel, see count): (1) slowdown = traced
#         ns/call / untraced ns/call, (2) lost fraction at BENCH_PAGES ring pages per CPU (the same
#         pages for every tool), (3) CPU per event = the tracer's user+sys time (/usr/bin/time) /
#         events received.
#  slow2  the same with one loop pinned to each of CPUs 0 and 1.
#  pp     pingpong -c 0 N (both tasks on CPU 0) traced on sched:sched_switch: round trips/s.
#  count  slow1 counted, not sampled: perf-sql "select count(*)" (counting mode: no column read)
#         against perf stat -e syscalls:sys_enter_getppid -a.
#  start  (4) wall time of `TOOL ... sched_switch -- true`, median of 10; and its peak RSS.
#  win    (5) peak RSS over a 1,000,000-event window (`-- getppid_loop 1000000`, per task);
#         (6) the GROUP BY comm query: perf-sql's group-by run minus its count(_cpu) run, against
#         `perf report --sort comm --stdio` and `perf script` timed on perf record's file.
#  sym    symbol resolution from a warm cache: one perf-sql run over `-- burn 1` sampled by
#         cpu_clock(999) (~1000 stacks of ~5 frames) runs statements that join the samples with
#         a SYM_COPIES-row recursive CTE, with and without stack_text(stack): the difference is
#         ~1M frames symbolized. Statements are timed apart in one run (perf-sql flushes its
#         output after each statement; calc.py stamp time-stamps the lines), fastest of
#         SYM_TIMES x BENCH_REPS. Against perf script and perf report -g none --sort sym on
#         `perf record -g -F 999 -- burn 5` (whole run), and their marginal rate between that
#         file and a -F 9999 one (start-up cancelled).
#  burn   sampling overhead: `burn SECS` on CPU 0 untraced, under perf-sql "select
#         folded_stack(stack) from cpu_clock(999) ..." and under perf record -F 999 -g. burn runs
#         for a fixed wall time, so its work is what it got done: bench/burn_rounds.c attaches
#         with ptrace (no stop until the exit) and reads burn's global `sink` (the sum of its loop
#         indices, so work x a constant) and its on-CPU ns at the exit. Slowdown = untraced work /
#         traced work, per wall second and per on-CPU second (the latter is blind to other tasks
#         taking CPU 0; the sampling interrupts are still burn's time: no IRQ time accounting).
#  pushdown  `writes N 8 300 7777` pinned to CPU 0, traced system-wide by perf-sql "select
#         count(_cpu) from sys_enter_write where count = 7777" with the kernel filter and with
#         --no-pushdown, and by perf record --filter: workload slowdown and tracer CPU.
#  agg    cost of log2_hist, p99, stats, heatmap per row over one window of `writes 1000000 8`
#         (sys_enter_write): each statement holds AGG_COPIES calls of one aggregate (distinct
#         arguments), is timed apart as in sym (fastest of AGG_TIMES x BENCH_REPS), and the
#         count(count) statement is subtracted; SQLite's own sum() is the reference.
#
# perf-sql runs with --no-bpf in every section but bpf: they measure the perf ring path (its
# sampling, windows and SQLite's aggregates); section bpf measures GROUP BY in the kernel.
#
# A traced run: the tracer is started system-wide with a window marker as its command (a copy
# of cat named pqbw<pid>, reading a FIFO this script holds open). Once the marker's comm appears
# the tracer is collecting; the workload then runs on its own, so /usr/bin/time on the tracer
# counts the tracer alone; closing the FIFO ends the marker and so the tracer. Tools are
# interleaved within each repetition, and the report prints medians.
#
# trace-cmd 3.1 record dies on kernels where set_ftrace_filter cannot be opened for writing
# (kernel lockdown: EPERM). The script probes that with O_APPEND (which changes nothing) and then
# measures the same kernel path itself as row "ftrace": a private tracefs instance with the event
# enabled and the ring at BENCH_PAGES pages, read by bench/ftrace_reader.c (splice of
# per_cpu/cpuN/trace_pipe_raw, one process per CPU, as trace-cmd's recorders do). The instance is
# removed on every exit path; top-level tracing state is only touched by trace-cmd itself, and
# every trace-cmd record is followed by `trace-cmd reset`.
#
# Knobs: BENCH_REPS (3), BENCH_SECS (2), BENCH_PAGES (64), BENCH_PP (200000 round trips),
# BENCH_BURN_SECS (10), BENCH_SYM_COPIES (200), BENCH_PD_WRITES (2000000), BENCH_PD_PAGES (512),
# BENCH_AGG_ROWS (1000000), BENCH_AGG_COPIES (10),
# BENCH_MAX_MEMORY (4G: perf-sql's --max-memory in the system-wide runs, so that its lost count
# is ring losses only), BENCH_SECTIONS, BENCH_KEEP=1 keeps the temporary directory.
# Exit 0 unless the set-up fails.
set -u
export LC_ALL=C

PERF_SQL=${PERF_SQL:-$PWD/perf-sql}
BUILD=${BUILD:-$PWD/build}
W=$BUILD/workloads
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECS:-2}
PAGES=${BENCH_PAGES:-64}
PP=${BENCH_PP:-200000}
MAXMEM=${BENCH_MAX_MEMORY:-4G}
ALL_SECTIONS="slow1 slow2 pp count start win sym burn pushdown agg replay unwind serve bpf ustr pairs"
SECTIONS=${BENCH_SECTIONS:-$ALL_SECTIONS}
BURN_SECS=${BENCH_BURN_SECS:-10}
SYM_COPIES=${BENCH_SYM_COPIES:-200}
PD_WRITES=${BENCH_PD_WRITES:-2000000}
PD_N=300
PD_PAGES=${BENCH_PD_PAGES:-512}
# 7777, not 777: tests/live/pushdown.sh writes 777-byte records, and others may run it meanwhile
PD_SIZE=7777
PD_SQL="select count(_cpu) as n from sys_enter_write where count = $PD_SIZE"
PD_FILTER="count == $PD_SIZE"
AGG_ROWS=${BENCH_AGG_ROWS:-1000000}
AGG_COPIES=${BENCH_AGG_COPIES:-10}
AGG_PAGES=8192
AGG_TIMES=3
SYM_TIMES=3
NCPU=$(nproc)
TRACEFS=/sys/kernel/tracing
FT=$TRACEFS/instances/perfsql_bench_$$
MARK=pqbw$$
FT_PIDS=()
TRACER_PID=
TRACER_RC=0
GO=

STATS_SQL="select sum(received) as received, sum(lost) as lost from perf_sql_stats"

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

# ------------------------------------------------------------------------------------ set-up

[ -x "$PERF_SQL" ] || die "no perf-sql at $PERF_SQL (run make first)"
for w in getppid_loop pingpong writes burn; do
	[ -x "$W/$w" ] || die "no workload $W/$w (make $W/$w)"
done
command -v python3 > /dev/null || die "python3 is needed for the arithmetic"
command -v taskset > /dev/null || die "taskset (util-linux) is needed to pin the workloads"
if [ ! -x /usr/bin/time ]; then
	log "installing Debian's time package for /usr/bin/time"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q time > /dev/null 2>&1 ||
		log "apt-get install time failed: the CPU and RSS rows will be empty"
fi
TMP=$(mktemp -d /tmp/perf-sql-bench.XXXXXX) || die "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
RES=$TMP/results
: > "$RES"
: > "$TMP/anomalies"
cp "$(command -v cat)" "$TMP/$MARK" && mkfifo "$TMP/go" || die "cannot make the window marker"
put pages "$PAGES"
put agg.copies "$AGG_COPIES"
put sym.copies "$SYM_COPIES"
put burn.secs "$BURN_SECS"
put burn.unit "$(awk '$1 == "#define" && $2 == "UNIT" { print $3 }' "$HERE/../tests/workloads/burn.c" 2> /dev/null)"
put pushdown.n "$PD_N"
put pushdown.size "$PD_SIZE"

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

# ------------------------------------------------------------------------------- traced runs

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

# loops NCPU: one `getppid_loop -t SECS` pinned to each of CPUs 0..NCPU-1; prints "calls ns/call"
loops() {
	local c pids=() files=()
	for ((c = 0; c < $1; c++)); do
		taskset -c "$c" "$W/getppid_loop" -t "$SECS" > "$TMP/wl.$c" 2>&1 &
		pids+=($!)
		files+=("$TMP/wl.$c")
	done
	wait "${pids[@]}"
	calc parse workload "${files[@]}"
}

# pingpong: prints "N round-trips/s"
pingpong() {
	local s e
	s=$EPOCHREALTIME
	"$W/pingpong" -c 0 "$PP" > /dev/null 2>&1 || { echo "- -"; return; }
	e=$EPOCHREALTIME
	awk -v n="$PP" -v s="$s" -v e="$e" 'BEGIN { printf "%d %.0f\n", n, n / (e - s) }'
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

# ------------------------------------------------------------------------------ the sections

section_slow1() {
	local r t
	log "getppid 1cpu, ${SECS}s x$REPS: $(tools slow1 | tr '\n' ' ')"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools slow1); do traced slow1 "$t" syscalls:sys_enter_getppid loops 1; done
	done
}

section_slow2() {
	local r t
	if [ "$NCPU" -lt 2 ]; then
		skip base.slow2 "one CPU"
		return
	fi
	log "getppid 2cpu, ${SECS}s x$REPS"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools slow2); do traced slow2 "$t" syscalls:sys_enter_getppid loops 2; done
	done
}

section_pp() {
	local r t
	log "pingpong -c 0 $PP x$REPS, traced on sched_switch"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools pp); do traced pp "$t" sched:sched_switch pingpong; done
	done
}

section_start() {
	local i t cmd
	log "start-up + tear-down x10"
	for ((i = 0; i < 10; i++)); do
		for t in perf-sql perf-stat perf-record perf-record-nobpf; do
			[ "$t" != perf-sql ] && [ "$HAVE_PERF" = 0 ] && continue
			case $t in
			perf-sql) cmd=("$PERF_SQL" "select count(*) from sched_switch" -- true) ;;
			perf-stat) cmd=(perf stat -e sched:sched_switch -o /dev/null -- true) ;;
			perf-record) cmd=(perf record -q -e sched:sched_switch -o "$TMP/start.data" -- true) ;;
			# perf 6.1's BPF side-band thread polls with a 1 s timeout before it exits
			perf-record-nobpf) cmd=(perf record -q --no-bpf-event -e sched:sched_switch \
				-o "$TMP/start.data" -- true) ;;
			esac
			run_timed "${cmd[@]}"
			if [ "$TRACER_RC" != 0 ]; then
				[ "$t" = perf-sql ] &&
					anomaly "start-up: perf-sql exit $TRACER_RC: $(oneline < "$TMP/t.err")"
				continue
			fi
			put "start.$t.wall" "$WALL"
			put "start.$t.rss" "$(calc parse time "$TMP/t.time" | awk '{ print $3 }')"
		done
	done
	rm -f "$TMP"/start.data*
}

section_win() {
	local r q sql t cmd
	log "1M-event window x$REPS"
	for ((r = 0; r < REPS; r++)); do
		for q in count group; do
			case $q in
			# count(_cpu): count(*) alone would be counted in the kernel, with no window
			count) sql="select count(_cpu) as n from sys_enter_getppid" ;;
			group) sql="select comm, count(*) as n from sys_enter_getppid group by comm" ;;
			esac
			run_timed "$PERF_SQL" --no-bpf --csv "$sql; select sum(received) as received,
				sum(lost) as lost from perf_sql_stats" -- "$W/getppid_loop" 1000000
			check_perf_sql "win.$q"
			[ "$TRACER_RC" = 0 ] && [ "$RECV" != - ] || continue
			put "win.$q.wall" "$WALL"
			put "win.$q.recv" "$RECV"
			put "win.$q.lost" "$LOST"
			put "win.$q.rss" "$(calc parse time "$TMP/t.time" | awk '{ print $3 }')"
		done
		[ "$HAVE_PERF" = 1 ] || continue
		run_timed perf record -e syscalls:sys_enter_getppid -o "$TMP/win.data" -- \
			"$W/getppid_loop" 1000000
		if [ "$TRACER_RC" != 0 ]; then
			skip perf-record.win "perf record exit $TRACER_RC: $(tail -c 200 "$TMP/t.err" | oneline)"
			continue
		fi
		put win.perf-record.wall "$WALL"
		put win.perf-record.rss "$(calc parse time "$TMP/t.time" | awk '{ print $3 }')"
		perf report -i "$TMP/win.data" --stats > "$TMP/perf.stats" 2>&1
		read -r recv lost < <(calc parse perf-record "$TMP/perf.stats")
		put win.perf-record.recv "$recv"
		put win.perf-record.lost "$lost"
		for t in perf-report perf-script; do
			case $t in
			perf-report) cmd=(perf report -i "$TMP/win.data" --sort comm --stdio) ;;
			perf-script) cmd=(perf script -i "$TMP/win.data") ;;
			esac
			run_timed "${cmd[@]}"
			put "win.$t.wall" "$WALL"
			put "win.$t.rss" "$(calc parse time "$TMP/t.time" | awk '{ print $3 }')"
		done
		rm -f "$TMP"/win.data*
	done
}

section_count() {
	local r t
	log "getppid 1cpu counted: perf-sql count(*) (counting mode) / perf stat, ${SECS}s x$REPS"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools count); do traced count "$t" syscalls:sys_enter_getppid loops 1; done
	done
}

# writes_run: one `writes PD_WRITES 8 PD_N PD_SIZE` pinned to CPU 0; prints "writes ns/write" (wall
# time of the whole process: it only writes)
writes_run() {
	local s e
	s=$EPOCHREALTIME
	taskset -c 0 "$W/writes" "$PD_WRITES" 8 "$PD_N" "$PD_SIZE" > /dev/null 2>&1 || { echo "- -"; return; }
	e=$EPOCHREALTIME
	awk -v n=$((PD_WRITES + PD_N)) -v s="$s" -v e="$e" 'BEGIN { printf "%d %.2f\n", n, (e - s) * 1e9 / n }'
}

section_pushdown() {
	local r t
	log "pushdown: writes $PD_WRITES 8 $PD_N $PD_SIZE x$REPS traced system-wide, WHERE count = $PD_SIZE," \
		"kernel filter on / off, $PD_PAGES pages/CPU"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools pushdown); do traced pushdown "$t" syscalls:sys_enter_write writes_run; done
	done
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

section_sym() {
	local r s t i q cmd k sql frames
	[ -x "$W/burn" ] || { skip base.sym "no workload $W/burn"; return; }
	log "symbols: burn 1 at 999 Hz, each stack $SYM_COPIES times, stack_text on / off x$REPS;" \
		"perf script / perf report on perf record -g -F 999 / -F 9999 -- burn 5"
	k="WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $SYM_COPIES)"
	for ((r = 0; r < REPS; r++)); do
		# q_warm resolves every stack once (ELF symbols and kallsyms loaded), so q_text runs warm;
		# q_text - q_base is the cost of stack_text on SYM_COPIES copies of each stack; each runs
		# SYM_TIMES times over the same window, and the report takes the fastest (others' tasks
		# only ever add time)
		sql="select 1 as q_start;
			select count(stack_text(stack)) as q_warm from cpu_clock(999) where _pid = workload_pid();
			select stack_text(stack, ';') as q_top from cpu_clock(999) where _pid = workload_pid()
			group by 1 order by count(*) desc limit 1"   # the commonest: the first may be a fault
		for ((i = 0; i < SYM_TIMES; i++)); do
			for q in base text; do
				sql="$sql; $k select $([ $q = base ] && echo 'count(*)' ||
					echo 'count(stack_text(stack))') as q_$q, sum(stack_depth(stack)) as frames
					from cpu_clock(999), k where _pid = workload_pid()"
			done
		done
		stamped sym.ts "$sql" -- "$W/burn" 1
		frames=$(q_val "$TMP/sym.ts.q" text 4)
		if [ "$TRACER_RC" != 0 ] || [ -z "$frames" ] || [ "$frames" = - ]; then
			anomaly "sym: perf-sql exit $TRACER_RC: $(oneline < "$TMP/t.err")"
			continue
		fi
		grep -q 'burn_[ab]' "$TMP/sym.ts" || anomaly "sym: the sampled stack names no" \
			"burn_a/burn_b: $(grep -A1 q_top "$TMP/sym.ts" | tail -1 | cut -f2 | oneline 200)"
		awk '$1 == "base" || $1 == "text" { print "sym." $1 ".secs", $2 }' "$TMP/sym.ts.q" >> "$RES"
		put sym.text.rows "$(q_val "$TMP/sym.ts.q" text 3)"
		put sym.text.frames "$frames"
	done
	[ "$HAVE_PERF" = 1 ] || return 0
	for s in 999 9999; do
		run_timed perf record -q -F "$s" -g -o "$TMP/sym$s.data" -- "$W/burn" 5
		if [ "$TRACER_RC" != 0 ]; then
			skip perf-record.sym "perf record exit $TRACER_RC: $(tail -c 200 "$TMP/t.err" | oneline)"
			return
		fi
		# the frames perf resolves: one line per callchain entry in perf script's output
		put "sym.perf.frames$s" "$(perf script -i "$TMP/sym$s.data" 2> /dev/null |
			awk '/^\t/ { n++ } END { print n + 0 }')"
	done
	for ((r = 0; r < REPS; r++)); do
		for s in 999 9999; do
			for t in perf-script perf-report; do
				case $t in
				perf-script) cmd=(perf script -i "$TMP/sym$s.data") ;;
				perf-report) cmd=(perf report -i "$TMP/sym$s.data" --stdio -g none --sort sym) ;;
				esac
				run_timed "${cmd[@]}"
				[ "$TRACER_RC" = 0 ] && put "sym.$t.wall$s" "$WALL"
			done
		done
	done
	rm -f "$TMP"/sym*.data*
}

# find_burn ROOT: the pid of the process named burn under ROOT (ROOT included), waiting up to 5 s
find_burn() {
	local i p q
	for ((i = 0; i < 500; i++)); do
		q=("$1")
		while [ ${#q[@]} -gt 0 ]; do
			p=${q[0]}
			q=("${q[@]:1}")
			[ "$(cat "/proc/$p/comm" 2> /dev/null)" = burn ] && { echo "$p"; return 0; }
			q+=($(pgrep -P "$p"))
		done
		sleep 0.01
	done
	return 1
}

section_burn() {
	local r t addr pid sink oncpu cmd
	# burn is started as is and pinned by pid once found: under `-- taskset -c 0 burn` perf-sql
	# sometimes keeps taskset's comm and maps after the exec (raw addresses in folded_stack)
	local wl=("$W/burn" "$BURN_SECS")
	[ -x "$W/burn" ] || { skip base.burn "no workload $W/burn"; return; }
	addr=$(nm "$W/burn" 2> /dev/null | awk '$3 == "sink" { print $1; exit }')
	[ -n "$addr" ] || { skip base.burn "no symbol sink in $W/burn (nm)"; return; }
	if ! cc -O2 -o "$TMP/burn_rounds" "$HERE/burn_rounds.c" 2> "$TMP/cc.err"; then
		skip base.burn "cannot build bench/burn_rounds.c: $(oneline 200 < "$TMP/cc.err")"
		return
	fi
	log "sampling overhead: burn $BURN_SECS on CPU 0 x$REPS: untraced / perf-sql folded_stack" \
		"at 999 Hz / perf record -F 999 -g"
	for ((r = 0; r < REPS; r++)); do
		for t in base perf-sql perf-record; do
			case $t in
			base) cmd=("${wl[@]}") ;;
			perf-sql) cmd=("$PERF_SQL" --csv "select folded_stack(stack) as folded
				from cpu_clock(999) where _pid = workload_pid()" -- "${wl[@]}") ;;
			perf-record) [ "$HAVE_PERF" = 1 ] || continue
				cmd=(perf record -q -F 999 -g -o "$TMP/burn.data" -- "${wl[@]}") ;;
			esac
			rm -f "$TMP/burn.sink"
			timed "${cmd[@]}"
			pid=$(find_burn "$TRACER_PID") && taskset -p -c 0 "$pid" > /dev/null &&
				"$TMP/burn_rounds" "$pid" "$addr" > "$TMP/burn.sink" 2> "$TMP/burn.err"
			wait "$TRACER_PID"
			TRACER_RC=$?
			TRACER_PID=
			read -r sink oncpu < <(sed -n 's/^sink=\([0-9]*\) oncpu_ns=\([0-9]*\)$/\1 \2/p' \
				"$TMP/burn.sink" 2> /dev/null)
			if [ "$TRACER_RC" != 0 ] || [ -z "$sink" ]; then
				[ "$t" = perf-record ] && skip perf-record.burn "perf record exit $TRACER_RC"
				[ "$t" != perf-record ] && anomaly "burn.$t: exit $TRACER_RC, burn pid ${pid:-not found}:" \
					"$(cat "$TMP/burn.err" 2> /dev/null | oneline 150) $(oneline 150 < "$TMP/t.err")"
				continue
			fi
			[ "$t" = perf-sql ] && ! grep -q 'burn_a' "$TMP/t.out" &&
				anomaly "burn.perf-sql: no burn_a in folded_stack: $(oneline 200 < "$TMP/t.out")"
			put "burn.$t.sink" "$sink"
			# work per ns on a CPU: immune to other tasks taking CPU 0 from burn
			put "burn.$t.cpurate" "$(awk -v s="$sink" -v n="$oncpu" \
				'BEGIN { if (n > 0) printf "%.9g", s / n }')"
		done
	done
	rm -f "$TMP"/burn.data*
}

AGGS="count sum log2_hist p99 stats heatmap"

# agg_cols F: AGG_COPIES calls of aggregate F, the first named q_F; distinct arguments, as SQLite
# computes identical aggregate calls once
agg_cols() {
	local i a cols=
	for ((i = 0; i < AGG_COPIES; i++)); do
		a="count + $i"
		[ "$1" = heatmap ] && a="_time, $a"
		cols="$cols${cols:+, }$1($a) as $([ "$i" = 0 ] && echo "q_$1" || echo "c$i")"
	done
	echo "$cols"
}

section_agg() {
	local r f i sql recv lost
	log "aggregates: $AGG_COPIES copies each over one window of writes $AGG_ROWS 8" \
		"(sys_enter_write), timed per statement, x$REPS"
	# every statement AGG_TIMES times over the same window, interleaved; the report takes the
	# fastest of each (others' tasks only ever add time)
	sql="select 1 as q_start"
	for ((i = 0; i < AGG_TIMES; i++)); do
		for f in $AGGS; do sql="$sql; select $(agg_cols "$f") from sys_enter_write"; done
	done
	sql="$sql; select sum(received) as q_received, sum(lost) as lost from perf_sql_stats"
	for ((r = 0; r < REPS; r++)); do
		stamped agg.ts -m "$AGG_PAGES" --max-memory "$MAXMEM" "$sql" -- "$W/writes" "$AGG_ROWS" 8
		recv=$(q_val "$TMP/agg.ts.q" received 3)
		lost=$(q_val "$TMP/agg.ts.q" received 4)
		if [ "$TRACER_RC" != 0 ] || [ -z "$lost" ]; then
			anomaly "agg: perf-sql exit $TRACER_RC: $(oneline < "$TMP/t.err")"
			continue
		fi
		if awk -v r="$recv" -v n="$AGG_ROWS" 'BEGIN { exit !(r < 0.99 * n) }'; then
			# costs are per row, but a window much short of its rows is not the one asked for
			echo "note agg: a run received $recv of $AGG_ROWS writes (lost $lost) and was left out" >> "$RES"
			continue
		fi
		[ "$(q_val "$TMP/agg.ts.q" count 3)" = "$recv" ] ||
			anomaly "agg: count(count) = $(q_val "$TMP/agg.ts.q" count 3) but received = $recv"
		put agg.rows "$recv"
		awk '$1 != "received" { print "agg." $1 ".secs", $2 }' "$TMP/agg.ts.q" >> "$RES"
	done
}

T0=$SECONDS
# GROUP BY in the kernel against bpftrace (bench/bpf.sh)
section_bpf() {
	log "bpf: count by comm, log2_hist, start-up and CPU, perf-sql's BPF path against bpftrace x$REPS"
	BENCH_REPS=$REPS bash "$HERE/bpf.sh" > "$TMP/bpf.out" 2> /dev/null
}

# user strings (filename_str) against bpftrace's str() (bench/user_str.sh)
section_ustr() {
	log "ustr: openat's filename_str against bpftrace str() and perf-sql's ring on the pointer x$REPS"
	BENCH_REPS=$REPS bash "$HERE/user_str.sh" > "$TMP/ustr.out" 2> /dev/null
}

# pairs() in the kernel: syscalls and rundelay against bpftrace, perf trace, bcc (bench/bpf_pairs.sh)
section_pairs() {
	log "pairs: syscalls vs bpftrace/perf trace -s/syscount -L, rundelay vs bpftrace runqlat x$REPS"
	BENCH_REPS=$REPS bash "$HERE/bpf_pairs.sh" > "$TMP/pairs.out" 2> /dev/null
}

# record/replay against perf record + perf report / perf script (bench/replay.sh)
section_replay() {
	log "replay: record 1M events, then GROUP BY comm on the capture vs perf report / perf script"
	bash "$HERE/replay.sh" > "$TMP/replay.out" 2> /dev/null
}

# CFI unwinding against perf record --call-graph dwarf + perf script (bench/unwind.sh)
section_unwind() {
	log "unwind: chain at 999 Hz, --call-graph dwarf vs perf record --call-graph dwarf + perf script"
	bash "$HERE/unwind.sh" > "$TMP/unwind.out" 2> /dev/null
}

# perf-sql serve: CPU per scrape of 1,000 series, collection with and without scrapes (bench/serve.sh)
section_serve() {
	log "serve: CPU per scrape of 1,000 series; getppid_loop under serve with and without 1 scrape/s"
	BENCH_REPS=$REPS BENCH_SECS=$SECS BENCH_PAGES=$PAGES bash "$HERE/serve.sh" > "$TMP/serve.out" 2> /dev/null
}

log "$("$PERF_SQL" --version 2>&1 | head -1); $(perf --version 2>/dev/null); kernel $(uname -r); $NCPU CPUs"
for sec in $SECTIONS; do
	if declare -F "section_$sec" > /dev/null; then
		"section_$sec"
	else
		log "no section '$sec'; choices: $ALL_SECTIONS"
	fi
done

# ---------------------------------------------------------------------------------- results

echo "perf-sql bench: $NCPU CPUs, kernel $(uname -r), $(perf --version 2>/dev/null || echo 'no perf')," \
	"$PAGES ring pages/CPU, median of $REPS, $((SECONDS - T0)) s"
calc report "$RES"
[ -s "$TMP/replay.out" ] && cat "$TMP/replay.out"
[ -s "$TMP/bpf.out" ] && cat "$TMP/bpf.out"
[ -s "$TMP/ustr.out" ] && cat "$TMP/ustr.out"
[ -s "$TMP/pairs.out" ] && cat "$TMP/pairs.out"
[ -s "$TMP/unwind.out" ] && cat "$TMP/unwind.out"
[ -s "$TMP/serve.out" ] && cat "$TMP/serve.out"
if [ -s "$TMP/lostwarn" ]; then
	echo "perf-sql lost-event warnings (expected where it lost events): $(sort "$TMP/lostwarn" |
		uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')"
fi
if [ -s "$TMP/anomalies" ]; then
	echo "perf-sql anomalies:"
	awk '{ n[$0]++; if (n[$0] == 1) order[++k] = $0 }
	     END { for (i = 1; i <= k; i++) print "  " order[i] (n[order[i]] > 1 ? " (x" n[order[i]] ")" : "") }' \
		"$TMP/anomalies"
fi
exit 0
