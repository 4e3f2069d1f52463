-- a signed 8-byte value: sum and min of sys_exit_write's ret
SELECT sum(ret), min(ret) FROM sys_exit_write;
