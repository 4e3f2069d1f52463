-- a system call the UAPI table names otherwise (newfstat is fstat): the tracepoint
SELECT fd, count(*) FROM sys_enter_newfstat GROUP BY fd;
