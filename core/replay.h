/*
 * core/replay.h - the state of a replay (core/replay.c reads and streams a capture,
 * core/replay_info.c says what one holds). Inside core/ only: others use core/record.h.
 */
#ifndef PERF_SQL_REPLAY_H
#define PERF_SQL_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include "core/capture.h"

struct replay {
	struct capture_reader *cr; /* open from the first pass to the end */
	char *path;
	char **names; /* capture table index -> "system:name" */
	uint32_t nr_names;
	char *meta;
	char *facts;    /* CAP_FACTS: the recording kernel's facts (bpf/facts.h), or NULL */
	char note[384]; /* a cut file: what the front end says ("" if whole) */
	void **held;    /* RECORDS blocks the current window's stores hold (adopted rows) */
	size_t nr_held, cap_held;
};
#endif
