-- WHERE: constants SQLite evaluates once (arithmetic, a 64-bit literal)
SELECT fd, count(*) FROM sys_enter_write WHERE count > 4 * 1024 AND count < 5000000000 GROUP BY fd;
