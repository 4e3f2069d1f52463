/*
 * core/cgroup.h - cgroup v2 ids to paths: what the _cgroup_id and _cgroup columns of every
 * table show. An id is what bpf_get_current_cgroup_id() and PERF_SAMPLE_CGROUP give (the
 * kernfs id of the cgroup's directory, its inode number on cgroup2fs); a path is the
 * directory's under the v2 hierarchy, "system.slice/nginx.service", "/" for the root.
 */
#ifndef PERF_SQL_CGROUP_H
#define PERF_SQL_CGROUP_H
#include <stdbool.h>
#include <stdint.h>

struct cgroup_map;

/* Finds the v2 hierarchy (a pure v2 mount, or a hybrid's "unified" one) in mountinfo and
 * reads its cgroups; with none mounted the map is empty (cgroup_map__root() is NULL). NULL:
 * out of memory. */
struct cgroup_map *cgroup_map__new(void);
/* An empty map that never reads this machine's hierarchy (a capture's, filled by set). */
struct cgroup_map *cgroup_map__new_offline(void);
void cgroup_map__free(struct cgroup_map *m);
/* Where the v2 hierarchy is mounted, or NULL (none: the columns are NULL). */
const char *cgroup_map__root(const struct cgroup_map *m);
/* The path of id, or NULL. An id not known is looked for once more in the hierarchy (a
 * cgroup created since the last read), then remembered as unknown. */
const char *cgroup_map__path(struct cgroup_map *m, uint64_t id);
/* Records id -> path (a capture's entries; a PERF_RECORD_CGROUP): 0, -EINVAL, -ENOMEM. */
int cgroup_map__set(struct cgroup_map *m, uint64_t id, const char *path);
/* Reads the hierarchy again (new cgroups join, gone ones stay): 0 or -errno. */
int cgroup_map__scan(struct cgroup_map *m);
/* Calls fn for every known (id, path): captures save the map with it. */
void cgroup_map__for_each(const struct cgroup_map *m,
			  void (*fn)(void *ctx, uint64_t id, const char *path), void *ctx);
/* A path as the columns show it, from one as /proc/PID/cgroup or a person writes it: the
 * leading and trailing '/' dropped, "/" for the root (out has len bytes). */
void cgroup_path__normalize(const char *in, char *out, unsigned long len);
#endif
