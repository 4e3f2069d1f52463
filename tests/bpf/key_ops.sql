-- keys: VALUE / N, VALUE % N, VALUE & N of integer fields
SELECT count / 100, count % 7, fd & 3, count(*) FROM sys_enter_write GROUP BY 1, 2, 3;
