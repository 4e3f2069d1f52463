/*
 * repl/flamegraph.h - --flame-graph FILE: an SVG flame graph and FILE.folded from the
 * folded_stack() column of a query's result.
 */
#ifndef PERF_SQL_FLAMEGRAPH_H
#define PERF_SQL_FLAMEGRAPH_H

struct flame;

struct flame *flame__new(void);
void flame__free(struct flame *f);
/* Adds folded lines ("a;b;c COUNT\n"...); window (may be NULL) prefixes them in FILE.folded. */
int flame__add(struct flame *f, const char *folded, const char *window);
/* Writes path (SVG) and path.folded, each through a temporary file and rename; 0 or -errno. */
int flame__write(struct flame *f, const char *path, const char *title);
#endif
