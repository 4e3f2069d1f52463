-- a subquery in FROM: compiled as when it stands alone, the statement over its groups
SELECT comm, n FROM (SELECT comm, count(*) AS n FROM sys_enter_write GROUP BY comm);
