/*
 * sqlite/quote.c - values and bytes as the SQL functions' errors show them.
 *
 *   SELECT heatmap(x'00ff', 1);   -- heatmap: time x'00ff' is not an integer
 *   SELECT dur('a' || char(10));  -- dur: 'a\x0a' is not a number of nanoseconds
 *
 * (1) An error is one line of valid UTF-8 whatever bytes its arguments held, so a terminal gets
 *     no escape sequence and a host decoding it as UTF-8 (Python's sqlite3) gets the error,
 *     not a UnicodeDecodeError: sql_result_errorf() passes every message through
 *     sql_quote_bytes(), which writes control bytes, DEL and bytes of no valid UTF-8 sequence
 *     as \xNN and keeps valid UTF-8 (a file name in any language stays readable).
 * (2) A quoted value also escapes the backslash, so 'a\x0a' is the three bytes a, LF and
 *     nothing else; a text is cut after 40 bytes ('...' closes it), never inside a UTF-8
 *     sequence; a blob prints as x'HEX' of its first 16 bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

#define QUOTE_TEXT_MAX 40
#define QUOTE_BLOB_MAX 16

/* length of the valid UTF-8 sequence at p (n > 0 bytes left), 0 if there is none (RFC 3629:
 * no overlong form, no surrogate, nothing past U+10FFFF) */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80                    ? 1
		     : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
		     : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		     : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
						    : 0;
	unsigned char lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++, lo = 0x80, hi = 0xbf)
		if (p[i] < lo || p[i] > hi)
			return 0;
	return len;
}

static void append_escaped(sqlite3_str *s, const unsigned char *p, size_t n, size_t max,
			   bool backslash)
{
	size_t i = 0;

	while (i < n) {
		size_t len = utf8_seq(p + i, n - i);

		if (i + (len ? len : 1) > max) {
			sqlite3_str_appendall(s, "...");
			return;
		}
		if (!len ||
		    (len == 1 && (p[i] < 0x20 || p[i] == 0x7f || (backslash && p[i] == '\\')))) {
			sqlite3_str_appendf(s, "\\x%02x", p[i]);
			i++;
		} else {
			sqlite3_str_append(s, (const char *)p + i, (int)len);
			i += len;
		}
	}
}

char *sql_quote_bytes(const char *p, size_t n, size_t max, bool backslash)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	append_escaped(s, (const unsigned char *)p, n, max, backslash);
	if (sqlite3_str_errcode(s)) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

char *sql_value_quote(sqlite3_value *val)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	const unsigned char *p;
	int n;

	if (sqlite3_value_type(val) == SQLITE_NULL) {
		sqlite3_str_appendall(s, "NULL");
	} else if (sqlite3_value_type(val) == SQLITE_BLOB) {
		p = sqlite3_value_blob(val);
		n = sqlite3_value_bytes(val);
		sqlite3_str_appendall(s, "x'");
		for (int i = 0; i < n && i < QUOTE_BLOB_MAX; i++)
			sqlite3_str_appendf(s, "%02x", p[i]);
		sqlite3_str_appendall(s, n > QUOTE_BLOB_MAX ? "'..." : "'");
	} else {
		/* a number as SQLite writes it as text (1e308 is '1.0e+308'), a text as it is */
		p = sqlite3_value_text(val);
		n = p ? sqlite3_value_bytes(val) : 0;
		sqlite3_str_appendchar(s, 1, '\'');
		append_escaped(s, p, (size_t)n, QUOTE_TEXT_MAX, true);
		sqlite3_str_appendchar(s, 1, '\'');
	}
	if (sqlite3_str_errcode(s)) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

void sql_result_value_error(sqlite3_context *ctx, const char *before, sqlite3_value *val,
			    const char *after)
{
	char *v = sql_value_quote(val);

	if (v)
		sql_result_errorf(ctx, "%s%s%s", before, v, after);
	else
		sqlite3_result_error_nomem(ctx);
	sqlite3_free(v);
}
