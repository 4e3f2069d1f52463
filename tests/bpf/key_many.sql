-- five keys of three kinds: helpers, a field, the comm
SELECT _pid, _tid, _cpu, comm, fd, count(*) FROM sys_enter_write GROUP BY 1, 2, 3, 4, 5;
