-- fall-back: a join reads two tables
SELECT a.comm, count(*) FROM sys_enter_write a JOIN sys_exit_write b ON a._tid = b._tid GROUP BY a.comm;
