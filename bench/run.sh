#!/usr/bin/env bash
# bench/run.sh - perf-sql side by side with perf record, perf stat and trace-cmd on the same
# workloads, in one run, printed as ratios perf-sql / peer.
#
#   make bench                                   # PERF_SQL=/abs/perf-sql BUILD=/abs/build
#   BENCH_REPS=1 bash bench/run.sh               # quicker, noisier
#   BENCH_SECTIONS="slow1 start" bash bench/run.sh
#
# Sections (BENCH_SECTIONS, default all: slow1 slow2 pp start win):
#  slow1  getppid_loop -t SECS pinned to CPU 0, untraced vs traced system-wide on
#         syscalls:sys_enter_getppid: (1) slowdown = traced ns/call / untraced ns/call,
#         (2) lost fraction at BENCH_PAGES ring pages per CPU (the same pages for every tool),
#         (3) CPU per event = the tracer's user+sys time (/usr/bin/time) / events received.
#  slow2  the same with one loop pinned to each of CPUs 0 and 1.
#  pp     pingpong -c 0 N (both tasks on CPU 0) traced on sched:sched_switch: round trips/s.
#  start  (4) wall time of `TOOL ... sched_switch -- true`, median of 10; and its peak RSS.
#  win    (5) peak RSS over a 1,000,000-event window (`-- getppid_loop 1000000`, per task);
#         (6) the GROUP BY comm query: perf-sql's group-by run minus its count(*) run, against
#         `perf report --sort comm --stdio` and `perf script` timed on perf record's file.
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
SECTIONS=${BENCH_SECTIONS:-slow1 slow2 pp start win}
NCPU=$(nproc)
TRACEFS=/sys/kernel/tracing
FT=$TRACEFS/instances/perfsql_bench_$$
MARK=pqbw$$
FT_PIDS=()
TRACER_PID=
TRACER_RC=0
GO=

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
for w in getppid_loop pingpong; do
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
		# --max-memory: the default 256M budget refuses rows past ~4.8M getppid events and
		# counts them as lost; this row is about ring losses, the RSS row shows the memory
		timed "$PERF_SQL" -a -m "$PAGES" --max-memory "$MAXMEM" --csv "select count(*) as n from $tp;
			select sum(received) as received, sum(lost) as lost from perf_sql_stats" \
			-- "${win[@]}" ;;
	perf-record)
		timed perf record -e "$ev" -a -m "$PAGES" -o "$TMP/perf.data" -- "${win[@]}" ;;
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
	local p
	if [ "$1" = ftrace ]; then
		ftrace_stop
	else
		exec {GO}>&-
		GO=
		if ! pgrep -x "$MARK" > /dev/null; then   # it failed before the marker ran
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

# check_perf_sql WHAT: note a failed or inconsistent perf-sql run; sets N RECV LOST
check_perf_sql() {
	read -r N RECV LOST < <(calc parse perf-sql "$TMP/t.out")
	if [ "$TRACER_RC" != 0 ] || [ "$RECV" = - ]; then
		anomaly "$1: perf-sql exit $TRACER_RC; stdout: $(oneline 200 < "$TMP/t.out");" \
			"stderr: $(grep -v 'warning: .* lost' "$TMP/t.err" | oneline)"
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
	perf-sql)
		check_perf_sql "$sec"
		recv=$RECV lost=$LOST ;;
	perf-record)
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
	[ "$sec" = pp ] || [ "$calls" = - ] || [ "$recv" = - ] && return 0
	if awk -v r="$recv" -v l="${lost/-/0}" -v c="$calls" 'BEGIN { exit !(r + l < 0.97 * c) }'; then
		if [ "$tool" = perf-sql ]; then
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
		[ "$tool" = perf-sql ] &&
			anomaly "$sec: perf-sql did not start: $(tail -c 300 "$TMP/t.err" | oneline)"
		return
	fi
	read -r calls v < <("$@")
	stop_tracer "$tool"
	put "$sec.$tool.nspc" "$v"
	collect "$sec" "$tool" "$calls"
}

tools() {
	echo base perf-sql
	[ "$HAVE_PERF" = 1 ] && echo perf-record perf-stat
	[ "$HAVE_TC" = 1 ] && echo trace-cmd
	[ "$HAVE_FT" = 1 ] && echo ftrace
	return 0
}

# ------------------------------------------------------------------------------ the sections

section_slow1() {
	local r t
	log "getppid 1cpu, ${SECS}s x$REPS: $(tools | tr '\n' ' ')"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools); do traced slow1 "$t" syscalls:sys_enter_getppid loops 1; done
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
		for t in $(tools); do traced slow2 "$t" syscalls:sys_enter_getppid loops 2; done
	done
}

section_pp() {
	local r t
	log "pingpong -c 0 $PP x$REPS, traced on sched_switch"
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools); do traced pp "$t" sched:sched_switch pingpong; done
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
			count) sql="select count(*) as n from sys_enter_getppid" ;;
			group) sql="select comm, count(*) as n from sys_enter_getppid group by comm" ;;
			esac
			run_timed "$PERF_SQL" --csv "$sql; select sum(received) as received,
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

T0=$SECONDS
log "$("$PERF_SQL" --version 2>&1 | head -1); $(perf --version 2>/dev/null); kernel $(uname -r); $NCPU CPUs"
for sec in $SECTIONS; do
	if declare -F "section_$sec" > /dev/null; then
		"section_$sec"
	else
		log "no section '$sec'; choices: slow1 slow2 pp start win"
	fi
done

# ---------------------------------------------------------------------------------- results

echo "perf-sql bench: $NCPU CPUs, kernel $(uname -r), $(perf --version 2>/dev/null || echo 'no perf')," \
	"$PAGES ring pages/CPU, median of $REPS, $((SECONDS - T0)) s"
calc report "$RES"
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
