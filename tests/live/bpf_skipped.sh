# Runs of a table's program the kernel skipped (bpf/table.h (4)) are counted as lost and said
# on stderr. Deterministic: bpftrace's perf event program (profile:hz) calls bpf_trace_printk
# whenever its sample lands in getppid_loop, so every bpf_trace:bpf_trace_printk event fires
# while bpftrace's program holds the CPU (bpf_prog_active): perf-sql's classic tracepoint
# program is never run for one. bpftrace counts its calls: the kernel path must receive 0 and
# lose exactly that many, with the warning; the ring (--no-bpf, no program) receives them all.
. "$(dirname "$0")/lib.sh"; need_root
command -v bpftrace >/dev/null ||
	skip "bpftrace is not installed (apt-get install bpftrace): the check needs another tool's BPF program"
plan=$("$PERF_SQL" -a --explain "select comm, count(*) from bpf_trace_printk group by comm") ||
	fail "explain"
if ! printf '%s\n' "$plan" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
	fail "not aggregated in the kernel: $plan"
fi
d=$(mktemp -d) || fail "mktemp"
bt=
trap '[ -n "$bt" ] && kill -INT $bt 2> /dev/null; wait; rm -rf "$d"' EXIT

# one run of perf-sql (options $1) beside bpftrace: "RECEIVED,LOST CALLS" in $d/got
run() {
	bpftrace -e 'BEGIN { printf("ready\n"); }
		profile:hz:997 /comm == "getppid_loop"/ { debugf("perf-sql skip"); @n = count(); }' \
		> "$d/bt" 2>&1 & bt=$!
	for _ in $(seq 200); do grep -q "^ready" "$d/bt" && break; sleep 0.05; done
	grep -q "^ready" "$d/bt" || fail "bpftrace did not start: $(cat "$d/bt")"
	q -a -m 1024 $1 "select comm, count(*) from bpf_trace_printk group by comm;
		select sum(received), sum(lost) from perf_sql_stats" -- "$WL/getppid_loop" -t 1 \
		> "$d/out" 2> "$d/err" || fail "perf-sql $1: $(cat "$d/err")"
	kill -INT $bt; wait $bt; bt=
	calls=$(sed -n 's/^@n: //p' "$d/bt")
	[ -n "$calls" ] && [ "$calls" -gt 0 ] ||
		fail "no sample of bpftrace's landed in getppid_loop: $(cat "$d/bt")"
	echo "$(tail -1 "$d/out") $calls" > "$d/got"
}

run ""
read -r got calls < "$d/got"
eq "$got" "0,$calls" "in the kernel: received, lost of $calls printk events bpftrace's program fired"
eq "$(cat "$d/err")" "perf-sql: warning: bpf_trace:bpf_trace_printk: $calls events of this window were not aggregated: the kernel did not run the program (another BPF program or a BPF map call held the CPU); --no-bpf counts on the perf ring" \
	"the warning"
run --no-bpf
read -r got calls < "$d/got"
eq "$got" "$calls,0" "on the ring: received, lost of $calls printk events"
eq "$(grep -c . "$d/err")" 0 "warnings on the ring"
