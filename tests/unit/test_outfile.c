/*
 * tests/unit/test_outfile.c - core/outfile.c in a directory of its own, no privileges needed:
 * links refused with the file they point to unchanged (1), new files renamed into place (2),
 * FIFOs and /dev/fd/N as they are (3), appending (4). Numbers refer to core/outfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/outfile.h"
#include "tests/unit/t.h"

static char dir[256], victim[PATH_MAX];

static const char *at(const char *name)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static int put_hello(FILE *f, void *ctx) { return fputs("hello\n", f) < 0 ? -EIO : 0; }

static int put_fail(FILE *f, void *ctx)
{
	fputs("half", f);
	return -ENOSPC;
}

/* the temporary files left in dir */
static int nr_tmp(void)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '\\.tmp\\.'", dir);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static void test_links_refused(void)
{
	struct err e = { 0 };
	FILE *f;

	put(victim, "victim\n");
	T(!symlink(victim, at("sym")), "symlink");
	T(!link(victim, at("hard")), "link");
	f = outfile__create(at("sym"), 0644, &e);
	T(!f && e.code == -ELOOP && strstr(e.msg, "a symbolic link (to ") &&
		  strstr(e.hint, "remove"),
	  "(1) create over a symlink: %d %s", e.code, e.msg);
	T(outfile__replace(at("hard"), 0644, put_hello, NULL, &e) == -EMLINK &&
		  strstr(e.msg, "a file with 2 hard links"),
	  "(1) replace a hard link: %s", e.msg);
	T(outfile__append(at("sym"), 0600, &e) == -ELOOP, "(1) append to a symlink");
	T(outfile__append(at("hard"), 0600, &e) == -EMLINK, "(1) append to a hard link");
	T(outfile__check(at("sym"), &e) == -ELOOP && outfile__check(at("new"), &e) == 0,
	  "(1) check");
	T(!outfile__create(dir, 0644, &e) && e.code == -EISDIR, "(1) a directory: %s", e.msg);
	T(!strcmp(slurp(victim), "victim\n"), "(1) the linked-to file is unchanged");
	unlink(at("sym"));
	unlink(at("hard"));
}

static void test_new_files(void)
{
	struct err e = { 0 };
	struct stat st, old;
	FILE *f;
	int fd;

	umask(022);
	T(outfile__replace(at("new.svg"), 0644, put_hello, NULL, &e) == 0, "(2) replace: %s",
	  e.msg);
	T(!strcmp(slurp(at("new.svg")), "hello\n") && !stat(at("new.svg"), &st) &&
		  (st.st_mode & 0777) == 0644,
	  "(2) the new file and its mode");
	T(outfile__replace(at("new.svg"), 0644, put_fail, NULL, &e) == -ENOSPC &&
		  !strcmp(slurp(at("new.svg")), "hello\n"),
	  "(2) a failed write leaves the file as it was");
	put(at("old.csv"), "old\n");
	fd = open(at("old.csv"), O_RDONLY);
	fstat(fd, &old);
	f = outfile__create(at("old.csv"), 0600, &e);
	T(f != NULL, "(2) create over a file: %s", e.msg);
	if (f) {
		fputs("new\n", f);
		fclose(f);
	}
	T(!stat(at("old.csv"), &st) && st.st_ino != old.st_ino && (st.st_mode & 0777) == 0600 &&
		  !strcmp(slurp(at("old.csv")), "new\n"),
	  "(2) a new inode with the new contents");
	T(pread(fd, (char[8]){ 0 }, 8, 0) == 4, "(2) the old inode keeps its 4 bytes");
	close(fd);
	T(nr_tmp() == 0, "(2) no temporary file left: %d", nr_tmp());
}

static void test_in_place(void)
{
	struct err e = { 0 };
	char path[64], buf[16] = "";
	int p[2], rfd;
	FILE *f;

	T(!mkfifo(at("fifo"), 0600), "mkfifo");
	rfd = open(at("fifo"),
		   O_RDONLY | O_NONBLOCK); /* a reader, so opening to write does not wait */
	f = outfile__create(at("fifo"), 0644, &e);
	T(f != NULL, "(3) a FIFO: %s", e.msg);
	if (f) {
		fputs("row\n", f);
		fclose(f);
	}
	T(read(rfd, buf, sizeof(buf) - 1) == 4 && !strcmp(buf, "row\n"),
	  "(3) the FIFO's reader: %s", buf);
	close(rfd);
	T(!pipe(p), "pipe");
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	f = outfile__create(path, 0644, &e);
	T(f != NULL, "(3) /dev/fd/N: %s", e.msg);
	if (f) {
		fputs("x\n", f);
		fclose(f);
	}
	close(p[1]);
	memset(buf, 0, sizeof(buf));
	T(read(p[0], buf, sizeof(buf) - 1) == 2, "(3) /dev/fd/N is the descriptor");
	close(p[0]);
	T(!outfile__create("/dev/fd/999", 0644, &e) && e.code == -EBADF, "(3) a closed /dev/fd/N");
}

static void test_append(void)
{
	struct err e = { 0 };
	int fd = outfile__append(at("hist"), 0600, &e);

	T(fd >= 0 && write(fd, "a\n", 2) == 2, "(4) created: %s", e.msg);
	close(fd);
	fd = outfile__append(at("hist"), 0600, &e);
	T(fd >= 0 && write(fd, "b\n", 2) == 2, "(4) appended");
	close(fd);
	T(!strcmp(slurp(at("hist")), "a\nb\n"), "(4) both lines: %s", slurp(at("hist")));
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/psql-outfile.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	RUN(test_links_refused);
	RUN(test_new_files);
	RUN(test_in_place);
	RUN(test_append);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		T(0, "rm -rf %s", dir);
	return t_done("outfile");
}
