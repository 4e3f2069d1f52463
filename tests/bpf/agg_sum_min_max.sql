-- aggregates: sum (overflow flagged), min, max
SELECT comm, sum(count), min(count), max(count) FROM sys_enter_write GROUP BY comm;
