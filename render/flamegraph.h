/*
 * render/flamegraph.h - --flame-graph FILE: an SVG flame graph and FILE.folded from the
 * folded_stack() column of a query's result.
 */
#ifndef PERF_SQL_FLAMEGRAPH_H
#define PERF_SQL_FLAMEGRAPH_H
#include <stdbool.h>
#include "core/err.h"

struct flame;

struct flame *flame__new(void);
void flame__free(struct flame *f);
/* Adds folded lines ("a;b;c COUNT\n"...); window (may be NULL) prefixes them in FILE.folded. */
int flame__add(struct flame *f, const char *folded, const char *window);
/* Were any folded lines added? */
bool flame__empty(const struct flame *f);
/* Writes path.folded, then path (SVG), each whole or not at all, by core/outfile.h's rules
 * (a link at either name is refused); 0 or -errno with e set. */
int flame__save(struct flame *f, const char *path, const char *title, struct err *e);
#endif
