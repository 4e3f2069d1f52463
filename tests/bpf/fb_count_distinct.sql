-- count(DISTINCT x): x a key of the kernel's groups only, counted distinct over them
SELECT comm, count(DISTINCT fd) FROM sys_enter_write GROUP BY comm;
