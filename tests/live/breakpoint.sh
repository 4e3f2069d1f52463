# Hardware breakpoints on a watched variable: each store counted exactly, and sampled rows all
# from the one storing instruction. Some VMs accept a breakpoint but never fire it: the probe
# (tests/workloads/bp_probe.c, a store watched by a breakpoint of its own) finds that first.
. "$(dirname "$0")/lib.sh"; need_root
# at most 4: one clear line, whatever the machine (nothing is opened)
err=$("$PERF_SQL" --breakpoint 0x1001 --breakpoint 0x1002 --breakpoint 0x1003 --breakpoint 0x1004 \
      --breakpoint 0x1005 "select 1" -- true 2>&1); rc=$?
eq "$rc" 1 "exit status of a 5th breakpoint"
[[ "$err" == *"at most 4 hardware breakpoints"* ]] || fail "5th breakpoint: $err"
probe=$("$WL/bp_probe" 1000) || skip "$probe"
echo "ok: probe: $probe"
# counted exactly; sampled rows (below the kernel's sample-rate throttle)
out=$(qx '^0x' --breakpoint watched "select count(*) from breakpoint" -- "$WL/watch" 1000) ||
	fail "breakpoint"
eq "$out" 1000 "breakpoint hits of 1000 writes"
out=$(qx '^0x' --breakpoint watched "select count(ip), count(distinct ip) from breakpoint" \
      -- "$WL/watch" 300) || fail "breakpoint rows"
eq "$out" "300,1" "breakpoint rows of 300 writes, all from one instruction"
