/*
 * core/err.c - struct err helpers (see core/err.h).
 *
 * Messages quote what the person gave (arguments, SQL, paths, names in a capture): err_set(),
 * err_hint() and the front end's printer pass the text through err_quote(), so a message is
 * printable UTF-8 whatever the bytes were (Python's sqlite3 decodes an extension's error as
 * UTF-8; a terminal obeys escape sequences).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/err.h"

/* the length of the valid UTF-8 sequence of a printable character at p (strict: no overlong
 * forms, no surrogates, nothing past U+10FFFF, no C1 control), else 0 */
static size_t utf8_char(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c >= 0x20 && c < 0x7F)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	if (c == 0xC2 && p[1] < 0xA0) /* U+0080..U+009F: C1 controls (0x9B is a CSI) */
		return 0;
	return n;
}

const char *err_quote(char *dst, size_t len, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	if (!len)
		return dst;
	while (*p) {
		size_t n = utf8_char(p);

		if (n) {
			if (o + n >= len)
				break;
			memcpy(dst + o, p, n);
			o += n;
			p += n;
		} else {
			if (o + 4 >= len)
				break;
			o += (size_t)snprintf(dst + o, len - o, "\\x%02x", *p++);
		}
	}
	dst[o] = '\0';
	return dst;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	char raw[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	e->hint[0] = '\0';
	e->usage = false;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	err_quote(e->msg, sizeof(e->msg), raw);
	return code;
}

int err_hint(struct err *e, const char *fmt, ...)
{
	char raw[sizeof(e->hint)];
	va_list ap;

	if (!e)
		return 0;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	err_quote(e->hint, sizeof(e->hint), raw);
	return e->code;
}

int err_usage(struct err *e)
{
	if (!e)
		return 0;
	e->usage = true;
	return e->code;
}
