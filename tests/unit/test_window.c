/*
 * tests/unit/test_window.c - the window store: time-merged scans across streams, chunk
 * growth past 256 KiB, clearing and reuse, and the shared byte budget.
 */
#include <errno.h>
#include <string.h>
#include "core/window.h"
#include "t.h"

static struct sample smp(uint64_t time, uint32_t cpu, const char *raw)
{
	struct sample s = { .time = time, .cpu = cpu, .pid = 1, .tid = 2 };

	s.raw = raw;
	s.raw_size = raw ? (uint32_t)strlen(raw) + 1 : 0;
	return s;
}

static void test_merge(void)
{
	struct window *w = window__new(3, NULL);
	uint64_t times[3][4] = { { 1, 5, 9, 13 }, { 2, 3, 4, 100 }, { 6, 7, 8, 50 } };
	const struct wrow *r;
	struct wscan sc;
	uint64_t last = 0;
	int n = 0;

	for (int st = 0; st < 3; st++)
		for (int i = 0; i < 4; i++) {
			struct sample s = smp(times[st][i], (uint32_t)st, "abc");

			T(window__append(w, st, &s, 0) == 0, "append");
		}
	T(wscan__init(&sc, w) == 0, "scan");
	while ((r = wscan__next(&sc))) {
		T(r->time >= last, "time order: %llu after %llu", (unsigned long long)r->time,
		  (unsigned long long)last);
		T(!strcmp(wrow_raw(r), "abc"), "raw copied");
		last = r->time;
		n++;
	}
	wscan__done(&sc);
	T(n == 12 && w->nr_rows == 12, "all 12 rows scanned");
	window__free(w);
}

static void test_growth_and_clear(void)
{
	struct window *w = window__new(1, NULL);
	char big[1000];
	struct wscan sc;
	int n = 0;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 5000; i++) { /* ~5 MB: many chunks */
		struct sample s = smp((uint64_t)i, 0, big);

		window__append(w, 0, &s, 0);
	}
	T(wscan__init(&sc, w) == 0, "scan");
	while (wscan__next(&sc))
		n++;
	wscan__done(&sc);
	T(n == 5000, "5000 rows across chunks (got %d)", n);
	window__clear(w);
	T(wscan__init(&sc, w) == 0, "scan");
	T(wscan__next(&sc) == NULL && w->nr_rows == 0 && w->bytes == 0, "cleared");
	wscan__done(&sc);
	struct sample s = smp(1, 0, "again");
	T(window__append(w, 0, &s, 0) == 0 && w->nr_rows == 1, "reused after clear");
	window__free(w);
}

static void test_budget(void)
{
	size_t budget = 1000;
	struct window *a = window__new(1, &budget), *b = window__new(1, &budget);
	struct sample s = smp(1, 0, "0123456789012345678901234567890"); /* 32 raw bytes */
	int ok = 0, fits = (int)(1000 / (sizeof(struct wrow) + 32));

	for (int i = 0; i < 20; i++)
		ok += window__append(i % 2 ? a : b, 0, &s, 0) == 0;
	T(ok == fits, "1000-byte budget holds %d rows (got %d)", fits, ok);
	T(a->nr_dropped + b->nr_dropped == (uint64_t)(20 - fits), "the rest refused and counted");
	window__clear(a);
	T(window__append(b, 0, &s, 0) == 0, "clearing one store gives bytes back to the other");
	window__free(a);
	window__free(b);
}

int main(void)
{
	RUN(test_merge);
	RUN(test_growth_and_clear);
	RUN(test_budget);
	return t_done("window");
}
