-- two statements, each a GROUP BY of the same table alone: a program and a map each on its tracepoint (the first counts the events), both statements rewritten
SELECT count, count(*) FROM sys_enter_write GROUP BY count; SELECT _comm, sum(count) FROM sys_enter_write GROUP BY 1;
