-- fall-back: count(DISTINCT x)
SELECT comm, count(DISTINCT fd) FROM sys_enter_write GROUP BY comm;
