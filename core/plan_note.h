/*
 * core/plan_note.h - what planning says about a table, kept with it (src->notes): one store
 * for --explain and -v, whichever layer decided it.
 *
 *   PLAN_PATH     how its rows are made: "perf ring: WHY", "aggregated in the kernel ...";
 *                 set by the engine (engine/bpf_pick.c and its kin), the last word stands
 *   PLAN_FILTER   why a kernel filter that was wanted is not set: sentences added while
 *                 planning and opening (core/target.c, core/events.c); none when every one is
 *   PLAN_SQL      the statement as rewritten to read the kernel's groups
 *   PLAN_LISTING  the BPF instructions loaded, or that would be (--explain)
 */
#ifndef PERF_SQL_PLAN_NOTE_H
#define PERF_SQL_PLAN_NOTE_H

enum plan_note { PLAN_PATH, PLAN_FILTER, PLAN_SQL, PLAN_LISTING, PLAN_NR_NOTES };

struct source;

/* Note k of src becomes fmt's text (fmt NULL: none). Out of memory: none. */
void plan_note__set(struct source *src, enum plan_note k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A sentence added to note k ("; " after the ones before). */
void plan_note__add(struct source *src, enum plan_note k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Note k of src becomes text, malloc'd and taken (NULL: none). */
void plan_note__take(struct source *src, enum plan_note k, char *text);
/* Note k of src, NULL if there is none. */
const char *plan_note__of(const struct source *src, enum plan_note k);
/* Frees every note of src (the source's end). */
void plan_note__free_all(struct source *src);

#endif
