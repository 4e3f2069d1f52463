-- count(*) alone of a table a tp_btf program counts exactly (a system call never fires inside
-- its own program): the program, whose link detaches at once where a perf event's close waits
-- for an RCU grace period (bpf/hook.h (4))
SELECT count(*) FROM sys_enter_write;
