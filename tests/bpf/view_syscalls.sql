-- a profiler used as a table (no arguments, no parameter set) is inlined as a CTE of its main statement, its parameters' defaults as literals; the CTE's pairs() is compiled as a sub-SELECT
SELECT syscall, calls FROM syscalls WHERE calls > 100;
