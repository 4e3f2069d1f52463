/*
 * symbols/srcline.h - source file and line of a code address, and the functions inlined
 * there, from the DWARF of the binary or of its debug file.
 */
#ifndef PERF_SQL_SRCLINE_H
#define PERF_SQL_SRCLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;
struct dso;

struct srcline {
	const char *func; /* an inlined function's name; NULL for the function holding the code
			     * (its name is the symbol table's) */
	const char *file; /* as the line table names it: relative to dir when not absolute */
	const char *dir;  /* the compilation directory (DW_AT_comp_dir), or NULL */
	int line;
	bool inlined;
};

/*
 * addr of pid (a code address: a return address must be given minus one): its location,
 * innermost first. Without inlines, one entry (the line); with them, one per inlined call, then
 * the function they were inlined into at its call site. 0: no line information.
 */
size_t symbols__srcline(struct symbols *sy, uint32_t pid, uint64_t addr, bool inlines,
			struct srcline *out, size_t max);
/* The same for an address in an ELF file (vaddr). */
size_t dso__srcline(struct dso *d, uint64_t vaddr, bool inlines, struct srcline *out, size_t max);
#endif
