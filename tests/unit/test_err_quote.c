/*
 * tests/unit/test_err_quote.c - err_quote() (core/err.c): printable UTF-8 is kept; control
 * bytes (tab, newline, ESC), DEL, C1 controls, overlong forms, surrogates, code points past
 * U+10FFFF, stray continuation bytes and sequences cut short are \xNN; the output is cut at a
 * whole character or escape and always NUL-terminated; err_set() and err_hint() quote.
 */
#include <errno.h>
#include <string.h>
#include "core/err.h"
#include "t.h"

static const struct {
	const char *in, *out;
} cases[] = {
	{ "plain ascii ~!", "plain ascii ~!" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	{ "a\tb\nc\rd", "a\\x09b\\x0ac\\x0dd" },
	{ "\x1b[31mred", "\\x1b[31mred" },
	{ "del\x7f", "del\\x7f" },
	{ "c1 \xc2\x9b csi", "c1 \\xc2\\x9b csi" },
	{ "nbsp \xc2\xa0", "nbsp \xc2\xa0" },
	{ "bad \xff\xfe", "bad \\xff\\xfe" },
	{ "overlong \xc0\xaf \xe0\x80\xaf", "overlong \\xc0\\xaf \\xe0\\x80\\xaf" },
	{ "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80" },
	{ "past max \xf4\x90\x80\x80", "past max \\xf4\\x90\\x80\\x80" },
	{ "stray \x80", "stray \\x80" },
	{ "cut \xe2\x82", "cut \\xe2\\x82" },
	{ "", "" },
};

int main(void)
{
	struct err e = { 0 };
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		T(!strcmp(err_quote(out, sizeof(out), cases[i].in), cases[i].out),
		  "case %zu: got '%s', expected '%s'", i, out, cases[i].out);
	/* cut at a whole character or escape, NUL-terminated */
	T(!strcmp(err_quote(out, 6, "ab\xc3\xa9\xc3\xa9"), "ab\xc3\xa9"),
	  "cut before a character: %s", out);
	T(!strcmp(err_quote(out, 6, "abc\xff"), "abc"), "cut before an escape: %s", out);
	T(!strcmp(err_quote(out, 1, "abc"), ""), "one byte: empty");
	err_set(&e, -ENOENT, "%s: %s", "/tmp/\xff\x1b", "No such file or directory");
	T(!strcmp(e.msg, "/tmp/\\xff\\x1b: No such file or directory"), "err_set quotes: %s",
	  e.msg);
	err_hint(&e, "try '%s'", "x\ny");
	T(!strcmp(e.hint, "try 'x\\x0ay'"), "err_hint quotes: %s", e.hint);
	return t_done("err_quote");
}
