/*
 * core/workload.c - fork, hold before exec, release, reap (see core/workload.h).
 *
 * (1) The child blocks reading the "go" pipe, so events (enable_on_exec) are open before exec.
 * (2) exec failure is reported through a close-on-exec pipe: EOF means exec succeeded.
 * (3) If perf-sql fails before releasing it, closing "go" makes the child exit 127 unseen.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/workload.h"

int workload__prepare(struct workload *w, char *const *argv, struct err *e)
{
	int go[2], er[2];
	char c;

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = -1;
	w->argv = argv;
	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return err_set(e, -errno, "workload: pipe: %s", strerror(errno));
	w->pid = fork();
	if (w->pid < 0)
		return err_set(e, -errno, "workload: fork: %s", strerror(errno));
	if (w->pid == 0) {
		int eno;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		eno = errno;
		if (write(er[1], &eno, sizeof(eno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	w->go_fd = go[1];
	w->err_fd = er[0];
	return 0;
}

int workload__start(struct workload *w, struct err *e)
{
	int eno = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return err_set(e, -errno, "workload: cannot release '%s': %s", w->argv[0],
			       strerror(errno));
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &eno, sizeof(eno));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(eno)) {
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
		err_set(e, -eno, "workload: cannot run '%s': %s", w->argv[0], strerror(eno));
		return err_hint(e, eno == ENOENT ? "check the command name and $PATH"
						 : "check the file's permissions");
	}
	return 0;
}

bool workload__poll(struct workload *w)
{
	if (!w->pid || w->exited)
		return w->exited;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->exited = true;
	return w->exited;
}

void workload__kill(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0 && !w->exited) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
	}
}
