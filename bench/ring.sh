#!/usr/bin/env bash
# bench/ring.sh - the tracepoint ring path (sampling, counting, windows, the kernel filter) side
# by side with perf record, perf stat and trace-cmd (or its stand-in, row ftrace), on
# getppid_loop, pingpong and writes. Sourced by bench/run.sh; the traced runs are lib.sh's.
#
# Sections:
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
#  start  (4) wall time of `TOOL ... sched_switch -- true`, median of 10 (perf-sql's own path:
#         count(*) alone of sched_switch is a tp_btf program's), and its peak RSS; (4b) 20
#         tracepoint tables counted over `-- true` (20 count(*) statements, against perf stat -e
#         of the same 20) and 1 of them: the cost per table, with --no-bpf (counting mode, as
#         perf stat) and on perf-sql's own path (tp_btf programs: bpf/hook.h (4)).
#  win    (5) peak RSS over a 1,000,000-event window (`-- getppid_loop 1000000`, per task);
#         (6) the GROUP BY comm query: perf-sql's group-by run minus its count(_cpu) run, against
#         `perf report --sort comm --stdio` and `perf script` timed on perf record's file.
#  pushdown  `writes N 8 300 7777` pinned to CPU 0, traced system-wide by perf-sql "select
#         count(_cpu) from sys_enter_write where count = 7777" with the kernel filter and with
#         --no-pushdown, and by perf record --filter: workload slowdown and tracer CPU.

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

# reps_traced SEC EVENT WORKLOAD...: REPS rounds, each a run of WORKLOAD under every tool of SEC in
# turn (tools interleaved within a round)
reps_traced() {
	local sec=$1 r t
	shift
	for ((r = 0; r < REPS; r++)); do
		for t in $(tools "$sec"); do traced "$sec" "$t" "$@"; done
	done
}

section_slow1() {
	log "getppid 1cpu, ${SECS}s x$REPS: $(tools slow1 | tr '\n' ' ')"
	reps_traced slow1 syscalls:sys_enter_getppid loops 1
}

section_slow2() {
	if [ "$NCPU" -lt 2 ]; then
		skip base.slow2 "one CPU"
		return
	fi
	log "getppid 2cpu, ${SECS}s x$REPS"
	reps_traced slow2 syscalls:sys_enter_getppid loops 2
}

section_pp() {
	log "pingpong -c 0 $PP x$REPS, traced on sched_switch"
	reps_traced pp sched:sched_switch pingpong
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
	section_start20
}

# 20 system calls' sys_enter tables: tracepoints every kernel has, with no task field (each is
# counted on the workload's tasks, as perf stat counts)
START20="read write openat close mmap munmap brk ioctl pread64 pwrite64 readv writev access pipe
	select sched_yield mremap msync mincore madvise"

section_start20() {
	local i t cmd sql= evs= n
	for n in $START20; do
		sql="$sql select count(*) from sys_enter_$n;"
		evs="$evs${evs:+,}syscalls:sys_enter_$n"
	done
	log "start-up + tear-down, 20 tracepoint tables, x10"
	for ((i = 0; i < 10; i++)); do
		for t in perf-sql-20 perf-sql-1 perf-sql-20-bpf perf-sql-1-bpf perf-stat-20; do
			[ "$t" = perf-stat-20 ] && [ "$HAVE_PERF" = 0 ] && continue
			case $t in
			perf-sql-20) cmd=("$PERF_SQL" --no-bpf "$sql" -- true) ;;
			perf-sql-1) cmd=("$PERF_SQL" --no-bpf "select count(*) from sys_enter_read" -- true) ;;
			# perf-sql's own path: a system call's count(*) is a tp_btf program's (bpf/hook.h (4))
			perf-sql-20-bpf) cmd=("$PERF_SQL" "$sql" -- true) ;;
			perf-sql-1-bpf) cmd=("$PERF_SQL" "select count(*) from sys_enter_read" -- true) ;;
			perf-stat-20) cmd=(perf stat -e "$evs" -o /dev/null -- true) ;;
			esac
			run_timed "${cmd[@]}"
			if [ "$TRACER_RC" != 0 ]; then
				anomaly "start-up, 20 tables: $t exit $TRACER_RC: $(oneline < "$TMP/t.err")"
				continue
			fi
			put "start20.$t.wall" "$WALL"
		done
	done
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
	log "getppid 1cpu counted: perf-sql count(*) (counting mode) / perf stat, ${SECS}s x$REPS"
	reps_traced count syscalls:sys_enter_getppid loops 1
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
	log "pushdown: writes $PD_WRITES 8 $PD_N $PD_SIZE x$REPS traced system-wide, WHERE count = $PD_SIZE," \
		"kernel filter on / off, $PD_PAGES pages/CPU"
	reps_traced pushdown syscalls:sys_enter_write writes_run
}
