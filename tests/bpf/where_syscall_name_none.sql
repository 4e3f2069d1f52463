-- WHERE: syscall_name(id) of no system call is FALSE (a test the verifier cannot decide)
SELECT comm, count(*) FROM "raw_syscalls:sys_enter" WHERE syscall_name(id) = 'nosuch' GROUP BY comm;
