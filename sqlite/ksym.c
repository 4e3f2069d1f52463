/*
 * ksym(ADDR) - scalar: the kernel function holding ADDR ("vfs_read+0x1b"), from /proc/kallsyms.
 * usym(PID, ADDR) - scalar: the user function holding ADDR in process PID ("main+0x3 (burn)"),
 *   from the mappings read when PID's first stack was collected, else read now.
 *
 *   SELECT ksym(ip), count(*) FROM cpu_clock(99) WHERE ip >= 0xffff800000000000 GROUP BY 1;
 *   SELECT usym(_pid, ip), count(*) FROM cpu_clock(99) GROUP BY 1 ORDER BY 2 DESC;
 *
 * (1) An address no symbol holds gives NULL; so does a NULL argument.
 * (2) ADDR is any int64 (addresses past 2^63 are negative as SQL integers); an argument that is
 *     not an integer is an error quoting it, and so is a PID outside [0, 2^32).
 */
#include <inttypes.h>
#include <stdio.h>
#include "core/session.h"
#include "sqlite/functions.h"
#include "symbols/symbols.h"

static void symbol_result(sqlite3_context *ctx, uint32_t pid, uint64_t addr, bool kernel)
{
	struct symbols *sy = stack_symbols(ctx);
	const char *dso = NULL, *name;
	uint64_t off = 0;

	if (!sy)
		return;
	if (!kernel)
		symbols__note_pid(sy, pid);
	name = symbols__resolve(sy, pid, addr, kernel, &off, &dso);
	if (!name)
		return;
	if (kernel || !dso)
		sqlite3_result_text(ctx, sqlite3_mprintf("%s+0x%" PRIx64, name, off), -1,
				    sqlite3_free);
	else
		sqlite3_result_text(ctx, sqlite3_mprintf("%s+0x%" PRIx64 " (%s)", name, off, dso),
				    -1, sqlite3_free);
}

void ksym_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 addr;

	if (sql_int_arg(ctx, argv[0], "ksym: ADDR ", &addr) > 0)
		symbol_result(ctx, 0, (uint64_t)addr, true);
}

bool sql_pid_arg(sqlite3_context *ctx, sqlite3_value *val, const char *fname, uint32_t *pid_out)
{
	sqlite3_int64 pid;
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "%s: PID ", fname);
	if ((rc = sql_int_arg(ctx, val, what, &pid)) <= 0)
		return false;
	if (pid < 0 || pid > UINT32_MAX) {
		sql_result_errorf(ctx, "%s: PID %lld is not a process id", fname, (long long)pid);
		return false;
	}
	*pid_out = (uint32_t)pid;
	return true;
}

void usym_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 addr;
	uint32_t pid;

	if (sql_pid_arg(ctx, argv[0], "usym", &pid) &&
	    sql_int_arg(ctx, argv[1], "usym: ADDR ", &addr) > 0)
		symbol_result(ctx, pid, (uint64_t)addr, false);
}
