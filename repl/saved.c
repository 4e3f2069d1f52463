/*
 * repl/saved.c - saved queries as files: .save NAME, .run NAME [PARAM=VALUE...], .profilers.
 *
 * (1) A name is [A-Za-z0-9_-]+, at most 64 characters: it becomes a file name, so nothing
 *     else (no '/', no '.') is accepted, with one error saying what is allowed.
 * (2) Files are created 0600 and their directories 0700: queries can name pids and paths.
 * (3) Parameters are :NAME in the SQL, bound by .run (repl/commands.c); unbound ones are NULL.
 *
 * Kept apart so the profiler registry (profilers/) can replace it without touching the REPL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "repl/saved.h"

int saved__check_name(const char *name, struct err *e)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	if (n && !name[n] && n <= 64)
		return 0;
	err_set(e, -EINVAL, "profiler name '%s': use 1 to 64 letters, digits, '_' or '-'", name);
	return -EINVAL;
}

/* creates dir and its missing parents, 0700 */
int saved__mkdirs(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

static int profilers_dir(char *buf, size_t len, struct err *e)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/perf-sql/profilers", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.config/perf-sql/profilers", home);
	else
		return err_set(e, -ENOENT, "saved queries: neither XDG_CONFIG_HOME nor HOME is set");
	if (n >= (int)len)
		return err_set(e, -ENAMETOOLONG, "saved queries: directory name too long");
	return 0;
}

int saved__save(const char *name, const char *sql, char *path_out, size_t len, struct err *e)
{
	char dir[PATH_MAX];
	size_t n = strlen(sql);
	int fd, rc = 0;

	if (saved__check_name(name, e) || profilers_dir(dir, sizeof(dir), e))
		return e->code;
	if ((rc = saved__mkdirs(dir)))
		return err_set(e, rc, "%s: %s", dir, strerror(-rc));
	snprintf(path_out, len, "%s/%s.sql", dir, name);
	fd = open(path_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, -errno, "%s: %s", path_out, strerror(errno));
	if (write(fd, sql, n) != (ssize_t)n || (n && sql[n - 1] != '\n' && write(fd, "\n", 1) != 1))
		rc = err_set(e, errno ? -errno : -EIO, "%s: %s", path_out, strerror(errno ? errno : EIO));
	fchmod(fd, 0600);   /* an older file may have had wider modes */
	if (close(fd) && !rc)
		rc = err_set(e, -errno, "%s: %s", path_out, strerror(errno));
	return rc;
}

static void add_name(void *ctx, const char *name, const char *summary)
{
	char *names = ctx;
	size_t n = strlen(names);

	snprintf(names + n, 200 - n, "%s%s", n ? " " : "", name);
}

char *saved__load(const char *name, struct err *e)
{
	char dir[PATH_MAX], path[PATH_MAX + 80], names[200] = "";
	FILE *f;
	char *sql = NULL;
	size_t cap = 0;
	ssize_t n;

	if (saved__check_name(name, e) || profilers_dir(dir, sizeof(dir), e))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.sql", dir, name);
	if (!(f = fopen(path, "r"))) {
		err_set(e, -errno, "no saved query '%s' (%s)", name, strerror(errno));
		saved__list(add_name, names, &(struct err){ 0 });
		if (names[0])
			err_hint(e, "saved: %s", names);
		else
			err_hint(e, "save the last query with .save NAME");
		return NULL;
	}
	n = getdelim(&sql, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(sql);
		err_set(e, -EIO, "%s: cannot read", path);
		return NULL;
	}
	return sql;
}

static const char *summary_of(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	while (f && fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!strncmp(buf, "--", 2)) {
			memmove(buf, buf + 2 + (buf[2] == ' '), strlen(buf + 2 + (buf[2] == ' ')) + 1);
			break;
		}
		if (buf[0])
			break;   /* no comment: the first line of SQL */
	}
	if (f)
		fclose(f);
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int saved__list(saved_fn fn, void *ctx, struct err *e)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], summary[200];
	char *names[1024];
	int nr = 0;
	struct dirent *d;
	DIR *dp;

	if (profilers_dir(dir, sizeof(dir), e))
		return e->code;
	if (!(dp = opendir(dir)))
		return errno == ENOENT ? 0 : err_set(e, -errno, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dp)) && nr < 1024) {
		size_t n = strlen(d->d_name);

		if (n <= 4 || strcmp(d->d_name + n - 4, ".sql") || !(names[nr] = strndup(d->d_name, n - 4)))
			continue;
		if (saved__check_name(names[nr], &(struct err){ 0 }))
			free(names[nr]);   /* not a name .save could have written */
		else
			nr++;
	}
	closedir(dp);
	qsort(names, (size_t)nr, sizeof(names[0]), by_name);
	for (int i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s.sql", dir, names[i]);
		fn(ctx, names[i], summary_of(path, summary, sizeof(summary)));
		free(names[i]);
	}
	return 0;
}
