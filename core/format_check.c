/*
 * core/format_check.c - a tracepoint format's text checked before libtraceevent reads it (see
 * core/format_check.h).
 *
 * HOW IT WORKS
 * (1) Every format: ASCII text, and each "field:" line's offset and size are numbers (decimal,
 *     or 0x hex) with offset + size <= FIELD_MAX_RECORD. A refusal names the table, the field
 *     and the value as written: libtraceevent keeps an offset in an int, so 4294967040 would
 *     become -256, and 4294967304 a plausible 8.
 * (2) A capture's format (strict) must also have the kernel's shape, as every format under
 *     tracefs has it: "name: NAME", "ID: N", "format:", then field lines
 *     "<tab>field:DECL;<tab>offset:N;<tab>size:N;<tab>signed:0|1;" (DECL of letters, digits,
 *     '_', ' ', '*', '[' and ']') and blank lines, then "print fmt: " to the end: a string
 *     literal and arguments whose quotes close, whose brackets balance, whose REC->NAME are
 *     fields of the format and whose divisors are sizeof, a field or a number not 0.
 *     libtraceevent 1.7.1 crashes on some other texts (a print fmt cut inside an argument,
 *     naming a field the format lacks, dividing by a constant 0): it gets none.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "core/format_check.h"

/* n bytes of capture text as one printable line: other bytes as \xNN (names and numbers of a
 * format come from a file, and go into an error line on someone's terminal) */
const char *format__printable(const char *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

/* the name a "field:TYPE NAME[N]" declaration (n bytes) gives: its last word, less an array's
 * [N] ("__data_loc char[] name" has brackets in its type); its length */
static const char *decl_span(const char *decl, size_t n, size_t *len_out)
{
	const char *end = decl + n, *start;

	while (end > decl && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end > decl && end[-1] == ']')
		while (end > decl && *--end != '[')
			;
	start = end;
	while (start > decl && start[-1] != ' ' && start[-1] != '\t')
		start--;
	*len_out = (size_t)(end - start);
	return start;
}

static void decl_name(const char *decl, size_t n, char *name, size_t len)
{
	size_t k;
	const char *p = decl_span(decl, n, &k);

	format__printable(p, k, name, len);
}

/* "KEY:VALUE;" in the n bytes of line: a pointer to VALUE and its length, or NULL */
static const char *key_value(const char *line, size_t n, const char *key, size_t *len_out)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i + klen <= n; i++) {
		const char *v = line + i + klen;
		size_t k = 0;

		if (memcmp(line + i, key, klen) || (i && line[i - 1] != '\t' && line[i - 1] != ' '))
			continue;
		while (v + k < line + n && v[k] != ';')
			k++;
		*len_out = k;
		return v;
	}
	return NULL;
}

/* a number of the format as written (n bytes): decimal or 0x hex digits, within [0, max] */
static bool number_ok(const char *text, size_t n, long long max, long long *out)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf) || text[0] < '0' || text[0] > '9')
		return false;
	memcpy(buf, text, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtoll(buf, &end, 0);
	return !errno && !*end && *out >= 0 && *out <= max;
}

static int check_line(const char *event, const char *line, size_t n, struct err *e)
{
	const char *decl = memchr(line, ':', n) + 1, *off, *size;
	const char *semi = memchr(decl, ';', n - (size_t)(decl - line));
	char name[128], ev[160], val[64], val2[64];
	size_t off_len = 0, size_len = 0;
	long long o = 0, sz = 0;

	decl_name(decl, semi ? (size_t)(semi - decl) : 0, name, sizeof(name));
	format__printable(event, strlen(event), ev, sizeof(ev));
	off = key_value(line, n, "offset:", &off_len);
	size = key_value(line, n, "size:", &size_len);
	if (!off || !size)
		return err_set(e, -EINVAL, "table %s: field %s: no offset or no size", ev, name);
	format__printable(off, off_len, val, sizeof(val));
	if (!number_ok(off, off_len, FIELD_MAX_RECORD - 1, &o))
		return err_set(e, -EINVAL,
			       "table %s: field %s: offset %s is out of range (0 to %d: a "
			       "tracepoint record is at most 64 KiB)",
			       ev, name, val, FIELD_MAX_RECORD - 1);
	format__printable(size, size_len, val2, sizeof(val2));
	if (!number_ok(size, size_len, FIELD_MAX_RECORD, &sz) || o + sz > FIELD_MAX_RECORD)
		return err_set(e, -EINVAL,
			       "table %s: field %s: size %s at offset %s is out of range (a field "
			       "ends within 64 KiB, a tracepoint record's most)",
			       ev, name, val2, val);
	return 0;
}

static int check_numbers(const char *event, const char *text, size_t len, struct err *e)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f) {
			char ev[160];

			return err_set(e, -EINVAL,
				       "table %s: its format has a byte 0x%02x at offset %zu: a "
				       "tracepoint format is ASCII text",
				       format__printable(event, strlen(event), ev, sizeof(ev)), c,
				       i);
		}
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), lead = 0;
		int ret;

		while (lead < n && (p[lead] == ' ' || p[lead] == '\t'))
			lead++;
		if (lead + 6 <= n && !memcmp(p + lead, "field:", 6) &&
		    (ret = check_line(event, p, n, e)))
			return ret;
		p += n + 1;
	}
	return 0;
}

/* n bytes at p start with s */
static bool starts(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	return n >= k && !memcmp(p, s, k);
}

/* digits only, at least one: the kernel's numbers */
static size_t digits(const char *p, size_t n)
{
	size_t k = 0;

	while (k < n && p[k] >= '0' && p[k] <= '9')
		k++;
	return k;
}

/* "<blanks>field:DECL;<tab>offset:N;<tab>size:N;<tab>signed:0|1;" and nothing after */
static bool field_line(const char *p, size_t n)
{
	static const char *const keys[] = { "\toffset:", "\tsize:", "\tsigned:" };
	size_t i = 0, k;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (!i || !starts(p + i, n - i, "field:"))
		return false;
	for (i += 6, k = i; i < n && p[i] != ';'; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ *[]",
			    p[i]))
			return false;
	if (i == k || i == n)
		return false;
	i++;
	for (int j = 0; j < 3; j++) {
		if (!starts(p + i, n - i, keys[j]))
			return false;
		i += strlen(keys[j]);
		k = digits(p + i, n - i);
		if (!k || (j == 2 && (k != 1 || p[i] > '1')) || i + k >= n || p[i + k] != ';')
			return false;
		i += k + 1;
	}
	return i == n;
}

/* what follows a '/' or '%' of a print fmt (n bytes at p): sizeof, a field, or a number other
 * than 0; libtraceevent works out constant operands while parsing, and divides by a 0 too */
static bool divisor_ok(const char *p, size_t n)
{
	char num[32], *end;
	size_t i = 0, k = 0;

	while (i < n && p[i] == ' ')
		i++;
	if (starts(p + i, n - i, "sizeof") || starts(p + i, n - i, "REC->"))
		return true;
	while (i + k < n && k < sizeof(num) - 1 && isalnum((unsigned char)p[i + k]))
		num[k] = p[i + k], k++;
	num[k] = '\0';
	return k && isdigit((unsigned char)num[0]) && strtoull(num, &end, 0) != 0 &&
	       !strspn(end, "0123456789abcdefABCDEFxX");
}

/* whether the field lines of fields (n bytes) declare a field called name (k bytes) */
static bool has_field(const char *fields, size_t n, const char *name, size_t k)
{
	for (const char *p = fields, *end = fields + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *f, *semi, *d;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p), dk;

		if ((f = memmem(p, len, "field:", 6)) &&
		    (semi = memchr(f, ';', len - (size_t)(f - p)))) {
			d = decl_span(f + 6, (size_t)(semi - f - 6), &dk);
			if (dk == k && !memcmp(d, name, k))
				return true;
		}
		p += len + 1;
	}
	return false;
}

/* a print fmt: a string literal, then arguments whose literals close, whose brackets balance,
 * and whose REC->NAME are fields of the format (fields: its field lines, n bytes) */
static bool print_fmt(const char *p, size_t n, const char *fields, size_t fields_len)
{
	char stack[64], quote = 0;
	size_t i = 0;
	int depth = 0;

	if (!n || p[0] != '"')
		return false;
	for (; i < n; i++) {
		char c = p[i];

		if (quote) {
			if (c == '\\')
				i++;
			else if (c == quote)
				quote = 0;
			else if (c == '\n' && quote == '\'')
				return false;
			continue;
		}
		if (starts(p + i, n - i, "REC->")) {
			size_t k = 0;

			i += 5;
			while (i + k < n && (isalnum((unsigned char)p[i + k]) || p[i + k] == '_'))
				k++;
			if (!has_field(fields, fields_len, p + i, k))
				return false;
			i += k - 1;
		} else if ((c == '/' || c == '%') && !divisor_ok(p + i + 1, n - i - 1)) {
			return false;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(stack))
				return false;
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
		} else if (c == ')' || c == ']' || c == '}') {
			if (!depth || stack[--depth] != c)
				return false;
		}
	}
	return !quote && !depth;
}

/* (2): the kernel's shape, line by line */
static int check_shape(const char *event, const char *text, size_t len, struct err *e)
{
	static const char *const heads[] = { "name: ", "ID: ", "format:" };
	char ev[160], line[64];
	int nr = 0;

	format__printable(event, strlen(event), ev, sizeof(ev));
	for (const char *p = text, *end = text + len; p < end; nr++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), k = 0;
		bool ok;

		if (nr >= 3 && starts(p, n, "print fmt: ")) {
			if (print_fmt(p + 11, (size_t)(end - p) - 11, text, (size_t)(p - text)))
				return 0;
			return err_set(
				e, -EINVAL,
				"table %s: its print fmt does not close its quotes or "
				"brackets, names a field it does not have, or divides by "
				"something else than sizeof, a field or a number: the capture "
				"is damaged or crafted",
				ev);
		}
		while (k < n && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (nr < 3)
			ok = starts(p, n, heads[nr]) && n > strlen(heads[nr]) - (nr == 2) &&
			     (nr != 1 || digits(p + 4, n - 4) == n - 4);
		else
			ok = k == n || field_line(p, n);
		if (!ok)
			return err_set(
				e, -EINVAL,
				"table %s: line %d of its format is not a tracepoint format's "
				"('%s'): the capture is damaged or crafted",
				ev, nr + 1,
				format__printable(p, n < 40 ? n : 40, line, sizeof(line)));
		p += n + 1;
	}
	return nr >= 3 ? 0 : err_set(e, -EINVAL, "table %s: its format ends before its fields", ev);
}

int format__check(const char *event, const char *text, size_t len, bool strict, struct err *e)
{
	int ret = check_numbers(event, text, len, e);

	return ret ? ret : strict ? check_shape(event, text, len, e) : 0;
}
