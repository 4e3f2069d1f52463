-- pairs(): a system call's latency, start on tp_btf/sys_enter, end on tp_btf/sys_exit
SELECT count(*), sum(latency), max(latency) FROM pairs('sys_enter_read', '_tid', 'sys_exit_read', '_tid');
