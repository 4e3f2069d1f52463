-- fall-back: a subquery
SELECT comm, n FROM (SELECT comm, count(*) AS n FROM sys_enter_write GROUP BY comm);
