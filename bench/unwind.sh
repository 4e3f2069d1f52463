#!/usr/bin/env bash
# bench/unwind.sh - CFI unwinding (--call-graph dwarf) against perf record --call-graph dwarf +
# perf script, in one run, on build/workloads/chain (-O2, no frame pointers: main -> chain_a ->
# chain_b -> chain_c), sampled at 999 Hz for UNWIND_SECS (default 5) seconds, median of
# UNWIND_REPS (default 3), the tools interleaved within each repetition:
#   slowdown   the workload's work in its fixed wall time (its global `sink` at exit, read by
#              bench/burn_rounds.c) untraced / traced: 1.00 = no cost; and the same per second
#              on a CPU (the chain's own time: other tasks of a busy machine do not count)
#   answer     time from the workload's end to the folded stacks: perf-sql's wall time minus the
#              workload's; perf's = perf record's wall time minus the workload's (writing
#              perf.data) + perf script (unwinding and naming); perf script's text is not yet
#              folded, so perf's real time to the same answer is longer
#   depth      the commonest stack of chain_c: frames in perf-sql's folded line and perf script's
#   unwinding  frames per CPU second: (perf-sql's CPU time under --call-graph dwarf - under fp,
#              the same query) / user frames unwound (from the folded lines)
# Run by bench/run.sh (section "unwind") or alone: PERF_SQL=... BUILD=... bash bench/unwind.sh
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
WL=$BUILD/workloads
SECS=${UNWIND_SECS:-5}
REPS=${UNWIND_REPS:-3}
T=$(mktemp -d); [ -n "${UNWIND_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
[ -x "$WL/chain" ] || { echo "unwind: [skipped: no $WL/chain (make)]"; exit 0; }
command -v perf > /dev/null || { echo "unwind: [skipped: no perf]"; exit 0; }
addr=$(nm "$WL/chain" | awk '$3 == "sink" { print $1 }')
cc -O2 -o "$T/rounds" "$HERE/burn_rounds.c" 2> /dev/null || { echo "unwind: [skipped: cc]"; exit 0; }
SQL="select folded_stack(stack) from cpu_clock(999) where _pid = workload_pid()"

# run NAME CMD...: CMD (which starts chain), its work (sink) and wall time into $T/NAME.*
run() {
	local name=$1 s e pid; shift
	s=$(now)
	/usr/bin/time -f '%U %S' -o "$T/$name.cpu" "$@" > "$T/$name.out" 2> "$T/$name.err" &
	local tp=$!
	for _ in $(seq 500); do
		pid=$(pgrep -x chain | head -1) && [ -n "$pid" ] && break
		sleep 0.01
	done
	[ -n "$pid" ] && "$T/rounds" "$pid" "$addr" > "$T/$name.last" 2> /dev/null
	wait $tp
	e=$(now)
	cat "$T/$name.last" >> "$T/$name.sink"
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }' >> "$T/$name.wall"
	# the tool's own CPU: /usr/bin/time counts its children, chain included
	awk -v c="$(sed -n 's/.*oncpu_ns=\([0-9]*\).*/\1/p' "$T/$name.last")" \
		'{ printf "%.3f\n", $1 + $2 - c / 1e9 }' "$T/$name.cpu" >> "$T/$name.cputotal"
}

for ((r = 0; r < REPS; r++)); do
	run base "$WL/chain" "$SECS"
	run psql "$PERF_SQL" --call-graph dwarf "$SQL" -- "$WL/chain" "$SECS"
	cp "$T/psql.out" "$T/psql.folded"
	run psqlfp "$PERF_SQL" --call-graph fp "$SQL" -- "$WL/chain" "$SECS"
	run perf perf record -q -F 999 --call-graph dwarf -o "$T/perf.data" -- "$WL/chain" "$SECS"
	s=$(now)
	perf script -i "$T/perf.data" > "$T/perf.script" 2> /dev/null
	awk -v s="$s" -v e="$(now)" 'BEGIN { printf "%.3f\n", e - s }' >> "$T/script.wall"
done

work() { sed -n 's/^sink=\([0-9]*\).*/\1/p' "$T/$1.sink" | median; }
# work per ns on a CPU: blind to other tasks taking the CPU from chain (a busy machine)
rate() { awk '{ split($1, a, "="); split($2, b, "="); if (b[2] > 0) printf "%.9g\n", a[2] / b[2] }' "$T/$1.sink" | median; }
wall() { median < "$T/$1.wall"; }
b=$(work base); p=$(work psql); f=$(work perf)
awk -v b="$b" -v p="$p" -v f="$f" -v s="$SECS" 'BEGIN {
	printf "unwind: chain %d s at 999 Hz, --call-graph dwarf, median of %d\n", s, '"$REPS"'
	printf "  slowdown (untraced work / traced work): perf-sql %.3f  perf record %.3f  ratio %.2f (lower is better)\n",
		p ? b / p : 0, f ? b / f : 0, (p && f) ? (b / p) / (b / f) : 0 }'
b=$(rate base); p=$(rate psql); f=$(rate perf)
awk -v b="$b" -v p="$p" -v f="$f" 'BEGIN {
	printf "  slowdown per CPU second (work/ns untraced / traced): perf-sql %.3f  perf record %.3f  ratio %.2f (lower is better)\n",
		p ? b / p : 0, f ? b / f : 0, (p && f) ? (b / p) / (b / f) : 0 }'
pw=$(wall psql); rw=$(wall perf); sw=$(median < "$T/script.wall")
awk -v p="$pw" -v r="$rw" -v sc="$sw" -v s="$SECS" 'BEGIN {
	a = p - s; q = r - s + sc
	printf "  time to answer after the workload: perf-sql %.3f s  perf record + perf script %.3f s (%.3f + %.3f)  ratio %.2f (lower is better)\n",
		a, q, r - s, sc, (q > 0 ? a / q : 0) }'
# depth of the commonest stack in chain_c
ours=$(awk '$1 ~ /;chain_c$/ { print $2, $1 }' "$T/psql.folded" | sort -rn | head -1 | cut -d' ' -f2)
theirs=$(awk '
	function flush() { s = ""; for (i = n; i >= 1; i--) s = s ";" f[i]; if (n) print s; n = 0; last = "" }
	/^$/ { flush(); next }
	/^\t/ { if ($1 != last) n++; f[n] = $2; sub(/\+0x[0-9a-f]+$/, "", f[n]); last = $1 }
	END { flush() }' "$T/perf.script" | grep ';chain_c$' | sort | uniq -c | sort -rn | head -1 |
	awk '{ print $2 }')
echo "  depth in chain_c: perf-sql $(($(echo "$ours" | tr ';' '\n' | wc -l) - 1)) ($ours)"
echo "                    perf     $(echo "$theirs" | tr ';' '\n' | grep -c .) (${theirs#;})"
# unwinding cost: CPU of the dwarf run minus the fp run, per user frame unwound
frames=$(awk '{ n = split($1, f, ";"); u = 0; for (i = 2; i <= n; i++) if (f[i] !~ /^(asm_|sysvec_|__irq|irq|handle_|__sysvec)/) u++; s += u * $2 } END { print s + 0 }' "$T/psql.folded")
cd=$(median < "$T/psql.cputotal"); cf=$(median < "$T/psqlfp.cputotal")
awk -v d="$cd" -v f="$cf" -v n="$frames" 'BEGIN {
	printf "  perf-sql CPU: dwarf %.3f s, fp %.3f s; %d user frames unwound: %.0f frames per CPU second\n",
		d, f, n, (d > f ? n / (d - f) : 0) }'
