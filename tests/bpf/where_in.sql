-- WHERE: IN and NOT IN lists
SELECT fd, count(*) FROM sys_enter_write WHERE fd IN (1, 2) AND count NOT IN (0, 4096) GROUP BY fd;
