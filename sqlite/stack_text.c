/*
 * stack_text(STACK [, SEP [, OPTIONS]]) - scalar: a call chain as text, innermost frame first,
 *   one "function+0xOFF (file)" per frame joined by SEP (default newline), as perf script prints.
 * stack_depth(STACK) - scalar: the number of frames (context markers left out).
 *
 *   SELECT stack_text(stack, ' <- ') FROM cpu_clock(99) LIMIT 1;
 *   SELECT stack_text(stack, ' <- ', 'srcline inline') FROM cpu_clock(99) LIMIT 1;
 *
 * (1) Kernel frames resolve through /proc/kallsyms, user frames through the process's
 *     mappings read when its first stack was collected (symbols/symbols.c).
 * (2) A return address is looked up one byte back, so a call at a function's end names it.
 * (3) A user frame no symbol holds prints as FILE+0xOFFSET (its offset in the mapped file, as
 *     `addr2line -e FILE` or a later symbol file can take it); a frame in no file (anonymous
 *     memory without a perf map, an unknown kernel address) as its address in hex. NULL or a
 *     non-stack value is NULL.
 * (4) OPTIONS, words separated by spaces or commas: 'srcline' prints "function (file.c:LINE)"
 *     where the DWARF has the line (symbols/srcline.c); 'inline' lists the functions inlined
 *     at a frame as frames of their own, "name (inlined)", as perf --inline does (the default
 *     under --inline; 'noinline' turns it off). A second argument made of option words only
 *     is OPTIONS: stack_text(stack, 'srcline'). An unknown word is an error naming the choices.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "core/session.h"
#include "sqlite/functions.h"
#include "symbols/srcline.h"
#include "symbols/stack.h"
#include "symbols/symbols.h"

struct symbols *stack_symbols(sqlite3_context *ctx)
{
	struct session *s = sqlite3_user_data(ctx);

	return s ? s->stack_ctx : NULL;
}

static const char *base_of(const char *path)
{
	const char *sl = strrchr(path, '/');

	return sl ? sl + 1 : path;
}

static void one_frame(struct symbols *sy, const struct stack_view *v, const struct stack_frame *f,
		      unsigned flags, const struct srcline *src, sqlite3_str *out)
{
	uint64_t addr = f->leaf ? f->addr : f->addr - 1, off = 0;
	const char *dso = NULL;
	const char *name = sy ? symbols__resolve(sy, v->pid, addr, f->kernel, &off, &dso) : NULL;

	if (!name && !f->kernel && sy && (dso = symbols__file_offset(sy, v->pid, f->addr, &off))) {
		/* no symbol: the file and the offset in it, still meaningful after the run */
		sqlite3_str_appendf(out, "%s+0x%" PRIx64, dso, off);
	} else if (!name) {
		sqlite3_str_appendf(out, "0x%" PRIx64, f->addr);
	} else if (src) {
		sqlite3_str_appendf(out, "%s (%s:%d)", name, base_of(src->file), src->line);
	} else if (!(flags & FRAME_OFFSET)) {
		sqlite3_str_appendall(out, name);
	} else {
		sqlite3_str_appendf(out, "%s+0x%" PRIx64, name, off + (f->leaf ? 0 : 1));
		if (dso)
			sqlite3_str_appendf(out, " (%s)", dso);
	}
}

static void inlined_frame(const struct srcline *src, unsigned flags, sqlite3_str *out)
{
	if (flags & FRAME_SRCLINE)
		sqlite3_str_appendf(out, "%s (inlined, %s:%d)", src->func ? src->func : "??",
				    base_of(src->file), src->line);
	else
		sqlite3_str_appendf(out, "%s (inlined)", src->func ? src->func : "??");
}

void frame_text(struct symbols *sy, const struct stack_view *v, const struct stack_frame *f,
		unsigned flags, const char *sep, sqlite3_str *out)
{
	struct srcline src[16];
	size_t n = 0;

	if (sy && !f->kernel && (flags & (FRAME_SRCLINE | FRAME_INLINE)))
		n = symbols__srcline(sy, v->pid, f->leaf ? f->addr : f->addr - 1,
				     flags & FRAME_INLINE, src, 16);
	if (!n) {
		one_frame(sy, v, f, flags, NULL, out);
		return;
	}
	/* src[0 .. n-2]: inlined calls, innermost first; src[n-1]: the function holding them */
	for (size_t k = 0; k < n; k++) {
		size_t i = flags & FRAME_OUTER_FIRST ? n - 1 - k : k;

		if (k)
			sqlite3_str_appendall(out, sep);
		if (src[i].inlined)
			inlined_frame(&src[i], flags, out);
		else
			one_frame(sy, v, f, flags, flags & FRAME_SRCLINE ? &src[i] : NULL, out);
	}
}

int frame_flags(sqlite3_context *ctx, sqlite3_value *opts, const char *fname, unsigned *flags)
{
	static const struct {
		const char *word;
		unsigned set, clear;
	} words[] = {
		{ "srcline", FRAME_SRCLINE, 0 },
		{ "inline", FRAME_INLINE, 0 },
		{ "noinline", 0, FRAME_INLINE },
	};
	const char *s = opts ? (const char *)sqlite3_value_text(opts) : NULL;
	struct session *ss = sqlite3_user_data(ctx);

	if (ss && ss->opts.inline_frames)
		*flags |= FRAME_INLINE;
	while (s && *s) {
		size_t len = strcspn(s, " ,"), i;

		for (i = 0; len && i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].word) == len && !strncmp(s, words[i].word, len))
				break;
		if (len && i == sizeof(words) / sizeof(words[0])) {
			if (fname) {
				char *word = sql_quote_bytes(s, len, 40, true);

				sql_result_errorf(ctx,
						  "%s: no such option '%s'; choices: srcline "
						  "inline noinline",
						  fname, word);
				sqlite3_free(word);
			}
			return -1;
		}
		if (len)
			*flags = (*flags | words[i].set) & ~words[i].clear;
		s += len + strspn(s + len, " ,");
	}
	return 0;
}

static bool view_arg(sqlite3_value *v, struct stack_view *out)
{
	return sqlite3_value_type(v) == SQLITE_BLOB &&
	       stack_blob__view(sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v), out);
}

void stack_text_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *sep = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : "\n";
	unsigned flags = FRAME_OFFSET, probe = 0;
	struct stack_frame frames[512];
	struct stack_view v;
	sqlite3_str *out;
	char *text;
	size_t n;
	int rc;

	if (argc == 2 && sep && *sep && frame_flags(ctx, argv[1], NULL, &probe) == 0) {
		flags |= probe; /* stack_text(stack, 'srcline'): options, not a separator */
		sep = "\n";
	} else if (frame_flags(ctx, argc > 2 ? argv[2] : NULL, "stack_text", &flags)) {
		return;
	}
	if (!view_arg(argv[0], &v))
		return;
	sep = sep ? sep : "\n";
	n = stack_frames(&v, frames, 512);
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	for (size_t i = n; i-- > 0;) { /* innermost first */
		frame_text(stack_symbols(ctx), &v, &frames[i], flags, sep, out);
		if (i)
			sqlite3_str_appendall(out, sep);
	}
	rc = sqlite3_str_errcode(out);
	text = sqlite3_str_finish(out);
	if (rc == SQLITE_OK)
		return sqlite3_result_text(ctx, text, -1, sqlite3_free);
	sqlite3_free(text);
	if (rc == SQLITE_TOOBIG)
		sqlite3_result_error(ctx, "stack_text: the text passes the length limit", -1);
	else
		sqlite3_result_error_nomem(ctx);
}

void stack_depth_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct stack_frame frames[512];
	struct stack_view v;

	if (view_arg(argv[0], &v))
		sqlite3_result_int64(ctx, (sqlite3_int64)stack_frames(&v, frames, 512));
}
