/*
 * core/record.c - writing a session's windows to a capture (perf-sql record).
 *
 * (1) The header blocks say what the rows are: META (host, kernel, CPUs, start), then one
 *     TABLE per table with its tracepoint format text, so another machine decodes the fields.
 * (2) Each window: its rows exactly as the window store holds them (struct wrow runs, one
 *     RECORDS block per chunk), then a WINDOW block with received/lost per table and CPU.
 * (3) At the end: COMMS, every task name the session learnt (with the time it took effect).
 * (4) Before a window's rows: SYMS, the symbols of files newly mapped (as the live run read
 *     them, while the process lived), then MAPS, the mappings learnt.
 * (5) A table whose rows carry cgroup ids says so in its TABLE block (CAP_TABLE_CGROUP); each
 *     window's ids are named while the cgroups are there, and CGROUPS at the end keeps every
 *     id -> path known, so a replay anywhere names them as the live run did.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/cgroup.h"
#include "core/clock.h"
#include "core/record.h"

/* META: what the rows are from; the CPU list has one entry per stream, however many */
static int write_meta(struct session *s, struct capture_writer *w, const char *command)
{
	char host[256] = "?", *meta = NULL;
	struct utsname u;
	size_t len = 0;
	FILE *f = open_memstream(&meta, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	gethostname(host, sizeof(host) - 1);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f,
		"host=%s\nkernel=%s\nmachine=%s\ncpus=%d\nstart_ns=%llu\nclock_offset_ns=%lld\n"
		"command=%s\ncpu_list=",
		host, u.release, u.machine, s->nr_cpus, (unsigned long long)s->window_start_ns,
		(long long)(s->clock_offset_ns ? s->clock_offset_ns : clock__wall_offset_ns()),
		command);
	for (int i = 0; i < s->nr_cpus; i++)
		fprintf(f, "%s%d", i ? "," : "", s->cpu_num[i]);
	fputc('\n', f);
	ret = fclose(f) ? -ENOMEM : capture__write(w, CAP_META, meta, len);
	free(meta);
	return ret;
}

int record__begin(struct session *s, struct capture_writer *w, const char *command)
{
	int ret;

	if ((ret = write_meta(s, w, command)))
		return ret;
	for (int i = 0; i < s->nr_src; i++) {
		const struct tp_event *ev = s->src[i]->ev;
		const char *fmt = ev->format_text ? ev->format_text : "";
		size_t len = 8 + strlen(ev->system) + 1 + strlen(ev->name) + 1 + strlen(fmt);
		uint8_t *b = malloc(len);
		uint32_t hdr[2] = { (uint32_t)i, (uint32_t)ev->kind };

		if (s->src[i]->win->cgroup)
			hdr[1] |= CAP_TABLE_CGROUP;

		if (!b)
			return -ENOMEM;
		memcpy(b, hdr, 8);
		memcpy(b + 8, ev->system, strlen(ev->system) + 1);
		memcpy(b + 8 + strlen(ev->system) + 1, ev->name, strlen(ev->name) + 1);
		memcpy(b + len - strlen(fmt), fmt, strlen(fmt));
		ret = capture__write(w, CAP_TABLE, b, len);
		free(b);
		if (ret)
			return ret;
	}
	return 0;
}

struct run_ctx {
	struct capture_writer *w;
	uint32_t table, stream;
};

static int write_run(void *ctx_, const void *rows, size_t len)
{
	struct run_ctx *ctx = ctx_;
	uint8_t *b = malloc(8 + len);
	int ret;

	if (!b)
		return -ENOMEM;
	memcpy(b, &ctx->table, 4);
	memcpy(b + 4, &ctx->stream, 4);
	memcpy(b + 8, rows, len);
	ret = capture__write(ctx->w, CAP_RECORDS, b, 8 + len);
	free(b);
	return ret;
}

struct buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void *buf_room(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 65536;
		void *p;

		while (ncap < b->len + n)
			ncap *= 2;
		if (!(p = realloc(b->p, ncap))) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = ncap;
	}
	b->len += n;
	return b->p + b->len - n;
}

/* CAP_MAPS entry: u32 pid, u32 path length (0: the pid exec'd), u64 start, end, pgoff, path */
static void add_map(void *arg, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path)
{
	uint32_t plen = path ? (uint32_t)strlen(path) : 0;
	uint64_t end = start + len;
	uint8_t *e = buf_room(arg, 32 + plen);

	if (!e)
		return;
	memcpy(e, &pid, 4);
	memcpy(e + 4, &plen, 4);
	memcpy(e + 8, &start, 8);
	memcpy(e + 16, &end, 8);
	memcpy(e + 24, &pgoff, 8);
	if (plen)
		memcpy(e + 32, path, plen);
}

/* CAP_SYMS: the symbols layer's blob of one file, as it is */
static void add_syms(void *arg, const void *blob, size_t len)
{
	uint8_t *e = buf_room(arg, len);

	if (e)
		memcpy(e, blob, len);
}

/* the mappings learnt since the last window, before its rows, and the symbols of their files
 * before them: a replay names stacks with them, even of files gone by then */
static int write_maps(struct session *s, struct capture_writer *w)
{
	struct buf b = { 0 }, y = { 0 };
	int ret;

	if (!s->stacks)
		return 0;
	s->stacks->maps_since(s->stack_ctx, &s->maps_cursor, add_map, &b);
	s->stacks->syms_since(s->stack_ctx, &s->syms_cursor, add_syms, &y);
	ret = y.err ? y.err : y.len ? capture__write(w, CAP_SYMS, y.p, y.len) : 0;
	if (!ret)
		ret = b.err ? b.err : b.len ? capture__write(w, CAP_MAPS, b.p, b.len) : 0;
	free(b.p);
	free(y.p);
	return ret;
}

/* (5): the window's cgroup ids named now, while their cgroups exist */
static void name_cgroups(struct session *s)
{
	for (int i = 0; i < s->nr_src; i++) {
		struct wscan sc;
		const struct wrow *r;

		if (!s->src[i]->win->cgroup || wscan__init(&sc, s->src[i]->win))
			continue;
		while ((r = wscan__next(&sc)))
			session__cgroup_path(s, wrow_cgroup(r));
		wscan__done(&sc);
	}
}

int record__window(struct session *s, struct capture_writer *w)
{
	size_t n = (size_t)s->nr_src * (size_t)s->nr_cpus, off = 12;
	uint8_t *b = malloc(12 + n * 24);
	uint32_t nr = (uint32_t)n;
	int ret = 0;

	if (!b)
		return -ENOMEM;
	ret = write_maps(s, w);
	name_cgroups(s);
	for (int i = 0; i < s->nr_src && !ret; i++)
		for (int c = 0; c < s->nr_cpus && !ret; c++) {
			struct run_ctx ctx = { w, (uint32_t)i, (uint32_t)c };

			ret = window__for_each_run(s->src[i]->win, c, write_run, &ctx);
		}
	memcpy(b, &s->window_start_ns, 8);
	memcpy(b + 8, &nr, 4);
	for (int i = 0; i < s->nr_src; i++)
		for (int c = 0; c < s->nr_cpus; c++) {
			uint32_t ids[2] = { (uint32_t)i, (uint32_t)c };

			memcpy(b + off, ids, 8);
			memcpy(b + off + 8, &s->src[i]->received[c], 8);
			memcpy(b + off + 16, &s->src[i]->lost[c], 8);
			off += 24;
		}
	if (!ret)
		ret = capture__write(w, CAP_WINDOW, b, off);
	free(b);
	return ret;
}

struct comms_ctx {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void add_comm(void *ctx_, uint32_t tid, uint64_t since, const char *comm)
{
	struct comms_ctx *ctx = ctx_;
	uint8_t ent[32] = { 0 };

	if (ctx->len + 32 > ctx->cap) {
		size_t ncap = ctx->cap ? ctx->cap * 2 : 65536;
		void *p = realloc(ctx->buf, ncap);

		if (!p) {
			ctx->err = -ENOMEM;
			return;
		}
		ctx->buf = p;
		ctx->cap = ncap;
	}
	memcpy(ent, &tid, 4);
	memcpy(ent + 8, &since, 8);
	strncpy((char *)ent + 16, comm, 15);
	memcpy(ctx->buf + ctx->len, ent, 32);
	ctx->len += 32;
}

/* CAP_CGROUPS entry: u64 id, u32 path length, u32 0, the path (no NUL) */
static void add_cgroup(void *arg, uint64_t id, const char *path)
{
	uint32_t len = (uint32_t)strlen(path);
	uint8_t *e = buf_room(arg, 16 + len);

	if (!e)
		return;
	memcpy(e, &id, 8);
	memcpy(e + 8, &len, 4);
	memset(e + 12, 0, 4);
	memcpy(e + 16, path, len);
}

static int write_cgroups(struct session *s, struct capture_writer *w)
{
	struct buf b = { 0 };
	int ret;

	if (!s->cgroups)
		return 0;
	cgroup_map__for_each(s->cgroups, add_cgroup, &b);
	ret = b.err ? b.err : capture__write(w, CAP_CGROUPS, b.p ? b.p : (uint8_t *)"", b.len);
	free(b.p);
	return ret;
}

int record__end(struct session *s, struct capture_writer *w)
{
	struct comms_ctx ctx = { 0 };
	int ret;

	if ((ret = write_cgroups(s, w)))
		return ret;
	if (!s->comms)
		return 0;
	comm_map__for_each(s->comms, add_comm, &ctx);
	ret = ctx.err ? ctx.err
		      : capture__write(w, CAP_COMMS, ctx.buf ? ctx.buf : (uint8_t *)"", ctx.len);
	free(ctx.buf);
	return ret;
}
