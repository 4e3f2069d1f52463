-- fall-back: a column neither a key nor inside an aggregate
SELECT comm, fd, count(*) FROM sys_enter_write GROUP BY comm;
