#!/usr/bin/env bash
# bench/stack.sh - stacks sampled by cpu_clock on the burn workload, side by side with perf record
# -g: the cost of naming the frames (sym) and the workload's slowdown under sampling (burn).
# Sourced by bench/run.sh.
#
# Sections:
#  sym    symbol resolution from a warm cache: one perf-sql run over `-- burn 1` sampled by
#         cpu_clock(999) (~1000 stacks of ~5 frames) runs statements that join the samples with
#         a SYM_COPIES-row recursive CTE, with and without stack_text(stack): the difference is
#         ~1M frames symbolized. Statements are timed apart in one run (perf-sql flushes its
#         output after each statement; calc.py stamp time-stamps the lines), fastest of
#         SYM_TIMES x BENCH_REPS. Against perf script and perf report -g none --sort sym on
#         `perf record -g -F 999 -- burn 5` (whole run), and their marginal rate between that
#         file and a -F 9999 one (start-up cancelled).
#  burn   sampling overhead: `burn SECS` on CPU 0 untraced, under perf-sql "select
#         folded_stack(stack) from cpu_clock(999) ..." and under perf record -F 999 -g; and
#         under perf record -F 999 without -g: the floor, what sampling alone costs here. burn runs
#         for a fixed wall time, so its work is what it got done: bench/burn_rounds.c attaches
#         with ptrace (no stop until the exit) and reads burn's global `sink` (the sum of its loop
#         indices, so work x a constant) and its on-CPU ns at the exit. Slowdown = untraced work /
#         traced work, per wall second and per on-CPU second (the latter is blind to other tasks
#         taking CPU 0; the sampling interrupts are still burn's time: no IRQ time accounting).

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
		for t in base perf-sql perf-record perf-record-nog; do
			case $t in
			base) cmd=("${wl[@]}") ;;
			perf-sql) cmd=("$PERF_SQL" --csv "select folded_stack(stack) as folded
				from cpu_clock(999) where _pid = workload_pid()" -- "${wl[@]}") ;;
			perf-record) [ "$HAVE_PERF" = 1 ] || continue
				cmd=(perf record -q -F 999 -g -o "$TMP/burn.data" -- "${wl[@]}") ;;
			perf-record-nog) [ "$HAVE_PERF" = 1 ] || continue # the floor: no call chain
				cmd=(perf record -q -F 999 -o "$TMP/burn.data" -- "${wl[@]}") ;;
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
				[ "${t#perf-record}" != "$t" ] && skip "$t.burn" "perf record exit $TRACER_RC"
				[ "${t#perf-record}" = "$t" ] && anomaly "burn.$t: exit $TRACER_RC, burn pid ${pid:-not found}:" \
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
