-- WHERE: an integer equality
SELECT comm, count(*) FROM sys_enter_write WHERE fd = 1 GROUP BY comm;
