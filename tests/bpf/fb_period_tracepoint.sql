-- fall-back: _period of a tracepoint
SELECT comm, sum(_period) FROM sys_enter_write GROUP BY comm;
