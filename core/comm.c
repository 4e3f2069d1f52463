/*
 * core/comm.c - task names over time (see core/comm.h).
 *
 * (1) Open addressing on tid; each entry holds a small, time-ordered history (exec renames).
 * (2) An unknown tid at lookup falls back to /proc/TID/comm once and is cached, so tasks that
 *     started between the snapshot and the first COMM record still get their name.
 * (3) A fork is stored as a link to the parent at that time and resolved at lookup, not copied
 *     when the FORK record is read: rings drain in turn, so a child's FORK record may be read
 *     before its parent's own FORK or COMM record (another CPU's ring), when the parent may
 *     already be gone from /proc.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/comm.h"

struct comm_at {
	uint64_t time;
	uint32_t parent; /* non-zero: forked from it at time, named as it was then (3) */
	char comm[16];
};

enum { FORK_DEPTH_MAX = 32 }; /* links followed at most (a reused tid could make a loop) */

struct comm_ent {
	uint32_t tid; /* 0: empty slot (tid 0 is stored in slot of key 0 specially) */
	uint32_t nr, cap;
	struct comm_at *hist;
};

struct comm_map {
	struct comm_ent *ents;
	uint32_t cap, used;
	struct comm_at idle; /* tid 0, the idle task: "swapper" */
	bool offline;
};

struct comm_map *comm_map__new(void)
{
	struct comm_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 4096;
	m->ents = calloc(m->cap, sizeof(*m->ents));
	if (!m->ents) {
		free(m);
		return NULL;
	}
	snprintf(m->idle.comm, sizeof(m->idle.comm), "swapper");
	return m;
}

void comm_map__free(struct comm_map *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->cap; i++)
		free(m->ents[i].hist);
	free(m->ents);
	free(m);
}

static uint32_t hash_tid(uint32_t tid) { return tid * 2654435761u; }

static struct comm_ent *slot(struct comm_ent *ents, uint32_t cap, uint32_t tid)
{
	uint32_t i = hash_tid(tid) & (cap - 1);

	while (ents[i].tid && ents[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &ents[i];
}

static int grow(struct comm_map *m)
{
	uint32_t ncap = m->cap * 2;
	struct comm_ent *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->ents[i].tid)
			*slot(n, ncap, m->ents[i].tid) = m->ents[i];
	free(m->ents);
	m->ents = n;
	m->cap = ncap;
	return 0;
}

static int add(struct comm_map *m, uint32_t tid, uint64_t time, const char *comm, uint32_t parent)
{
	struct comm_ent *e;
	struct comm_at *at;

	if (tid == 0)
		return 0;
	if (m->used * 2 >= m->cap && grow(m))
		return -ENOMEM;
	e = slot(m->ents, m->cap, tid);
	if (!e->tid) {
		e->tid = tid;
		m->used++;
	}
	if (!parent && e->nr && !e->hist[e->nr - 1].parent &&
	    !strncmp(e->hist[e->nr - 1].comm, comm, 15))
		return 0;
	/* a reused tid (new task) replaces the history only for times after it: keep appending */
	if (e->nr == e->cap) {
		uint32_t ncap = e->cap ? e->cap * 2 : 1;
		struct comm_at *h = realloc(e->hist, ncap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		e->hist = h;
		e->cap = ncap;
	}
	/* keep the history in time order: a name may arrive after a later one (rings drain in turn) */
	at = &e->hist[e->nr];
	while (at > e->hist && at[-1].time > time) {
		*at = at[-1];
		at--;
	}
	e->nr++;
	at->time = time;
	at->parent = parent;
	snprintf(at->comm, sizeof(at->comm), "%s", comm);
	return 0;
}

int comm_map__set(struct comm_map *m, uint32_t tid, uint64_t time, const char *comm)
{
	return add(m, tid, time, comm, 0);
}

int comm_map__fork(struct comm_map *m, uint32_t parent_tid, uint32_t child_tid, uint64_t time)
{
	if (parent_tid == child_tid)
		return 0;
	return add(m, child_tid, time, "", parent_tid);
}

static int read_comm(uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static const char *get(struct comm_map *m, uint32_t tid, uint64_t time, int depth)
{
	const struct comm_at *at = NULL;
	struct comm_ent *e;
	char buf[32];

	if (tid == 0)
		return m->idle.comm;
	e = slot(m->ents, m->cap, tid);
	if (!e->tid && m->offline)
		return NULL;
	if (!e->tid) {
		/* /proc/TID/task/TID works for threads too */
		if (read_comm(tid, tid, buf, sizeof(buf)) || comm_map__set(m, tid, 0, buf))
			return NULL;
		e = slot(m->ents, m->cap, tid);
	}
	for (uint32_t i = e->nr; i-- > 0 && !at;)
		if (e->hist[i].time <= time)
			at = &e->hist[i];
	if (!at && e->nr)
		at = &e->hist[0];
	if (at && at->parent)
		return depth < FORK_DEPTH_MAX ? get(m, at->parent, at->time, depth + 1) : NULL;
	return at ? at->comm : NULL;
}

const char *comm_map__get(struct comm_map *m, uint32_t tid, uint64_t time)
{
	return get(m, tid, time, 0);
}

int comm_map__snapshot(struct comm_map *m)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *d, *t;
	char path[64], buf[32];

	if (!proc)
		return -errno;
	while ((d = readdir(proc))) {
		uint32_t pid = (uint32_t)strtoul(d->d_name, NULL, 10);

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		task = opendir(path);
		if (!task)
			continue;
		while ((t = readdir(task))) {
			uint32_t tid = (uint32_t)strtoul(t->d_name, NULL, 10);

			if (tid && !read_comm(pid, tid, buf, sizeof(buf)))
				comm_map__set(m, tid, 0, buf);
		}
		closedir(task);
	}
	closedir(proc);
	return 0;
}

void comm_map__for_each(struct comm_map *m,
			void (*fn)(void *ctx, uint32_t tid, uint64_t since, const char *comm),
			void *ctx)
{
	bool offline = m->offline;

	m->offline = true; /* no /proc lookup while walking: it could grow the table */
	for (uint32_t i = 0; i < m->cap; i++) {
		struct comm_ent *e = &m->ents[i];

		for (uint32_t k = 0; e->tid && k < e->nr; k++) {
			const struct comm_at *at = &e->hist[k];
			const char *name = at->parent ? get(m, at->parent, at->time, 1) : at->comm;

			if (name) /* a link is saved resolved: a capture holds names only */
				fn(ctx, e->tid, at->time, name);
		}
	}
	m->offline = offline;
}

void comm_map__set_offline(struct comm_map *m) { m->offline = true; }
