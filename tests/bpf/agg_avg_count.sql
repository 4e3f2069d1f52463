-- aggregates: avg(x) as sum / count, count(x)
SELECT comm, avg(count), count(count) FROM sys_enter_write GROUP BY comm;
