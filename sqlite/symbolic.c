/*
 * symbolic(FIELD, VALUE) - scalar: VALUE named as the event's print fmt names it with
 *   __print_symbolic(), e.g. symbolic('vec', vec) on softirq_entry = 'TIMER'.
 * flags(FIELD, VALUE) - scalar: VALUE as __print_flags() prints it, e.g.
 *   flags('gfp_flags', gfp_flags) on kmalloc = 'GFP_KERNEL|__GFP_ZERO'.
 *
 *   SELECT symbolic('vec', vec) AS softirq, count(*) FROM softirq_entry GROUP BY 1;
 *
 * (1) FIELD is looked up in the print fmts of the tables the query uses (they are parsed);
 *     the first whose __print_symbolic/__print_flags reads FIELD (or an expression of it) wins.
 * (2) No such mapping, or a value no symbol names: the value as a decimal (symbolic) or the
 *     named bits plus the rest in hex (flags); NULL stays NULL. Any int64 VALUE is taken (flags
 *     reads its 64 bits: -1 is 0xffffffffffffffff); a VALUE that is not an integer is an
 *     error quoting it.
 */
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "core/session.h"
#include "sqlite/functions.h"

static const struct tep_print_arg *arg_for(sqlite3_context *ctx, sqlite3_value **argv, bool flags)
{
	struct session *s = sqlite3_user_data(ctx);
	const char *field = (const char *)sqlite3_value_text(argv[0]);

	return s && s->cat && field ? catalog__print_arg(s->cat, field, flags) : NULL;
}

void symbolic_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tep_print_arg *arg;
	sqlite3_int64 v;

	if (sql_int_arg(ctx, argv[1], "symbolic: VALUE ", &v) <= 0)
		return;
	arg = arg_for(ctx, argv, false);
	for (const struct tep_print_flag_sym *sym = arg ? arg->symbol.symbols : NULL; sym;
	     sym = sym->next)
		if (strtoll(sym->value, NULL, 0) == v) {
			sqlite3_result_text(ctx, sym->str, -1, SQLITE_TRANSIENT);
			return;
		}
	sqlite3_result_text(ctx, sqlite3_mprintf("%lld", v), -1, sqlite3_free);
}

void flags_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tep_print_arg *arg;
	unsigned long long v, rest;
	sqlite3_int64 value;
	sqlite3_str *out;
	const char *delim;

	if (sql_int_arg(ctx, argv[1], "flags: VALUE ", &value) <= 0)
		return;
	v = rest = (unsigned long long)value;
	arg = arg_for(ctx, argv, true);
	delim = arg && arg->flags.delim ? arg->flags.delim : "|";
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	for (const struct tep_print_flag_sym *f = arg ? arg->flags.flags : NULL; f; f = f->next) {
		unsigned long long bit = strtoull(f->value, NULL, 0);

		if ((bit == 0 && v == 0) || (bit && (rest & bit) == bit)) {
			sqlite3_str_appendf(out, "%s%s", sqlite3_str_length(out) ? delim : "",
					    f->str);
			rest &= ~bit;
			if (bit == 0)
				break;
		}
	}
	if (rest || !sqlite3_str_length(out))
		sqlite3_str_appendf(out, "%s%#llx", sqlite3_str_length(out) ? delim : "", rest);
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}
