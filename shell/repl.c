/*
 * shell/repl.c - the interactive shell: read statements and dot commands, run each query with
 * the current settings, print, and come back to the prompt.
 *
 * (1) Input: on a terminal, readline (callback mode, so a Ctrl-C at the prompt is seen at once)
 *     with history in $XDG_STATE_HOME/perf-sql/history (default ~/.local/state/perf-sql/history,
 *     mode 0600, directories 0700; opened for each line by core/outfile.h's rules, so never
 *     through a link; its last 1000 lines kept). Otherwise stdin is a script, read line by line.
 * (2) A statement ends with ';' (sqlite3_complete): lines accumulate until then. A line starting
 *     with '.' outside a statement is a dot command (shell/commands.c).
 * (3) Each query is query__run(): a new session, so events no longer read are closed and new
 *     ones opened ("re-planning"). One-shot: collect for .duration (default 1 s; a query that
 *     reads no event table answers at once). Watched (.interval MS): one result per window until
 *     Ctrl-C (in a script, which cannot press it, until .duration); on a terminal in table
 *     mode each window redraws the screen, like top; otherwise windows are appended.
 * (4) Ctrl-C while a query runs stops it (it still prints what it collected; a statement
 *     running when it comes is ended: engine/lockdown.h) and returns to the prompt; at the prompt it clears the line; a second Ctrl-C at an empty prompt, .quit or
 *     EOF exits. SIGTERM and SIGHUP exit after the running query stops.
 * (5) Errors do not end the session; in a script the exit status is the first failure's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>
#include "core/outfile.h"
#include "core/tracefs.h"
#include "shell/repl.h"
#include "sqlite/functions.h"
#include "vtab/tp_table.h"

#define PROMPT "perf-sql> "
#define PROMPT_MORE "     ...> "
#define STATS_SQL                                                                                  \
	"SELECT \"table\", sum(received) AS received, sum(lost) AS lost "                          \
	"FROM perf_sql_stats GROUP BY 1 ORDER BY 1"

static volatile sig_atomic_t got_int, got_quit;
static struct repl *rl_repl; /* readline's callbacks take no context pointer */

static void on_signal(int sig)
{
	session__signal(sig);
	if (sig == SIGINT)
		got_int = 1;
	else
		got_quit = 1;
}

static void install_signals(void)
{
	/* no SA_RESTART: a signal must wake select() and getline() */
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int repl__fail(struct repl *r, int status)
{
	if (status && !r->status)
		r->status = status;
	return status;
}

/* ---- history ---- */

#define HISTORY_MAX 1000

/* The history file, read and appended (core/outfile.h: never through a link); on failure,
 * one line, and history is not saved from then on. */
static int history_open(struct repl *r)
{
	struct err e = { 0 };
	int fd = outfile__append(r->history, 0600, &e);

	if (fd < 0) {
		if (e.code == -ELOOP || e.code == -EMLINK) /* a link: the fix is here, not a name */
			snprintf(e.hint, sizeof(e.hint), "remove it, or set XDG_STATE_HOME");
		say("%s; history is not saved%s%s%s", e.msg, e.hint[0] ? " (" : "", e.hint,
		    e.hint[0] ? ")" : "");
		free(r->history);
		r->history = NULL;
	} else {
		fchmod(fd, 0600); /* queries name pids and paths, whatever made the file */
	}
	return fd;
}

struct history_text {
	char *buf;
	size_t start, len;
};

static int put_history(FILE *f, void *ctx)
{
	const struct history_text *t = ctx;

	return fwrite(t->buf + t->start, 1, t->len, f) == t->len ? 0 : -EIO;
}

static void history_init(struct repl *r)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int fd;

	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/perf-sql", xdg);
	else if (home && home[0])
		snprintf(dir, sizeof(dir), "%s/.local/state/perf-sql", home);
	else
		return;
	using_history();
	stifle_history(HISTORY_MAX);
	if (mkdir_p(dir) || asprintf(&r->history, "%s/history", dir) < 0) {
		say("%s: cannot create it; history is not saved", dir);
		r->history = NULL;
		return;
	}
	fd = history_open(r);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		line[n - (line[n - 1] == '\n')] = '\0';
		add_history(line);
	}
	free(line);
	fclose(f);
}

/* at exit: the file keeps its last HISTORY_MAX lines (a new file renamed over it) */
static void history_trim(struct repl *r)
{
	struct history_text t = { 0 };
	struct err e = { 0 };
	struct stat st;
	int fd = history_open(r), nl = 0;

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size > 0 && (t.buf = malloc((size_t)st.st_size)) &&
	    pread(fd, t.buf, (size_t)st.st_size, 0) == st.st_size) {
		for (t.start = (size_t)st.st_size; t.start > 0; t.start--)
			if (t.buf[t.start - 1] == '\n' && ++nl > HISTORY_MAX)
				break;
		t.len = (size_t)st.st_size - t.start;
		if (t.start && outfile__replace(r->history, 0600, put_history, &t, &e))
			report(&e);
	}
	free(t.buf);
	close(fd);
}

static void history_add(struct repl *r, const char *entry)
{
	HIST_ENTRY *last;
	char *one = strdup(entry);
	int fd;

	if (!r->tty || !one)
		goto out;
	for (char *p = one; *p; p++)
		if (*p == '\n')
			*p = ' '; /* one statement, one history line */
	for (size_t n = strlen(one); n && one[n - 1] == ' '; n--)
		one[n - 1] = '\0';
	last = history_length ? history_get(history_base + history_length - 1) : NULL;
	if (!one[0] || (last && !strcmp(last->line, one)))
		goto out;
	add_history(one);
	if (r->history && (fd = history_open(r)) >= 0) {
		if (dprintf(fd, "%s\n", one) < 0)
			say("%s: %s", r->history, strerror(errno));
		close(fd);
	}
out:
	free(one);
}

/* ---- watched queries on a terminal: each window redraws the screen ---- */

struct frame {
	FILE *tty;
	long interval_ms;
	char window[64]; /* the window being drawn: its statements share one screen */
};

static ssize_t frame_write(void *ctx, const char *buf, size_t n)
{
	static const char key[] = "-- window ";
	struct frame *fr = ctx;
	size_t k = sizeof(key) - 1;

	if (n > k && !memcmp(buf, key, k)) {
		size_t len = strcspn(buf + k, "\n");

		if (len >= sizeof(fr->window))
			len = sizeof(fr->window) - 1;
		if (strncmp(fr->window, buf + k, len) || fr->window[len]) {
			memcpy(fr->window, buf + k, len);
			fr->window[len] = '\0';
			fprintf(fr->tty, "\033[H\033[2J(every %ld ms; Ctrl-C stops)\n",
				fr->interval_ms);
		}
	}
	if (fwrite(buf, 1, n, fr->tty) != n || fflush(fr->tty))
		return -1;
	return (ssize_t)n;
}

static FILE *frame__open(struct frame *fr)
{
	FILE *f = fopencookie(fr, "w", (cookie_io_functions_t){ .write = frame_write });

	/* fully buffered: the output module's flush per statement hands us whole statements */
	if (f && setvbuf(f, NULL, _IOFBF, 1 << 20)) {
		fclose(f);
		return NULL;
	}
	return f;
}

/* ---- running a query ---- */

struct table_probe {
	struct catalog *cat;
	bool found;
};

static int probe_read(void *ctx, int action, const char *a, const char *b, const char *c,
		      const char *d)
{
	struct table_probe *p = ctx;

	if (action == SQLITE_READ && a && catalog__find(p->cat, a))
		p->found = true;
	return SQLITE_OK;
}

/* Does sql read an event table? (Not: it answers at once.) Unsure counts as yes. */
static bool reads_events(struct repl *r, const char *sql)
{
	struct table_probe p = { .cat = r->cat ? r->cat->cat : NULL };
	const char *tail;

	if (!r->db || !p.cat)
		return true;
	sqlite3_set_authorizer(r->db, probe_read, &p);
	while (sql && *sql && !p.found) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(r->db, sql, -1, &st, &tail) != SQLITE_OK)
			p.found = true; /* query__run reports the error */
		sqlite3_finalize(st);
		sql = tail;
	}
	sqlite3_set_authorizer(r->db, NULL, NULL);
	return p.found;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the query r's settings describe, for sql; true if it reads an event table */
static bool query_settings(struct repl *r, struct run *q, const char *sql, bool explain)
{
	bool watched = r->interval_ms > 0, events = !explain && reads_events(r, sql);

	*q = r->q;
	q->q.sql = sql;
	q->out_name = r->out_path[0] ? r->out_path : NULL; /* a failed write names it */
	q->schema = NULL;
	q->explain = explain;
	memcpy(q->q.params, r->last_params, sizeof(q->q.params));
	q->q.nr_params = r->nr_last_params;
	q->q.so.cpu_list = r->cpu_list[0] ? r->cpu_list : NULL;
	q->q.so.pid_list = r->pid_list[0] ? r->pid_list : NULL;
	q->q.so.interval_ms = r->interval_ms;
	if (r->freq_hz)
		q->q.so.freq = (int)r->freq_hz;
	if (watched) /* until Ctrl-C; a script cannot press it: .duration ends it there */
		q->q.so.duration_ms = r->tty ? 0 : r->duration_ms;
	else
		q->q.so.duration_ms = events ? r->duration_ms : 0;
	q->out.headers_done = 0;
	q->out.broken_pipe = false;
	return events;
}

/*
 * A session without a workload closes fd 0 when it ends (its workload fds start at 0): put
 * stdin back, or the next prompt or script line reads from a closed descriptor.
 */
int repl__query(struct repl *r, struct run *q)
{
	int status;

	session_stop = 0; /* a Ctrl-C that stopped the last query does not stop this one */
	status = run__query(q);

	if (r->stdin_copy >= 0 && fcntl(STDIN_FILENO, F_GETFD) < 0 && errno == EBADF)
		dup2(r->stdin_copy, STDIN_FILENO);
	return status;
}

static void forget_params(struct repl *r)
{
	for (int i = 0; i < r->nr_last_params; i++) {
		free((char *)r->last_params[i].name);
		free((char *)r->last_params[i].text);
	}
	r->nr_last_params = 0;
}

/* sql and params become the last query's (either may already be it) */
static void keep_last(struct repl *r, const char *sql, const struct query_param *params, int nr)
{
	if (sql != r->last_sql) {
		free(r->last_sql);
		r->last_sql = strdup(sql);
	}
	if (params == r->last_params)
		return;
	forget_params(r);
	for (int i = 0; i < nr && i < 32; i++) {
		struct query_param *p = &r->last_params[r->nr_last_params++];

		*p = params[i];
		p->name = strdup(params[i].name);
		p->text = params[i].text ? strdup(params[i].text) : NULL;
	}
}

int repl__run_sql(struct repl *r, const char *sql, const struct query_param *params, int nr,
		  bool explain)
{
	struct frame fr = { .tty = r->q.out.f, .interval_ms = r->interval_ms };
	struct run q;
	char *with_stats = NULL;
	double start;

	keep_last(r, sql, params, nr);
	sql = r->last_sql;
	if (!sql)
		return repl__fail(r, EXIT_ERR);
	if (query_settings(r, &q, sql, explain) && r->stats)
		q.q.sql = with_stats = sqlite3_mprintf("%s\n;" STATS_SQL, sql);
	if (r->interval_ms && r->tty && !explain && q.out.mode == OUT_TABLE &&
	    isatty(fileno(q.out.f)) && !(q.out.f = frame__open(&fr)))
		q.out.f = r->q.out.f;
	start = now_ms();
	r->last_status = repl__query(r, &q);
	r->last_ms = now_ms() - start;
	if (q.out.f != r->q.out.f)
		fclose(q.out.f);
	fflush(r->q.out.f);
	sqlite3_free(with_stats);
	if (r->timer)
		printf("time: %.3f s\n", r->last_ms / 1e3);
	fflush(stdout);
	got_int = 0; /* it stopped the query; it is not a Ctrl-C at the prompt */
	return repl__fail(r, r->last_status);
}

/* ---- input ---- */

static bool blank_or_comment(const char *line)
{
	line += strspn(line, " \t\r");
	return !*line || !strncmp(line, "--", 2);
}

/* One line of input: a dot command, or part of a statement that runs once it ends with ';'. */
static void feed(struct repl *r, const char *line)
{
	size_t had = r->pending ? strlen(r->pending) : 0, n = strlen(line);
	char *buf;

	if (!r->pending && blank_or_comment(line))
		return;
	if (!r->pending && line[strspn(line, " \t")] == '.') {
		history_add(r, line);
		repl__fail(r, commands__run(r, line + strspn(line, " \t")));
		return;
	}
	if (!(buf = realloc(r->pending, had + n + 2))) {
		say("out of memory");
		repl__fail(r, EXIT_ERR);
		return;
	}
	memcpy(buf + had, line, n);
	strcpy(buf + had + n, "\n");
	r->pending = buf;
	if (!sqlite3_complete(buf))
		return;
	r->pending = NULL;
	history_add(r, buf);
	repl__run_sql(r, buf, NULL, 0, false);
	free(buf);
}

static void script_loop(struct repl *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while (!r->quit && !got_quit) {
		if ((n = getline(&line, &cap, stdin)) < 0) {
			if (errno != EINTR || !got_int || got_quit)
				break;
			clearerr(stdin); /* Ctrl-C while reading: nothing to stop */
			got_int = 0;
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		feed(r, line);
	}
	free(line);
	if (r->pending && !r->quit && !got_quit) {
		char *last = r->pending; /* a last statement without ';' still runs */

		r->pending = NULL;
		if (!blank_or_comment(last))
			repl__run_sql(r, last, NULL, 0, false);
		free(last);
	}
}

static void on_line(char *line)
{
	struct repl *r = rl_repl;

	rl_callback_handler_remove(); /* a cooked terminal while a query runs: Ctrl-C is a signal */
	if (!line) {
		fputc('\n', stdout);
		r->quit = true;
		return;
	}
	r->armed = false;
	feed(r, line);
	free(line);
	if (!r->quit)
		rl_callback_handler_install(r->pending ? PROMPT_MORE : PROMPT, on_line);
}

/* Ctrl-C at the prompt: clear the line; a second one at an empty prompt exits. */
static void prompt_interrupt(struct repl *r)
{
	bool empty = !rl_line_buffer[0] && !r->pending;

	if (empty && r->armed) {
		fputc('\n', stdout);
		r->quit = true;
		return;
	}
	r->armed = empty;
	free(r->pending);
	r->pending = NULL;
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	printf("^C%s\n", empty ? " (Ctrl-C again or .quit to exit)" : "");
	rl_set_prompt(PROMPT);
	rl_on_new_line();
	rl_redisplay();
}

static void tty_loop(struct repl *r)
{
	sigset_t ints, old;

	sigemptyset(&ints);
	sigaddset(&ints, SIGINT);
	sigaddset(&ints, SIGTERM);
	sigaddset(&ints, SIGHUP);
	rl_repl = r;
	rl_catch_signals = 0;
	rl_callback_handler_install(PROMPT, on_line);
	while (!r->quit) {
		fd_set fds;
		int n = 0;

		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		/* the flags are tested with signals blocked, pselect unblocks them: no lost wakeup */
		sigprocmask(SIG_BLOCK, &ints, &old);
		if (!got_int && !got_quit)
			n = pselect(STDIN_FILENO + 1, &fds, NULL, NULL, NULL, &old);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (got_quit)
			break;
		if (got_int) {
			got_int = 0;
			prompt_interrupt(r);
		} else if (n > 0) {
			rl_callback_read_char();
		} else if (n < 0 && errno != EINTR) {
			break;
		}
	}
	rl_callback_handler_remove();
}

/* ---- setup ---- */

static void open_catalog(struct repl *r)
{
	struct session_opts so = { 0 };
	struct err e = { 0 };

	if (!(r->cat = session__new(&so, &e))) {
		report(&e);
		return;
	}
	if (sqlite3_open_v2(":memory:", &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ||
	    vtabs__register(r->db, r->cat) || sql_functions__register(r->db, r->cat)) {
		say("sqlite: %s; completion and .tables are off",
		    r->db ? sqlite3_errmsg(r->db) : "out of memory");
		sqlite3_close(r->db);
		r->db = NULL;
	}
}

int repl__main(struct run *q)
{
	struct repl r = {
		.q = *q,
		.tty = isatty(STDIN_FILENO),
		.duration_ms = q->q.so.duration_ms ? q->q.so.duration_ms : 1000,
		.interval_ms = q->q.so.interval_ms,
		.freq_hz = q->q.so.freq,
		.stdin_copy = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3),
	};

	snprintf(r.cpu_list, sizeof(r.cpu_list), "%s", q->q.so.cpu_list ? q->q.so.cpu_list : "");
	snprintf(r.pid_list, sizeof(r.pid_list), "%s", q->q.so.pid_list ? q->q.so.pid_list : "");
	install_signals();
	open_catalog(&r);
	if (r.tty) {
		history_init(&r);
		complete__init(&r);
		printf("perf-sql: %d tables. \".help\" lists commands, \".tables GLOB\" finds "
		       "tables; "
		       "end queries with ';'.\n",
		       r.cat ? catalog__nr_events(r.cat->cat) : 0);
		tty_loop(&r);
	} else {
		script_loop(&r);
	}
	if (r.history)
		history_trim(&r);
	if (r.own_out)
		fclose(r.q.out.f);
	free(r.history);
	free(r.pending);
	free(r.last_sql);
	forget_params(&r);
	sqlite3_close(r.db);
	session__close(r.cat);
	if (r.stdin_copy >= 0)
		close(r.stdin_copy);
	return r.tty ? 0 : r.status;
}
