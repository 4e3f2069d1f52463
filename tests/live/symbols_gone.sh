# A process that ends while perf-sql loads its binary's names: the file's identity is taken from
# an fd held over the load, so the CFI read after the process is gone (through the path, checked
# against that identity) still cuts the kernel's frame-pointer walk where the binary says rbp is
# garbage. Before, a stat() after the load found /proc/PID/root gone (about 1 run in 4 under two
# busy loops): no CFI, and offcpu's stacks grew two garbage frames past __libc_start_call_main.
# The test build's hook PERF_SQL_TEST_DSO_LOADED_MS holds each load's end until the workload is
# gone (the ring path names its frames through the same code: symbols/symbols.c).
. "$(dirname "$0")/lib.sh"; need_root
ref=$("$PERF_SQL" offcpu --csv -- "$WL/sleeper" 5 20 | grep ';do_nanosleep;') || fail "no sleep line"
got=$(PERF_SQL_TEST_DSO_LOADED_MS=1500 "$PERF_SQL" offcpu --csv -- "$WL/sleeper" 5 20 |
	grep ';do_nanosleep;') || fail "no sleep line with the process gone"
[[ "$ref" == sleeper\;__libc_start_call_main\;syscall\;* ]] || fail "the reference: $ref"
eq "${got%% *}" "${ref%% *}" "the sleep's stack with the process gone during the load"
