#!/usr/bin/env bash
# bench/run.sh - perf-sql side by side with perf record, perf stat and trace-cmd on the same
# workloads, in one run, printed as ratios perf-sql / peer.
#
#   make bench                                   # PERF_SQL=/abs/perf-sql BUILD=/abs/build
#   BENCH_REPS=1 bash bench/run.sh               # quicker, noisier
#   BENCH_SECTIONS="slow1 start" bash bench/run.sh
#
# Sections (BENCH_SECTIONS, default all), each described at the head of its file:
#   slow1 slow2 pp count start win pushdown  bench/ring.sh: the tracepoint ring path against
#                                            perf record, perf stat and trace-cmd;
#   sym burn  bench/stack.sh: sampled stacks against perf record -g;
#   agg       bench/agg.sh: the aggregates' cost per row;
#   replay    record/replay against perf record + perf report / perf script, see bench/replay.sh;
#   unwind    CFI unwinding against perf record --call-graph dwarf, see bench/unwind.sh;
#   serve     perf-sql serve's CPU per scrape and the slowdown with 1 scrape/s, and per 30 s
#             pprof profile served, see bench/serve.sh;
#   bpf       the BPF path against bpftrace, see bench/bpf.sh;
#   ustr      user strings against bpftrace's str(), see bench/user_str.sh;
#   pairs     pairs() in the kernel, perf-sql syscalls and rundelay against bpftrace, perf trace -s
#             and bcc syscount -L, see bench/bpf_pairs.sh;
#   shapes    the profilers' shapes in the kernel (a bare column, an operation of two columns)
#             against a bpftrace one-liner, see bench/bpf_shapes.sh;
#   cgroup    the cost per event of reading _cgroup, kernel and ring, against the same statement
#             without it and bpftrace's cgroup builtin, see bench/cgroup.sh;
#   churn     continuous profiling under a churn of new processes (BENCH_CHURN_SECS, 600, twice):
#             the stack map's windows, see bench/churn.sh.
# What the sections share (the results file, timed and traced runs, the peers) is bench/lib.sh.
#
# perf-sql runs with --no-bpf in every section but bpf, ustr, pairs, shapes, cgroup and churn:
# they measure the ring path (its sampling, windows and SQLite's aggregates); section bpf
# measures GROUP BY in the kernel, ustr the BPF program of user strings, pairs pairs() in the
# kernel (and on the ring).
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
ALL_SECTIONS="slow1 slow2 pp count start win sym burn pushdown agg replay unwind serve bpf ustr pairs shapes cgroup churn"
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

for f in lib ring stack agg; do
	. "$HERE/$f.sh" || { printf 'bench: cannot read %s\n' "$HERE/$f.sh" >&2; exit 1; }
done

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

probe_peers

# ------------------------------------------------------------ sections with a script of their own

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

# the profilers' statement shapes in the kernel against bpftrace (bench/bpf_shapes.sh)
section_shapes() {
	log "shapes: a bare column and sum(a != b) by thread, perf-sql's BPF path against bpftrace x$REPS"
	BENCH_REPS=$REPS bash "$HERE/bpf_shapes.sh" > "$TMP/shapes.out" 2> /dev/null
}

# _cgroup's cost per event on each path, against bpftrace's cgroup (bench/cgroup.sh)
section_cgroup() {
	log "cgroup: _cgroup as a key, kernel and ring, against the same without it and bpftrace @[cgroup] x$REPS"
	BENCH_REPS=$REPS bash "$HERE/cgroup.sh" > "$TMP/cgroup.out" 2> /dev/null
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
	log "serve: CPU per scrape of 1,000 series; getppid_loop under serve with and without 1 scrape/s; a served 30 s profile"
	BENCH_REPS=$REPS BENCH_SECS=$SECS BENCH_PAGES=$PAGES bash "$HERE/serve.sh" > "$TMP/serve.out" 2> /dev/null
}

# continuous profiling under churn: the stack map's windows (bench/churn.sh)
section_churn() {
	log "churn: ${BENCH_CHURN_SECS:-600} s x2 of new processes under -i 1000 GROUP BY stack in the kernel"
	bash "$HERE/churn.sh" > "$TMP/churn.out" 2> /dev/null
}

T0=$SECONDS
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
[ -s "$TMP/shapes.out" ] && cat "$TMP/shapes.out"
[ -s "$TMP/cgroup.out" ] && cat "$TMP/cgroup.out"
[ -s "$TMP/unwind.out" ] && cat "$TMP/unwind.out"
[ -s "$TMP/serve.out" ] && cat "$TMP/serve.out"
[ -s "$TMP/churn.out" ] && cat "$TMP/churn.out"
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
