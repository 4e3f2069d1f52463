/*
 * srcline(PID, ADDR) - scalar: the source line of user code address ADDR in process PID,
 *   "FILE:LINE" as addr2line prints it (a full path: a relative name is joined to the unit's
 *   compilation directory), from the DWARF of the
 *   mapped binary or of its separate debug file (build-id, .gnu_debuglink, debuginfod cache).
 *
 *   SELECT srcline(_pid, ip) line, count(*) FROM cpu_clock(999) WHERE _pid = workload_pid()
 *    GROUP BY 1 ORDER BY 2 DESC;
 *
 * (1) ADDR is taken as it is: for a return address (a stack frame other than the innermost)
 *     pass ADDR - 1, the call, as stack_text(stack, 'srcline') does.
 * (2) NULL when there is no line: no mapping, no DWARF, a NULL argument, a kernel address.
 * (3) The mappings are PID's as collected with its stacks, else /proc/PID/maps now (usym()).
 * (4) An argument that is not an integer is an error quoting it, and so is a PID outside
 *     [0, 2^32), as for usym().
 */
#include "core/session.h"
#include "sqlite/functions.h"
#include "symbols/srcline.h"
#include "symbols/symbols.h"

void srcline_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct symbols *sy = stack_symbols(ctx);
	struct srcline src;
	sqlite3_int64 addr;
	uint32_t pid;

	if (!sql_pid_arg(ctx, argv[0], "srcline", &pid) ||
	    sql_int_arg(ctx, argv[1], "srcline: ADDR ", &addr) <= 0 || !sy || addr < 0)
		return;
	symbols__note_pid(sy, pid);
	if (symbols__srcline(sy, pid, (uint64_t)addr, false, &src, 1))
		sqlite3_result_text(
			ctx,
			src.file[0] == '/' || !src.dir
				? sqlite3_mprintf("%s:%d", src.file, src.line)
				: sqlite3_mprintf("%s/%s:%d", src.dir, src.file, src.line),
			-1, sqlite3_free);
}
