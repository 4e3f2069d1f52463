#!/usr/bin/env bash
# bench/agg.sh - what perf-sql's aggregates cost per row, against SQLite's own sum(). Sourced by
# bench/run.sh; the statements are timed apart in one run by lib.sh's stamped.
#
# Section:
#  agg    cost of log2_hist, p99, stats, heatmap per row over one window of `writes 1000000 8`
#         (sys_enter_write): each statement holds AGG_COPIES calls of one aggregate (distinct
#         arguments), is timed apart as in sym (fastest of AGG_TIMES x BENCH_REPS), and the
#         count(count) statement is subtracted; SQLite's own sum() is the reference.

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
		# --query-timeout 0: the window's 18 statements of 10 aggregates over 1M rows each
		# pass the default 10 s on a loaded machine; this row is about each one's cost
		stamped agg.ts -m "$AGG_PAGES" --max-memory "$MAXMEM" --query-timeout 0 "$sql" -- \
			"$W/writes" "$AGG_ROWS" 8
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
