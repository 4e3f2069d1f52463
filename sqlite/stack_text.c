/*
 * stack_text(STACK [, SEP]) - scalar: a call chain as text, innermost frame first, one
 *   "function+0xOFF (file)" per frame joined by SEP (default newline), as perf script prints.
 * stack_depth(STACK) - scalar: the number of frames (context markers left out).
 * stack_symbol(STACK, I) - helper used by folded_stack(): frame I's function name.
 *
 *   SELECT stack_text(stack, ' <- ') FROM cpu_clock(99) LIMIT 1;
 *
 * (1) Kernel frames resolve through /proc/kallsyms, user frames through the process's
 *     mappings read when its first stack was collected (symbols/symbols.c).
 * (2) A return address is looked up one byte back, so a call at a function's end names it.
 * (3) A user frame no symbol holds prints as FILE+0xOFFSET (its offset in the mapped file, as
 *     `addr2line -e FILE` or a later symbol file can take it); a frame in no file (anonymous
 *     memory without a perf map, an unknown kernel address) as its address in hex. NULL or a
 *     non-stack value is NULL.
 */
#include <inttypes.h>
#include <stdio.h>
#include "core/session.h"
#include "sqlite/functions.h"
#include "symbols/stack.h"
#include "symbols/symbols.h"

struct symbols *stack_symbols(sqlite3_context *ctx)
{
	struct session *s = sqlite3_user_data(ctx);

	return s ? s->stack_ctx : NULL;
}

void frame_name(struct symbols *sy, const struct stack_view *v, const struct stack_frame *f,
		bool with_offset, sqlite3_str *out)
{
	uint64_t addr = f->leaf ? f->addr : f->addr - 1, off = 0;
	const char *dso = NULL;
	const char *name = sy ? symbols__resolve(sy, v->pid, addr, f->kernel, &off, &dso) : NULL;

	if (!name && !f->kernel && sy && (dso = symbols__file_offset(sy, v->pid, f->addr, &off))) {
		/* no symbol: the file and the offset in it, still meaningful after the run */
		sqlite3_str_appendf(out, "%s+0x%" PRIx64, dso, off);
		return;
	}
	if (!name) {
		sqlite3_str_appendf(out, "0x%" PRIx64, f->addr);
		return;
	}
	if (!with_offset) {
		sqlite3_str_appendall(out, name);
		return;
	}
	sqlite3_str_appendf(out, "%s+0x%" PRIx64, name, off + (f->leaf ? 0 : 1));
	if (dso)
		sqlite3_str_appendf(out, " (%s)", dso);
}

static bool view_arg(sqlite3_value *v, struct stack_view *out)
{
	return sqlite3_value_type(v) == SQLITE_BLOB &&
	       stack_blob__view(sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v), out);
}

void stack_text_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *sep = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : "\n";
	struct stack_frame frames[512];
	struct stack_view v;
	sqlite3_str *out;
	size_t n;

	if (!view_arg(argv[0], &v))
		return;
	n = stack_frames(&v, frames, 512);
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	for (size_t i = n; i-- > 0;) {   /* innermost first */
		frame_name(stack_symbols(ctx), &v, &frames[i], true, out);
		if (i)
			sqlite3_str_appendall(out, sep ? sep : "\n");
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}

void stack_depth_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct stack_frame frames[512];
	struct stack_view v;

	if (view_arg(argv[0], &v))
		sqlite3_result_int64(ctx, (sqlite3_int64)stack_frames(&v, frames, 512));
}
