-- aggregates with no GROUP BY: one group, key 0
SELECT count(*), sum(count), max(fd) FROM sys_enter_write;
