/*
 * bpf/source.c - the BPF tables of a session as an event source (see bpf/source.h).
 */
#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bpf/source.h"
#include "bpf/table.h"
#include "bpf/tree.h"

struct bpf_session {
	struct bpf_table **tables;
	int nr_tables;
	int pidfd;            /* the workload's: readable at its exit, so the loop sees it */
	struct bpf_tree tree; /* the workload's tasks, once a table needs them */
	bool has_tree;
	unsigned long long nr_refused_said; /* the tree's refused members, already said */
};

struct bpf_session *bpf_session__get(struct session *s)
{
	struct bpf_session *b = session__source_data(s, &bpf_source);

	if (b)
		return b;
	if (!(b = calloc(1, sizeof(*b))))
		return NULL;
	b->pidfd = -1;
	if (session__add_event_source(s, &bpf_source, b)) {
		free(b);
		return NULL;
	}
	return b;
}

/* the state of s's tables in the kernel, NULL if none */
static struct bpf_session *bpf_of(const struct session *s)
{
	return session__source_data(s, &bpf_source);
}

int bpf_session__add(struct session *s, struct bpf_table *t)
{
	struct bpf_session *b = bpf_session__get(s);
	struct bpf_table **n;

	if (!b || !(n = realloc(b->tables, (size_t)(b->nr_tables + 1) * sizeof(*n))))
		return -1;
	b->tables = n;
	b->tables[b->nr_tables++] = t;
	t->src->bpf = true;
	return 0;
}

void bpf_session__remove(struct session *s, struct bpf_table *t)
{
	struct bpf_session *b = bpf_of(s);

	for (int i = 0; b && i < b->nr_tables; i++)
		if (b->tables[i] == t) {
			memmove(&b->tables[i], &b->tables[i + 1],
				(size_t)(b->nr_tables - i - 1) * sizeof(*b->tables));
			b->nr_tables--;
			t->src->bpf = false;
			if (t->start_src) /* pairs(): its start table too */
				t->start_src->bpf = false;
			return;
		}
}

int bpf_session__tree(struct session *s, bool attach, struct err *e)
{
	struct bpf_session *b = bpf_session__get(s);
	int ret;

	if (!b)
		return err_set(e, -ENOMEM, "out of memory");
	if (b->has_tree)
		return b->tree.map_fd;
	if ((ret = bpf_tree__open(&b->tree, s, s->wl.pid, attach, e))) {
		bpf_tree__close(&b->tree);
		return ret;
	}
	b->has_tree = true;
	return b->tree.map_fd;
}

unsigned long long bpf_session__tree_refused(struct session *s, int *max_out)
{
	struct bpf_session *b = bpf_of(s);
	unsigned long long n, new;

	if (!b || !b->has_tree)
		return 0;
	n = bpf_tree__nr_refused(&b->tree);
	new = n > b->nr_refused_said ? n - b->nr_refused_said : 0;
	b->nr_refused_said = n > b->nr_refused_said ? n : b->nr_refused_said;
	*max_out = b->tree.max;
	return new;
}

struct bpf_table *bpf_session__table(const struct session *s, const struct source *src)
{
	const struct bpf_session *b = bpf_of(s);

	for (int i = 0; b && i < b->nr_tables; i++)
		if (b->tables[i]->src == src)
			return b->tables[i];
	return NULL;
}

/*
 * The programs were attached at planning (switched off). A table fed by BPF has no ring fd to
 * wake the loop: the workload's pidfd does at its exit (else the loop notices it only at its
 * next timeout, up to 100 ms later).
 */
static int bpf_open(struct session *s, struct err *e)
{
	struct bpf_session *b = bpf_of(s);
	struct pollfd *n;

	if (!b || !b->nr_tables || !s->wl.pid || b->pidfd >= 0)
		return 0;
	b->pidfd = (int)syscall(SYS_pidfd_open, s->wl.pid, 0);
	if (b->pidfd < 0)
		return 0; /* an old kernel: the timeout it is */
	n = realloc(s->pollfds, (size_t)(s->nr_pollfds + 1) * sizeof(*n));
	if (!n)
		return err_set(e, -ENOMEM, "out of memory");
	s->pollfds = n;
	s->pollfds[s->nr_pollfds++] = (struct pollfd){ .fd = b->pidfd, .events = POLLIN };
	return 0;
}

static void switch_all(struct session *s, bool on)
{
	struct bpf_session *b = bpf_of(s);

	for (int i = 0; b && i < b->nr_tables; i++)
		bpf_table__enable(b->tables[i], on);
}

static void bpf_enable(struct session *s) { switch_all(s, true); }

static void bpf_disable(struct session *s) { switch_all(s, false); }

static void bpf_drain(struct session *s) {}

/* the tables switched off (the session's end) wait for their programs' last runs once
 * between them: one grace period covers every program (bpf/table.h (1b)) */
static void bpf_read(struct session *s)
{
	struct bpf_session *b = bpf_of(s);
	bool waited = false;

	for (int i = 0; b && i < b->nr_tables; i++)
		bpf_table__read(b->tables[i], &waited);
}

static void bpf_close(struct session *s)
{
	struct bpf_session *b = bpf_of(s);

	if (!b)
		return;
	for (int i = 0; i < b->nr_tables; i++)
		bpf_table__free(b->tables[i]);
	if (b->pidfd >= 0)
		close(b->pidfd);
	if (b->has_tree)
		bpf_tree__close(&b->tree);
	free(b->tables);
	free(b);
	session__set_source_data(s, &bpf_source, NULL);
}

const struct event_source_ops bpf_source = {
	.name = "bpf maps",
	.open = bpf_open,
	.enable = bpf_enable,
	.disable = bpf_disable,
	.drain = bpf_drain,
	.read_counts = bpf_read,
	.close = bpf_close,
};

uint64_t bpf_prog__new_misses(int prog_fd, uint64_t *seen)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	uint64_t d;

	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len) ||
	    len < offsetof(struct bpf_prog_info, recursion_misses) + 8)
		return 0;
	d = info.recursion_misses - *seen;
	*seen = info.recursion_misses;
	return d;
}
