/*
 * core/outfile.c - opening files to write, safely in shared directories (see core/outfile.h).
 *
 * Every writer goes through open_out(): the name is looked at once (fstatat, no link followed)
 * in a directory held open, then either refused, opened as it is (a FIFO, a character device:
 * fstat proves it is the same one), or left alone while a new file is made beside it under a
 * fresh name and renamed over it. The checks that matter are made on what is opened, not on
 * the name: O_EXCL|O_NOFOLLOW cannot open anything that already exists, and rename replaces
 * whatever the name has become in between without writing through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/outfile.h"

#define NO_LINK "perf-sql writes no file through a link"

/* path split into its directory (held open) and last component, as it was looked at */
struct target {
	const char *path;
	int dirfd;
	const char *base;
	struct stat st;
	bool exists;
};

static void target_close(struct target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

static int target_open(struct target *t, const char *path, struct err *e)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	*t = (struct target){ .path = path, .dirfd = -1, .base = slash ? slash + 1 : path };
	if (!path[0])
		return err_set(e, -ENOENT, "an empty file name");
	if (!t->base[0] || !strcmp(t->base, ".") || !strcmp(t->base, "..")) {
		err_set(e, -EISDIR, "%s: is a directory", path);
		return err_hint(e, "name a file in it");
	}
	if (strlen(t->base) > NAME_MAX)
		return err_set(e, -ENAMETOOLONG, "%s: %s", path, strerror(ENAMETOOLONG));
	if (!slash || slash == path)
		snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return err_set(e, -ENAMETOOLONG, "%s: %s", path, strerror(ENAMETOOLONG));
	t->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		return err_hint(e, "check the directory exists and is writable");
	}
	if (!fstatat(t->dirfd, t->base, &t->st, AT_SYMLINK_NOFOLLOW))
		t->exists = true;
	else if (errno != ENOENT)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

/* (1), (3): 1 = write the FIFO or device as it is, 0 = make a new file, -errno = refused */
static int target_check(const struct target *t, struct err *e)
{
	mode_t m = t->st.st_mode;
	char to[PATH_MAX] = "";
	ssize_t n;

	if (!t->exists || (S_ISREG(m) && t->st.st_nlink == 1))
		return 0;
	if (S_ISFIFO(m) && t->st.st_uid != geteuid()) { /* another user's: they would read ours */
		err_set(e, -EINVAL,
			"%s: a FIFO of another user (uid %u): perf-sql writes only to "
			"its own user's FIFOs",
			t->path, (unsigned)t->st.st_uid);
		return err_hint(e, "make the FIFO as this user, or name a file");
	}
	if (S_ISFIFO(m) || S_ISCHR(m))
		return 1;
	if (S_ISLNK(m)) {
		n = readlinkat(t->dirfd, t->base, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		err_set(e, -ELOOP, "%s: a symbolic link (to %s): " NO_LINK, t->path, to);
		return err_hint(e, "remove the link or name another file");
	}
	if (S_ISREG(m)) {
		err_set(e, -EMLINK, "%s: a file with %lu hard links: " NO_LINK, t->path,
			(unsigned long)t->st.st_nlink);
		return err_hint(e, "remove it or name another file");
	}
	if (S_ISDIR(m)) {
		err_set(e, -EISDIR, "%s: is a directory", t->path);
		return err_hint(e, "name a file in it");
	}
	err_set(e, -EINVAL, "%s: a %s: perf-sql writes regular files, FIFOs and character devices",
		t->path, S_ISBLK(m) ? "block device" : "socket");
	return err_hint(e, "name another file");
}

/* (3) /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N -> N; anything else -> -1 */
static int std_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (int i = 0; i < 2; i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(path, dirs[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		if (!*end && !errno && n <= INT_MAX)
			return (int)n;
	}
	return -1;
}

static int open_in_place(const struct target *t, struct err *e)
{
	/* O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of hanging the run */
	int fd = openat(t->dirfd, t->base,
			O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	struct stat now;

	if (fd < 0 && errno == ENXIO) {
		err_set(e, -ENXIO, "%s: a FIFO no process reads", t->path);
		return err_hint(e, "start its reader first (cat %s &)", t->path);
	}
	if (fd < 0)
		return err_set(e, -errno, "%s: %s", t->path, strerror(errno));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (fstat(fd, &now) || now.st_dev != t->st.st_dev || now.st_ino != t->st.st_ino) {
		close(fd);
		err_set(e, -EAGAIN, "%s: was replaced while it was opened", t->path);
		return err_hint(e, "check who else writes there, and run again");
	}
	return fd;
}

/* (2) a new file beside t, named "BASE.tmp.RANDOM" in tmp (NAME_MAX + 1 bytes) */
static int make_temp(const struct target *t, mode_t mode, char *tmp, struct err *e)
{
	int fd = -1;

	for (unsigned i = 0; i < 64 && fd < 0; i++) {
		unsigned r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (unsigned)getpid() * 2654435761u + i;
		snprintf(tmp, NAME_MAX + 1, "%.*s.tmp.%08x", NAME_MAX - 13, t->base, r);
		fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		tmp[0] = '\0';
		err_set(e, -errno, "%s: %s", t->path, strerror(errno));
		return err_hint(e, "check the directory is writable");
	}
	return fd;
}

/* A descriptor to write path's contents to: a dup of a standard name, the FIFO or device
 * itself, or a new file whose name is put in tmp (else tmp is ""); -errno with e set. */
static int open_out(struct target *t, const char *path, mode_t mode, char *tmp, struct err *e)
{
	int fd = std_fd(path), ret;

	tmp[0] = '\0';
	t->dirfd = -1;
	if (fd >= 0) {
		ret = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		return ret >= 0 ? ret : err_set(e, -errno, "%s: %s", path, strerror(errno));
	}
	if ((ret = target_open(t, path, e)) < 0 || (ret = target_check(t, e)) < 0)
		return ret;
	return ret ? open_in_place(t, e) : make_temp(t, mode, tmp, e);
}

static int put_in_place(struct target *t, const char *tmp, struct err *e)
{
	if (!tmp[0] || !renameat(t->dirfd, tmp, t->dirfd, t->base))
		return 0;
	err_set(e, -errno, "%s: %s", t->path, strerror(errno));
	unlinkat(t->dirfd, tmp, 0);
	return e->code;
}

FILE *outfile__create(const char *path, mode_t mode, struct err *e)
{
	char tmp[NAME_MAX + 1];
	struct target t;
	int fd = open_out(&t, path, mode, tmp, e);
	FILE *f = NULL;

	if (fd >= 0 && put_in_place(&t, tmp, e) == 0 && !(f = fdopen(fd, "w")))
		err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (!f && fd >= 0)
		close(fd);
	target_close(&t);
	return f;
}

int outfile__replace(const char *path, mode_t mode, int (*fn)(FILE *f, void *ctx), void *ctx,
		     struct err *e)
{
	char tmp[NAME_MAX + 1];
	struct target t;
	int fd = open_out(&t, path, mode, tmp, e), ret;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = fd < 0 ? fd : err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	ret = fn(f, ctx);
	if (ret)
		err_set(e, ret, "%s: %s", path, strerror(-ret));
	else if (fflush(f) || (tmp[0] && fsync(fileno(f)))) /* whole after a crash too */
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (fclose(f) && !ret)
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
	fd = -1;
	if (!ret)
		ret = put_in_place(&t, tmp, e);
	else if (tmp[0])
		unlinkat(t.dirfd, tmp, 0);
out:
	if (fd >= 0) {
		close(fd);
		if (tmp[0])
			unlinkat(t.dirfd, tmp, 0);
	}
	target_close(&t);
	return ret;
}

int outfile__check(const char *path, struct err *e)
{
	struct target t;
	int ret;

	if (std_fd(path) >= 0)
		return 0;
	ret = target_open(&t, path, e);
	if (!ret)
		ret = target_check(&t, e);
	target_close(&t);
	return ret < 0 ? ret : 0;
}

int outfile__append(const char *path, mode_t mode, struct err *e)
{
	struct target t;
	struct stat now;
	int fd, ret;

	if ((ret = target_open(&t, path, e)) < 0 || (ret = target_check(&t, e)) < 0)
		goto out;
	if (t.exists && !S_ISREG(t.st.st_mode)) {
		ret = err_set(e, -EINVAL, "%s: not a regular file", path);
		err_hint(e, "remove it or name another file");
		goto out;
	}
	fd = openat(t.dirfd, t.base,
		    O_RDWR | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
			    (t.exists ? 0 : O_CREAT | O_EXCL),
		    mode);
	if (fd < 0) {
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	ret = fd;
	if (t.exists && (fstat(fd, &now) || now.st_dev != t.st.st_dev ||
			 now.st_ino != t.st.st_ino || now.st_nlink != 1)) {
		close(fd);
		ret = err_set(e, -EAGAIN, "%s: was replaced or linked while it was opened", path);
		err_hint(e, "check who else writes there, and run again");
	}
out:
	target_close(&t);
	return ret;
}
