-- pairs(): the start's value kept, a key of the groups
SELECT start_value, count(*), max(latency) FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'fd') GROUP BY start_value;
