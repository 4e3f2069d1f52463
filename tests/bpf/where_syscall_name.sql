-- WHERE: syscall_name(id) = TEXT tested as id = the name's number
SELECT comm, count(*) FROM "raw_syscalls:sys_enter" WHERE syscall_name(id) = 'write' GROUP BY comm;
