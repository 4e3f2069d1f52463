-- WHERE: IS and IS NOT
SELECT fd, count(*) FROM sys_enter_write WHERE fd IS 1 OR count IS NOT 0 GROUP BY fd;
