-- fall-back: a table read by two statements
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
SELECT fd, count(*) FROM sys_enter_write GROUP BY fd;
