/*
 * ksym(ADDR) - scalar: the kernel function holding ADDR ("vfs_read+0x1b"), from /proc/kallsyms.
 * usym(PID, ADDR) - scalar: the user function holding ADDR in process PID ("main+0x3 (burn)"),
 *   from the mappings read when PID's first stack was collected, else read now.
 *
 *   SELECT ksym(ip), count(*) FROM cpu_clock(99) WHERE ip >= 0xffff800000000000 GROUP BY 1;
 *   SELECT usym(_pid, ip), count(*) FROM cpu_clock(99) GROUP BY 1 ORDER BY 2 DESC;
 *
 * (1) An address no symbol holds gives NULL; so does a NULL argument.
 */
#include <inttypes.h>
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
	if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER)
		symbol_result(ctx, 0, (uint64_t)sqlite3_value_int64(argv[0]), true);
}

void usym_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER &&
	    sqlite3_value_type(argv[1]) == SQLITE_INTEGER)
		symbol_result(ctx, (uint32_t)sqlite3_value_int64(argv[0]),
			      (uint64_t)sqlite3_value_int64(argv[1]), false);
}
