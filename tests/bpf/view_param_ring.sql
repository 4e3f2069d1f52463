-- a profiler used as a table that sets a parameter (WHERE than = ...) keeps the table, which binds it per scan: its tables stay on the ring, saying why
SELECT syscall, calls FROM syscalls WHERE than = '1ms';
