-- a column neither a key nor inside an aggregate: a bare column, kept per group (first(fd))
SELECT comm, fd, count(*) FROM sys_enter_write GROUP BY comm;
