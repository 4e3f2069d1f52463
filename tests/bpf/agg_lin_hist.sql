-- an aggregate: lin_hist with under- and overflow buckets
SELECT fd, lin_hist(count, 0, 1000, 100) FROM sys_enter_write GROUP BY fd;
