# PMU tables, stacks, uprobes and breakpoints against workloads with known shapes.
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
# cpu_clock(100) over 2 s of busy work: about 200 samples, i.e. 100 per second of the CPU time
# the workload got (task-clock, counted in the same run: the test holds on a loaded machine)
out=$(q "select count(*) from cpu_clock(100) where _pid = workload_pid();
         select value / 10000000 from counters where name = 'task-clock'" -- "$WL/burn" 2 |
      tr '\n' ' ') || fail "cpu_clock"
n=${out%% *}; want=${out##*value / 10000000 }; want=${want% }
between "$n" $((want * 90 / 100)) $((want * 110 / 100 + 1)) "cpu_clock(100) samples for ${want}0 ms of CPU"
[ "$want" -ge 195 ] && between "$n" 180 220 "cpu_clock(100) samples over 2 s of busy work"
# burn_a() does twice the work of burn_b(): folded stacks end main;burn_a and main;burn_b
"$PERF_SQL" "select folded_stack(stack) from cpu_clock(999) where _pid = workload_pid()" \
	-- "$WL/burn" 2 > /tmp/psql-burn.folded || fail "folded_stack"
a=$(awk '/;main;burn_a [0-9]+$/ { n += $NF } END { print n + 0 }' /tmp/psql-burn.folded)
b=$(awk '/;main;burn_b [0-9]+$/ { n += $NF } END { print n + 0 }' /tmp/psql-burn.folded)
head -1 /tmp/psql-burn.folded | grep -q '^burn;' || fail "folded lines start with the comm: $(head -1 /tmp/psql-burn.folded)"
[ "$b" -gt 0 ] && ratio=$((100 * a / b)) || fail "no burn_b samples"
between "$ratio" 160 250 "burn_a/burn_b samples x100 ($a/$b)"
# a program touching 10,240 fresh pages: 10,240 page_faults rows in its range
"$PERF_SQL" --csv "select addr from page_faults where _pid = workload_pid()" \
	-- "$WL/pagetouch" 10240 > /tmp/psql-pf.csv || fail "page_faults"
range=$(grep -o 'start=0x[0-9a-f]* end=0x[0-9a-f]*' /tmp/psql-pf.csv)
start=$(( $(echo "$range" | sed 's/start=\(0x[0-9a-f]*\).*/\1/') ))
end=$(( $(echo "$range" | sed 's/.*end=\(0x[0-9a-f]*\)/\1/') ))
n=$(grep -E '^-?[0-9]+' /tmp/psql-pf.csv | tr -d '\r' | awk -v s="$start" -v e="$end" '$1 >= s && $1 < e' | wc -l)
between "$n" 10236 10240 "page_faults rows in the touched range (one in ~5 runs misses one: the kernel counts it but no sample comes)"
# uprobe and uretprobe: 5,000 calls of target_fn(i)
out=$(qx sum= --uprobe target_fn@"$WL/uprobe_target" "select count(*), sum(arg0) from uprobe_target_fn" \
      -- "$WL/uprobe_target" 5000) || fail "uprobe"
eq "$out" "5000,12497500" "uprobe calls and sum(arg0)"
out=$(qx sum= --uretprobe target_fn@"$WL/uprobe_target" "select count(*), sum(ret) from uretprobe_target_fn" \
      -- "$WL/uprobe_target" 5000) || fail "uretprobe"
eq "$out" "5000,12497500" "uretprobe returns and sum(ret)"
grep -q perfsql "$TFS/uprobe_events" && fail "a uprobe was left in tracefs"
# hardware breakpoint on a watched variable: counted exactly; sampled rows (below the
# kernel's sample-rate throttle)
out=$(qx '^0x' --breakpoint watched "select count(*) from breakpoint" -- "$WL/watch" 1000) ||
	fail "breakpoint"
eq "$out" 1000 "breakpoint hits of 1000 writes"
out=$(qx '^0x' --breakpoint watched "select count(ip), count(distinct ip) from breakpoint" \
      -- "$WL/watch" 300) || fail "breakpoint rows"
eq "$out" "300,1" "breakpoint rows of 300 writes, all from one instruction"
err=$("$PERF_SQL" --breakpoint 0x1001 --breakpoint 0x1002 --breakpoint 0x1003 --breakpoint 0x1004 \
      --breakpoint 0x1005 "select 1" -- true 2>&1); rc=$?
eq "$rc" 1 "exit status of a 5th breakpoint"
[[ "$err" == *"at most 4 hardware breakpoints"* ]] || fail "5th breakpoint: $err"
# hardware counters in a VM: one clear line
if ! "$PERF_SQL" -d 200ms "select count(*) from cycles" >/dev/null 2>/tmp/psql-hw.err; then
	grep -q "cycles: not supported by this CPU/VM; try cpu_clock" /tmp/psql-hw.err || fail "cycles: $(cat /tmp/psql-hw.err)"
	echo "ok: cycles says not supported"
fi
# kernel symbols
out=$(q -d 500ms "select count(*) > 0 from cpu_clock(999) where ksym(ip) is not null and ip < 0") || fail "ksym"
eq "$out" 1 "kernel samples resolve with ksym()"
