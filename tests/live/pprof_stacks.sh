# -f pprof of stack queries that are no CPU profile, read by `go tool pprof`: page faults by
# stack (pagetouch N: exactly N faults on its pages, told apart by a text label) and time
# asleep by stack (sleeper N MS: exactly N sleeps of at least MS ms each, a sample type in ns).
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

# time asleep by stack, live: a sample type in nanoseconds and a count, a text label (the
# task's comm). pairs() of clock_nanosleep's enter and exit with the enter's call chain as the
# start value, kept in the kernel with the pending start (docs/bpf.md): both events come in
# the task's own context, so each of the sleeper's 20 sleeps is exactly one pair. (Off-CPU
# time by sched_switch is not exact per sleep on this kernel: a sleep may be switched out more
# than once (a wakeup before its timer: a switch out in state R from the same call), and the
# switch in, made from an idle CPU's timer interrupt, is not delivered even to BPF about once
# in 1,200 sleeps (docs/reliability.md); live/bpf_profilers checks offcpu against the ring.)
q="select start_value as stack, sum(latency) as asleep_ns, count(*) as sleeps, comm
	from pairs('sys_enter_clock_nanosleep', '_tid', 'sys_exit_clock_nanosleep', '_tid', 'stack')
	where key = workload_pid() group by start_value, comm"
"$PERF_SQL" -f pprof -o "$dir/off.pb.gz" "$q" -- "$WL/sleeper" 20 10 2> "$dir/off.err" ||
	fail "sleeps by stack: $(cat "$dir/off.err")"
grep -q "path         aggregated in the kernel" < <("$PERF_SQL" --explain "$q" -- "$WL/sleeper" 1 0 2>&1) ||
	fail "sleeps by stack are not aggregated in the kernel: $("$PERF_SQL" --explain "$q" -- "$WL/sleeper" 1 0 2>&1 | grep path)"
# what the kernel said it lost: a chain its stack map could not take, a pair it skipped
said=$(grep -o '[0-9]* events of this window had a call chain the BPF stack map could not take\|[0-9]* pairs of this window were lost in the kernel' \
	"$dir/off.err" | awk '{ n += $1 } END { print n + 0 }')
pprof -raw -tagfocus=comm=sleeper -focus='^main$|^syscall$' "$dir/off.pb.gz" > "$dir/off.raw"
grep -qx "asleep_ns/nanoseconds\[dflt\] sleeps/count" "$dir/off.raw" || fail "types: $(sed -n 5,6p "$dir/off.raw")"
between "$(raw_sum sleeps "$dir/off.raw")" $((20 - said)) 20 \
	"sleeps (comm sleeper, through its call of syscall()) in the profile, but for the $said the kernel said it lost"
ns=$(raw_sum asleep_ns "$dir/off.raw")
[ "$ns" -ge 200000000 ] || fail "20 sleeps of 10 ms asleep for $ns ns"
echo "ok: asleep for $ns ns in 20 sleeps of 10 ms"
pprof -top -tagfocus=comm=sleeper -sample_index=asleep_ns -nodefraction=0 "$dir/off.pb.gz" |
	grep -qE ' __libc_start_call_main$' || fail "no __libc_start_call_main in the sleeps' stacks"
echo "ok: the sleeps' stacks go through the sleeper's start"
