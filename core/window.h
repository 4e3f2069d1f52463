/*
 * core/window.h - the window store: the records of one table for the current window, kept as
 * compact copies (no SQL insert), one time-ordered stream per CPU, scanned merged by time.
 */
#ifndef PERF_SQL_WINDOW_H
#define PERF_SQL_WINDOW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/sample.h"

/* One stored record; the raw payload, the call chain (u64-aligned), then user registers; in a
 * store whose rows carry one (struct window's cgroup), the cgroup id is the row's last u64. */
struct wrow {
	uint64_t time, period, ip, addr;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;
	uint32_t nr_stack;
	uint32_t size;        /* of the whole row, header included, multiple of 8 */
	uint64_t regs_off_nr; /* user registers (uprobes): count; they follow the stack */
	uint8_t data[];
};
/* docs/architecture.md ("The window store") and captures (core/capture.h) count on it */
_Static_assert(sizeof(struct wrow) == 64, "struct wrow is a 64-byte header");

static inline const void *wrow_raw(const struct wrow *r) { return r->data; }
static inline const uint64_t *wrow_stack(const struct wrow *r)
{
	return (const uint64_t *)(r->data + ((r->raw_size + 7u) & ~7u));
}

static inline const uint64_t *wrow_regs(const struct wrow *r)
{
	return wrow_stack(r) + r->nr_stack;
}

/* only for a row of a store with cgroup set: its rows were checked to have room for it */
static inline uint64_t wrow_cgroup(const struct wrow *r)
{
	uint64_t id;

	__builtin_memcpy(&id, (const uint8_t *)r + r->size - 8, 8);
	return id;
}

struct wchunk;
struct window {
	int nr_streams;
	struct wstream {
		struct wchunk *head, *tail;
	} * streams;
	uint64_t nr_rows;
	size_t bytes;        /* payload bytes held */
	size_t *budget;      /* shared cap on bytes across stores (NULL: none) */
	uint64_t nr_dropped; /* rows refused because the budget was spent */
	/* every row ends with the u64 cgroup id of its task (PERF_SAMPLE_CGROUP): set before
	 * the first row, by the session (a table whose _cgroup is read) or a capture's table */
	bool cgroup;
};

struct window *window__new(int nr_streams, size_t *budget);
void window__free(struct window *w);
/* Copies s into stream (a CPU index); -ENOSPC past the budget (counted), -ENOMEM. */
int window__append(struct window *w, int stream, const struct sample *s, int keep_stack);
/* Calls fn on each run of whole rows of stream (a chunk's used bytes): for captures. */
int window__for_each_run(struct window *w, int stream,
			 int (*fn)(void *ctx, const void *rows, size_t len), void *ctx);
/* Appends a run of rows as window__for_each_run gave them; -EINVAL if a row's size lies. */
int window__append_rows(struct window *w, int stream, const void *rows, size_t len);
/* Makes rows (8-aligned, checked like window__append_rows) part of the stream without copying
 * them: 1, and the caller keeps them alive until the window is cleared; past the budget they
 * are copied instead while it lasts, the rest dropped (counted): 0; -EINVAL. */
int window__adopt(struct window *w, int stream, void *rows, size_t len);
/* Drops all rows (keeps one chunk per stream for reuse) and gives their bytes back. */
void window__clear(struct window *w);

/* A scan: every row of every stream, merged in time order. */
struct wscan {
	struct window *w;
	struct wpos {
		struct wchunk *chunk;
		size_t off;
	} * pos; /* one per stream: as many as the session has CPUs */
};
/* 0, or -ENOMEM (the scan is then empty). Each init is paired with a wscan__done(). */
int wscan__init(struct wscan *sc, struct window *w);
const struct wrow *wscan__next(struct wscan *sc);
void wscan__done(struct wscan *sc);
#endif
