-- a key named by its alias and by its number, as SQLite reads GROUP BY
SELECT fd AS f, _cpu, count(*) AS n FROM sys_enter_write GROUP BY f, 2;
