-- a key: sys_exit_read's ret, the raw tracepoint's second argument
SELECT ret, count(*) FROM sys_exit_read GROUP BY ret;
