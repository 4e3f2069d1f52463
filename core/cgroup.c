/*
 * core/cgroup.c - cgroup v2 ids to paths (see core/cgroup.h).
 *
 * HOW IT WORKS
 * (1) The hierarchy: the first cgroup2 mount of /proc/self/mountinfo whose root is the
 *     hierarchy's own ("/"): /sys/fs/cgroup on a pure v2 machine, /sys/fs/cgroup/unified on a
 *     hybrid one. None: the map stays empty and every id is unknown.
 * (2) An id is the inode number of the cgroup's directory there (kernfs gives a node's 64-bit
 *     id as its inode number on 64-bit machines), so a walk of the directories (openat(),
 *     fstat()) names every cgroup alive; name_to_handle_at() is not needed.
 * (3) An open-addressing table keyed by id; an entry with a NULL path is an id looked for and
 *     not found, so a row of a cgroup gone before it was named costs one walk, not one per
 *     row. Ids are not reused (kernfs ids carry a generation), so a new cgroup always misses
 *     and is found by the walk its first row starts (a walk per new cgroup seen: a host
 *     making many a second pays a walk of its hierarchy for each).
 * (4) While collecting, the sideband's PERF_RECORD_CGROUP (core/ring.c) sets a cgroup's path
 *     as it is made, so one made and removed within a window is named too; the walk stays for
 *     what a per-task sideband does not see (another task's mkdir).
 * (5) The session's map (below): made when a table's _cgroup is first planned; a capture's
 *     (core/replay.c) and another kernel's (--kernel-facts) never read this machine's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "core/cgroup.h"
#include "core/replay.h"
#include "core/session.h"

#define CGROUP2_MAGIC 0x63677270
#define MAX_DEPTH 64

struct cg_ent {
	uint64_t id; /* 0: a free slot */
	char *path;  /* NULL: looked for, not found */
};

struct cgroup_map {
	char *root;
	char *v1_perf_event; /* the perf_event controller's v1 mount, if any */
	bool offline;
	struct cg_ent *ents;
	size_t cap, nr;   /* cap: a power of two */
	uint64_t last_id; /* the last lookup, answered without hashing */
	const char *last_path;
};

static struct cg_ent *slot(struct cgroup_map *m, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ull) & (m->cap - 1);

	while (m->ents[i].id && m->ents[i].id != id)
		i = (i + 1) & (m->cap - 1);
	return &m->ents[i];
}

static int grow(struct cgroup_map *m)
{
	struct cg_ent *old = m->ents;
	size_t ocap = m->cap, ncap = m->cap ? m->cap * 2 : 256;

	m->ents = calloc(ncap, sizeof(*m->ents));
	if (!m->ents) {
		m->ents = old;
		return -ENOMEM;
	}
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].id)
			*slot(m, old[i].id) = old[i];
	free(old);
	return 0;
}

/* id -> path (NULL: unknown); a known path is kept, a new one replaces an unknown */
static int put(struct cgroup_map *m, uint64_t id, const char *path)
{
	struct cg_ent *e;

	if (!id)
		return -EINVAL;
	if ((m->nr + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	e = slot(m, id);
	if (e->id && (e->path || !path))
		return 0;
	if (path && !(path = strdup(path)))
		return -ENOMEM;
	m->nr += !e->id;
	e->id = id;
	e->path = (char *)path;
	m->last_id = 0;
	return 0;
}

int cgroup_map__set(struct cgroup_map *m, uint64_t id, const char *path)
{
	return path ? put(m, id, path) : -EINVAL;
}

/* (1): the mount point (field 5) of the first cgroup2 mount whose root (field 4) is "/"; and
 * whether perf_event is a v1 controller (PERF_SAMPLE_CGROUP then gives its ids) */
static void find_root(struct cgroup_map *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[4096], dir[4096], *sep;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, dir) != 2 ||
		    strchr(dir, '\\')) /* an escaped blank: not a mount of ours to read */
			continue;
		if (!m->root && !strncmp(sep, " - cgroup2 ", 11) && !strcmp(root, "/"))
			m->root = strdup(dir);
		else if (!m->v1_perf_event && !strncmp(sep, " - cgroup ", 10) &&
			 strstr(sep, "perf_event"))
			m->v1_perf_event = strdup(dir);
	}
	fclose(f);
}

/* (2): dir (an fd of the cgroup at rel) and its children, depth first */
static int walk(struct cgroup_map *m, int dfd, char *rel, size_t len, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct stat st;
	int ret = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		int fd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.' || depth >= MAX_DEPTH ||
		    len + 1 + n >= 4096)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* removed since readdir */
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		snprintf(rel + len, 4096 - len, "%s%s", len ? "/" : "", de->d_name);
		ret = put(m, st.st_ino, rel);
		if (!ret)
			ret = walk(m, fd, rel, len + (len ? 1 : 0) + n, depth + 1);
		else
			close(fd);
		rel[len] = '\0';
	}
	closedir(d);
	return ret == -ENOMEM ? ret : 0;
}

int cgroup_map__scan(struct cgroup_map *m)
{
	char rel[4096] = "";
	struct statfs sf;
	struct stat st;
	int fd, ret;

	if (!m->root || m->offline)
		return 0;
	fd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_MAGIC || fstat(fd, &st)) {
		close(fd);
		return -ENOENT;
	}
	ret = put(m, st.st_ino, "/");
	return ret ? (close(fd), ret) : walk(m, fd, rel, 0, 0);
}

static struct cgroup_map *map_new(bool offline)
{
	struct cgroup_map *m = calloc(1, sizeof(*m));

	if (!m || grow(m)) {
		free(m);
		return NULL;
	}
	m->offline = offline;
	return m;
}

struct cgroup_map *cgroup_map__new(void)
{
	struct cgroup_map *m = map_new(false);

	if (!m)
		return NULL;
	find_root(m);
	if (cgroup_map__scan(m) == -ENOENT) { /* not cgroup2fs after all */
		free(m->root);
		m->root = NULL;
	}
	return m;
}

struct cgroup_map *cgroup_map__new_offline(void) { return map_new(true); }

void cgroup_map__free(struct cgroup_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->ents[i].path);
	free(m->ents);
	free(m->root);
	free(m->v1_perf_event);
	free(m);
}

const char *cgroup_map__root(const struct cgroup_map *m) { return m ? m->root : NULL; }

const char *cgroup_map__path(struct cgroup_map *m, uint64_t id)
{
	struct cg_ent *e;

	if (!m || !id)
		return NULL;
	if (id == m->last_id)
		return m->last_path;
	e = slot(m, id);
	if (!e->id && m->root && !m->offline) { /* (3): new since the last walk? */
		cgroup_map__scan(m);
		e = slot(m, id);
		if (!e->id && put(m, id, NULL) == 0)
			e = slot(m, id);
	}
	m->last_id = id;
	m->last_path = e->id ? e->path : NULL;
	return m->last_path;
}

void cgroup_map__for_each(const struct cgroup_map *m,
			  void (*fn)(void *ctx, uint64_t id, const char *path), void *ctx)
{
	for (size_t i = 0; m && i < m->cap; i++)
		if (m->ents[i].id && m->ents[i].path)
			fn(ctx, m->ents[i].id, m->ents[i].path);
}

void cgroup_path__normalize(const char *in, char *out, unsigned long len)
{
	size_t n;

	if (!len)
		return;
	while (*in == '/')
		in++;
	n = strlen(in);
	while (n && in[n - 1] == '/')
		n--;
	if (!n)
		in = "/", n = 1;
	snprintf(out, len, "%.*s", (int)n, in);
}

/* ------------------------------------------------------------------- the session's map */

void source__plan_cgroup(struct source *src)
{
	struct session *s = src->s;
	const struct replay *r = s->replay;

	src->need_cgroup = true;
	if (r && r->cr && !src->ev->cgroup_rows) /* a capture's table: its rows say */
		snprintf(s->cgroup_note, sizeof(s->cgroup_note),
			 "_cgroup and _cgroup_id of %.80s are NULL: the capture's rows carry no "
			 "cgroup id (recorded without _cgroup, or without cgroup v2)",
			 src->ev->full);
	if (s->cgroups)
		return;
	s->cgroups = r ? cgroup_map__new_offline() : cgroup_map__new();
	if (r || !s->cgroups) { /* a capture's ids, or another kernel's (--kernel-facts) */
		s->cgroup_ring = !r || !r->cr;
		return;
	}
	if (!s->cgroups->root) {
		snprintf(s->cgroup_note, sizeof(s->cgroup_note),
			 "_cgroup and _cgroup_id are NULL: no cgroup v2 hierarchy is mounted "
			 "(/proc/self/mountinfo)");
	} else if (s->cgroups->v1_perf_event) {
		snprintf(s->cgroup_note, sizeof(s->cgroup_note),
			 "_cgroup and _cgroup_id are NULL on the ring: the perf_event controller "
			 "is mounted as cgroup v1 (%.100s), so PERF_SAMPLE_CGROUP gives its ids, "
			 "not v2's (BPF reads v2's)",
			 s->cgroups->v1_perf_event);
	} else {
		s->cgroup_ring = true;
	}
}

const char *session__cgroup_path(struct session *s, uint64_t id)
{
	return cgroup_map__path(s->cgroups, id);
}
