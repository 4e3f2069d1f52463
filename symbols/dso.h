/*
 * symbols/dso.h - one mapped file (a "dso", as perf calls it), shared by every process that
 * maps it: its symbols, and, opened at the first need, its CFI (unwinding) and DWARF (source
 * lines). Inside symbols/ only.
 */
#ifndef PERF_SQL_DSO_H
#define PERF_SQL_DSO_H
#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "symbols/symtab.h"

struct dso {
	char *path;        /* as the process maps it */
	char *real;        /* as perf-sql opens it (/proc/PID/root/PATH in a container) */
	uint64_t dev, ino; /* of real when first seen: path is used instead once PID is gone
				 * (CFI and DWARF open late), if it is the same file */
	struct symtab syms;
	int64_t bias; /* ELF vaddr - file offset of the executable segment */
	bool loaded;
	/* unwinding (symbols/unwind.c) */
	bool cfi_tried;
	int fd;
	Elf *elf;
	Dwarf_CFI *eh_cfi;  /* the binary's .eh_frame */
	Dwarf_CFI *dbg_cfi; /* .debug_frame of the debug information (borrowed from dwarf) */
	/* source lines (symbols/srcline.c) */
	bool dwarf_tried;
	int dbg_fd;
	Dwarf *dwarf;     /* the debug file's DWARF, else the binary's own */
	char *debug_path; /* the file dwarf came from */
	/* pprof mappings (symbols__map_at) */
	bool build_id_tried;
	char build_id[2 * 64 + 1]; /* hex; "" if the file has none */
};

struct symbols;
/* The file pid maps at addr, and addr as an address in that ELF file (vaddr); NULL if none. */
struct dso *symbols__dso_at(struct symbols *sy, uint32_t pid, uint64_t addr, uint64_t *vaddr_out);
/* Whether pid maps addr at all (a file, or anonymous memory such as JIT code). */
bool symbols__mapped(struct symbols *sy, uint32_t pid, uint64_t addr);
/* The unwinding counters of sy (symbols/unwind.c). */
struct unwind_stats *symbols__ustats(struct symbols *sy);
/* The one way symbols/ opens a file (read-only): an fd, or -errno (-EINVAL: not a regular file,
 * or one of /proc, /sys and the like). Never waits: a FIFO or device is not opened at all. */
int dso__open_file(const char *path);
/* Opens what unwinding needs (once); the CFI that covers vaddr, or NULL. */
Dwarf_CFI *dso__cfi(struct dso *d, uint64_t vaddr, Dwarf_Frame **frame_out);
/* Opens the DWARF (once): the debug file's, else the binary's; NULL if there is none. */
Dwarf *dso__dwarf(struct dso *d);
/* The file's GNU build ID in hex, read once; "" if it has none or cannot be read. */
const char *dso__build_id(struct dso *d);
/* Closes both (the symbols stay). */
void dso__close_debug(struct dso *d);
#endif
