-- WHERE on helper values: _pid, _cpu
SELECT comm, count(*) FROM sys_enter_read WHERE _pid != 1 AND _cpu < 64 GROUP BY comm;
