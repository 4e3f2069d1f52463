/*
 * syscall_name(NR) - scalar: the x86_64 system call name of NR, as raw_syscalls:sys_enter's
 * id field carries it.
 *
 *   SELECT syscall_name(id) AS syscall, count(*) FROM syscall_pairs GROUP BY id;
 *   -- syscall_name(0) = 'read', syscall_name(231) = 'exit_group'
 *
 * (1) The table is bpf/syscall.c's (generated at build time from the kernel UAPI header), the
 *     one the BPF planner reads syscalls:sys_enter_NAME's number from.
 * (2) NULL gives NULL; an integer with no name (negative, a gap, past the table) gives NULL,
 *     so GROUP BY still works and coalesce(syscall_name(id), id) keeps the number.
 * (3) A non-integer NR is an error quoting the value.
 */
#include <sqlite3.h>

#include "bpf/syscall.h"
#include "sqlite/functions.h"

const char *syscall_name_of(sqlite3_int64 nr) { return bpf_syscall__name(nr); }

void syscall_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sql_result_name_of(ctx, argv[0], "syscall_name", syscall_name_of);
}
