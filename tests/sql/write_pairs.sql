-- capture: writes.cap   every write paired with its return: 120 pairs, 7900 bytes written
SELECT count(*), sum(start_value), sum(end_value), sum(lost)
  FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'count', 'ret');
SELECT log2_hist(count) FROM sys_enter_write;
