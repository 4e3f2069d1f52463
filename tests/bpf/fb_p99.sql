-- fall-back: p99() of a table is computed in SQLite
SELECT comm, p99(count) FROM sys_enter_write GROUP BY comm;
