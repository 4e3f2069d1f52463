/*
 * core/replay_info.c - perf-sql info FILE: what a capture holds, read as a replay reads it (the
 * first pass, then its WINDOW and RECORDS blocks one at a time).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/format_check.h"
#include "core/record.h"
#include "core/replay.h"

struct table_info {
	uint64_t recv, lost, lo, hi;
};

/* what the WINDOW and RECORDS blocks say of each table (a second pass, as a replay's) */
static int info_pass(struct replay *r, struct table_info *t, uint64_t *windows, struct err *e)
{
	const uint8_t *b;
	uint32_t type, nr, hdr[2];
	size_t len;
	int ret, cut;

	capture__rewind(r->cr);
	while ((ret = capture__next_of(r->cr, 1u << CAP_WINDOW | 1u << CAP_RECORDS, &type,
				       (const void **)&b, &len, &cut, e)) == 1) {
		if (type == CAP_WINDOW && len >= 12) {
			(*windows)++;
			memcpy(&nr, b + 8, 4);
			for (size_t k = 0; k < nr && 12 + (k + 1) * 24 <= len; k++) {
				uint64_t v[2];

				memcpy(hdr, b + 12 + k * 24, 8);
				memcpy(v, b + 12 + k * 24 + 8, 16);
				if (hdr[0] < r->nr_names) {
					t[hdr[0]].recv += v[0];
					t[hdr[0]].lost += v[1];
				}
			}
		}
		if (type != CAP_RECORDS || len < 8)
			continue;
		memcpy(hdr, b, 8);
		for (const uint8_t *p = b + 8;
		     hdr[0] < r->nr_names && p + sizeof(struct wrow) <= b + len;) {
			struct wrow w;

			memcpy(&w, p, sizeof(w));
			if (w.size < sizeof(w) || w.size > (size_t)(b + len - p))
				break;
			t[hdr[0]].lo = w.time < t[hdr[0]].lo ? w.time : t[hdr[0]].lo;
			t[hdr[0]].hi = w.time > t[hdr[0]].hi ? w.time : t[hdr[0]].hi;
			p += w.size;
		}
	}
	return ret;
}

int replay__info(const char *path, FILE *out, struct err *e)
{
	struct session_opts opts = { 0 };
	struct session *s = session__new_replay(&opts, path, e);
	struct table_info *t;
	uint64_t windows = 0;
	struct replay *r;
	int ret;

	if (!s)
		return e->code;
	r = s->replay;
	t = calloc(r->nr_names ? r->nr_names : 1, sizeof(*t));
	if (!t) {
		session__close(s);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < r->nr_names; i++)
		t[i].lo = UINT64_MAX;
	if ((ret = info_pass(r, t, &windows, e)) < 0)
		goto out;
	fprintf(out, "file        %s%s\n", path,
		r->note[0] ? "  (cut short: read up to its last whole block)" : "");
	for (char *p = r->meta; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *eq = memchr(p, '=', n), key[160], *val = malloc(4 * n + 8);

		if (eq && val) /* the capture's text: control bytes as \xNN, not to the terminal */
			fprintf(out, "%-11s %s\n",
				format__printable(p, (size_t)(eq - p), key, sizeof(key)),
				format__printable(eq + 1, n - (size_t)(eq - p) - 1, val,
						  4 * n + 8));
		free(val);
		p += n + (p[n] == '\n');
	}
	if (r->facts)
		fprintf(out,
			"bpf facts   its kernel's (--explain lists the programs it would load)\n");
	for (uint32_t i = 0; i < r->nr_names; i++) {
		fprintf(out, "table       %s: %llu events, %llu lost, %llu windows",
			r->names[i] ? r->names[i] : "?", (unsigned long long)t[i].recv,
			(unsigned long long)t[i].lost, (unsigned long long)windows);
		if (t[i].hi >= t[i].lo)
			fprintf(out, ", %.6f s of events", (double)(t[i].hi - t[i].lo) / 1e9);
		fputc('\n', out);
	}
	ret = 0;
out:
	free(t);
	session__close(s);
	return ret;
}
