-- pairs(): start and end values, sum of both
SELECT sum(start_value), sum(end_value), count(*) FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'count', 'ret');
