# Windows that last (docs/bpf.md, "Stacks"; bpf/table.h (2c)): a profile in the kernel under -i
# while new programs come and go. Each run of the getppid_loop workload is a new process at new
# addresses (ASLR), so its user chains are new ones: a stack map that were never emptied would
# fill after a few windows and then refuse most samples (the decay issue #26 measured: 4,206
# stacks in the first window, ~280 for good). Here each map holds what a window may take
# (bpf/stack.c: 2 chains x 999 Hz x 2 CPUs x 0.25 s x 1.25 = 1248 chains, --max-groups 512
# below it): room for any one window whatever else runs, while the run, CHURN_WINDOWS windows
# (default 48; 2400 is the issue's ten minutes), makes more than twice the map's chains (about
# 120 new stacks a window: 5,800; a loaded make test made 4,062 in 32). Every window must
# refuse nothing, and the last must hold as many stacks as the first within a factor of ten.
. "$(dirname "$0")/lib.sh"; need_root
windows=${CHURN_WINDOWS:-48}
sql="select count(*) as stacks, sum(n) as samples from (select stack, count(*) as n
	from cpu_clock(999) group by stack);
	select sum(received) as received, sum(lost) as lost from perf_sql_stats where \"table\" = 'cpu_clock'"
plan=$("$PERF_SQL" --explain -i 250 --max-groups 512 "$sql") || fail "explain"
if ! printf '%s\n' "$plan" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
	fail "not aggregated in the kernel: $plan"
fi
size=$(printf '%s\n' "$plan" | sed -n 's/.*two stack maps of \([0-9]*\) chains (kernel and user, up to [0-9]* frames each; one a window, emptied in turn).*/\1/p')
eq "$size" 1248 "--explain: two stack maps, one a window, of chains"

dir=$(mktemp -d)
churn() { while :; do "$WL/getppid_loop" 100000 > /dev/null; done; }
churn & cpid=$!
trap 'kill $cpid 2>/dev/null; wait $cpid 2>/dev/null; rm -rf "$dir"' EXIT
out=$("$PERF_SQL" --csv -i 250 -d $((windows * 250 + 125))ms --max-groups 512 "$sql" 2>"$dir/err") ||
	fail "run: $(cat "$dir/err")"
kill $cpid; wait $cpid 2>/dev/null
# one line of each statement a window: stacks,samples then received,lost
rows=$(printf '%s\n' "$out" | tr -d '\r' | grep -v '^window_start' | cut -d, -f2- | paste -d, - -)
n=$(printf '%s\n' "$rows" | wc -l)
[ "$n" -ge "$windows" ] || fail "$n windows, expected $windows: $out"
first=$(printf '%s\n' "$rows" | head -1) last=$(printf '%s\n' "$rows" | sed -n "${windows}p")
echo "windows (stacks,samples,received,lost): $(printf '%s\n' "$rows" | head -"$windows" | tr '\n' ' ')"
total=$(printf '%s\n' "$rows" | head -"$windows" | awk -F, '{ s += $1 } END { print s }')
[ "$total" -gt $((2 * size)) ] || fail "the churn made $total stacks in $windows windows: too few to fill a map of $size twice"
echo "ok: $total stacks in $windows windows, a map of $size chains filled $((total / size)) times over"
refused=$(printf '%s\n' "$rows" | head -"$windows" | awk -F, '{ s += $4 } END { print s }')
eq "$refused" 0 "samples refused in all $windows windows"
grep -q "could not take" "$dir/err" && fail "a window said it could not take a chain: $(cat "$dir/err")"
IFS=, read -r s1 n1 r1 l1 <<< "$first"
IFS=, read -r s2 n2 r2 l2 <<< "$last"
eq "$n2" "$r2" "the last window: every sample received is in a group ($n2)"
[ "$s1" -gt 0 ] && [ "$s2" -gt 0 ] || fail "no stacks: first $first, last $last"
[ $((s2 * 10)) -ge "$s1" ] && [ $((s1 * 10)) -ge "$s2" ] ||
	fail "the last window's $s2 stacks are not the first's $s1 within a factor of ten"
echo "ok: the last window's stacks ($s2) are the first's ($s1) order of magnitude"
