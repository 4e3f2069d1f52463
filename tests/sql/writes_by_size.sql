-- capture: writes.cap   (writes 100 777 20 10: 100 writes of 777 bytes among 20 of 10 bytes)
SELECT count, count(*) AS n FROM sys_enter_write GROUP BY count ORDER BY count;
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
