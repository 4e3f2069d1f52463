# -f pprof of stack queries that are no CPU profile, read by `go tool pprof`: page faults by
# stack (pagetouch N: exactly N faults on its pages, told apart by a text label) and off-CPU
# time by stack (sleeper N MS: exactly N sleeps of at least MS ms each, a sample type in ns).
. "$(dirname "$0")/lib.sh"; need_root
command -v go > /dev/null || skip "[skipped: no go: go tool pprof reads the profiles (apt-get install golang-go, or make setup)]"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export HOME=$dir PPROF_TMPDIR=$dir
pprof() { go tool pprof "$@" 2> "$dir/pprof.err" || fail "go tool pprof $*: $(cat "$dir/pprof.err")"; }
# the sum of sample type $1's values in pprof -raw's samples ($2: the raw output), whose
# lines are "V1 V2 ... VN: LOCATIONS"
raw_sum() {
	awk -v t="$1" '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && !h { for (i = 1; i <= NF; i++) if ($i ~ "^" t "/") c = i; h = 1; next }
		s && $0 ~ /^ +[0-9]+[: ]/ { v = $c; sub(/:$/, "", v); n += v } END { print n + 0 }' "$2"
}

# page faults by stack, from a capture: N on the pages pagetouch touched, all under main
"$PERF_SQL" record -o "$dir/pf.cap" "select stack, address from page_fault_user
	where _pid = workload_pid()" -- "$WL/pagetouch" 500 > "$dir/pf.out" 2> /dev/null || fail "record"
read -r s e < <(sed -n 's/^start=\(0x[0-9a-f]*\) end=\(0x[0-9a-f]*\)$/\1 \2/p' "$dir/pf.out")
[ -n "$e" ] || fail "pagetouch said: $(cat "$dir/pf.out")"
all=$(q -r "$dir/pf.cap" "select count(*) from page_fault_user")
"$PERF_SQL" -r "$dir/pf.cap" -f pprof -o "$dir/pf.pb.gz" "select stack, count(*) as faults,
	case when address >= $s and address < $e then 'touched' else 'other' end as kind
	from page_fault_user group by stack, kind" || fail "pprof of the capture"
pprof -raw "$dir/pf.pb.gz" > "$dir/pf.raw"
eq "$(raw_sum faults "$dir/pf.raw")" "$all" "faults in the profile (every row of the capture)"
pprof -raw -tagfocus=kind=touched "$dir/pf.pb.gz" > "$dir/touched.raw"
eq "$(raw_sum faults "$dir/touched.raw")" 500 "faults labelled kind=touched"
pprof -top -tagfocus=kind=touched -nodefraction=0 "$dir/pf.pb.gz" > "$dir/pf.top"
grep -qE '^ +0 +0% +[0-9.]+% +500 +[0-9.]+% +main$' "$dir/pf.top" ||
	fail "main is not under every touched fault: $(cat "$dir/pf.top")"
grep -qE '^ +[0-9]+ .* asm_exc_page_fault$' "$dir/pf.top" || fail "no kernel frames: $(cat "$dir/pf.top")"
grep -qx "File: pagetouch" "$dir/pf.top" ||
	fail "the main binary is not the first mapping: $(head -2 "$dir/pf.top")"
echo "ok: page faults by stack: main under all 500, kernel frames in [kernel.kallsyms]"

# off-CPU time by stack, live: a sample type in nanoseconds and a count, a text label (the
# task's comm). pairs()'s start value 'stack' is the switch out's chain, kept in the kernel with
# the pending switch (docs/bpf.md), so it runs on the machine as it is, idle or not: the ring,
# which on this VM writes no sample of a switch made in an idle CPU's timer interrupt
# (docs/reliability.md), is not in the way. The sleeps are the samples through do_nanosleep
# (an exec's page-ins may add a few other waits)
p=$("$PERF_SQL" --explain "select start_value as stack, count(*) from pairs('sched_switch',
	'prev_pid', 'sched_switch', 'next_pid', 'stack') group by start_value" 2>&1)
printf '%s\n' "$p" | grep -q "path         aggregated in the kernel" ||
	skip "off-CPU by stack is not aggregated in the kernel here: $(printf '%s\n' "$p" | grep path)"
"$PERF_SQL" -f pprof -o "$dir/off.pb.gz" "select start_value as stack, sum(latency) as off_ns,
	count(*) as switches, comm from pairs('sched_switch', 'prev_pid', 'sched_switch',
	'next_pid', 'stack') where key = workload_pid() group by start_value, comm" -- \
	"$WL/sleeper" 20 10 2> "$dir/off.err" || fail "off-CPU run: $(cat "$dir/off.err")"
# what the kernel said it lost: a chain its stack map could not take, a pair it skipped
said=$(grep -o '[0-9]* events of this window had a call chain the BPF stack map could not take\|[0-9]* pairs of this window were lost in the kernel' \
	"$dir/off.err" | awk '{ n += $1 } END { print n + 0 }')
pprof -raw -tagfocus=comm=sleeper -focus='^do_nanosleep$' "$dir/off.pb.gz" > "$dir/off.raw"
grep -qx "off_ns/nanoseconds\[dflt\] switches/count" "$dir/off.raw" || fail "types: $(sed -n 5,6p "$dir/off.raw")"
between "$(raw_sum switches "$dir/off.raw")" $((20 - said)) 20 \
	"sleeps (through do_nanosleep, comm sleeper) in the profile, but for the $said the kernel said it lost"
ns=$(raw_sum off_ns "$dir/off.raw")
[ "$ns" -ge 200000000 ] || fail "20 sleeps of 10 ms off CPU for $ns ns"
echo "ok: off CPU for $ns ns in 20 sleeps of 10 ms"
pprof -top -tagfocus=comm=sleeper -sample_index=off_ns "$dir/off.pb.gz" | grep -qE ' do_nanosleep$' ||
	fail "no do_nanosleep in the sleeps' stacks"
echo "ok: the sleeps' stacks go through do_nanosleep"
