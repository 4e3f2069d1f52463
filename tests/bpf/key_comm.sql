-- a key: the current task's name (bpf_get_current_comm)
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
