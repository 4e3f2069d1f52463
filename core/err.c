/*
 * core/err.c - struct err helpers (see core/err.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include "core/err.h"

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	e->hint[0] = '\0';
	e->usage = false;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int err_hint(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return 0;
	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
	return e->code;
}

int err_usage(struct err *e)
{
	if (!e)
		return 0;
	e->usage = true;
	return e->code;
}
