/*
 * symbols/usdt.h - USDT probes (SystemTap SDT notes, .note.stapsdt) of a binary: listing them,
 * and their argument specs ("-8@%rax 4@%edi") as sampled registers.
 */
#ifndef PERF_SQL_USDT_H
#define PERF_SQL_USDT_H
#include <stdint.h>
#include "core/err.h"

struct usdt_probe {
	char provider[64], name[64];
	uint64_t pc, semaphore;          /* addresses, adjusted by .stapsdt.base */
	uint64_t pc_offset, sema_offset; /* file offsets (0: no semaphore) */
	char args[256];
};

/* All probes of path (malloc'd array, free() it); 0 or -errno with e set. */
int usdt__list(const char *path, struct usdt_probe **out, int *nr_out, struct err *e);
/*
 * Argument k of an args spec as a perf register number (0 ax .. 23 r15) with its size and
 * sign: 0, or -ENOENT when the argument is not a plain register (memory, constant).
 */
int usdt__arg_reg(const char *args, int k, int *perf_reg_out, int *size_out, int *sign_out);
#endif
