-- a system call event's field outside pt_regs: the tracepoint
SELECT __syscall_nr, count, count(*) FROM sys_enter_write GROUP BY 1, 2;
