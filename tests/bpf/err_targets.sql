-- an error: --kernel-facts plans for every task; a target needs the running kernel
-- args: -p 1
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
