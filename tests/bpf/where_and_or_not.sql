-- WHERE: AND, OR, NOT
SELECT fd, count(*) FROM sys_enter_write WHERE (fd = 1 OR fd = 2) AND NOT count < 5 GROUP BY fd;
