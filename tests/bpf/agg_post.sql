-- HAVING, ORDER BY, LIMIT and expressions of keys and aggregates, in SQLite over the groups
SELECT comm, sum(count) / count(*) AS avg_bytes, upper(comm) FROM sys_enter_write GROUP BY comm HAVING count(*) > 10 ORDER BY 2 DESC LIMIT 5;
