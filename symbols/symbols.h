/*
 * symbols/symbols.h - addresses to names: the kernel from /proc/kallsyms, user space from
 * each process's /proc/PID/maps and the ELF symbol tables of the files mapped (libelf),
 * /tmp/perf-PID.map for JITs. Files are cached once, shared by every process mapping them.
 */
#ifndef PERF_SQL_SYMBOLS_H
#define PERF_SQL_SYMBOLS_H
#include <stdint.h>

struct symbols;

struct symbols *symbols__new(void);
void symbols__free(struct symbols *sy);
/* Reads pid's mappings now (while it lives): call when a stack of a new pid is collected. */
void symbols__note_pid(struct symbols *sy, uint32_t pid);
/* An executable mapping of pid as it happens (PERF_RECORD_MMAP2); path NULL forgets pid's
 * mappings (it exec'd). Mappings so learnt make the /proc snapshot unnecessary. */
void symbols__add_map(struct symbols *sy, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *path);
/*
 * The function holding addr (kernel when kernel, else in pid's mappings), or NULL.
 * off_out (may be NULL) gets addr - function start; dso_out (may be NULL) the file's base name.
 */
const char *symbols__resolve(struct symbols *sy, uint32_t pid, uint64_t addr, int kernel,
			     uint64_t *off_out, const char **dso_out);
/* Replaying: pids are another machine's, so /proc is never read for them. */
void symbols__set_offline(struct symbols *sy);
/* The file mappings learnt since *cursor (then advanced), in order, as symbols__add_map() takes
 * them (path NULL: the pid exec'd): what a capture keeps to name its stacks later. */
void symbols__maps_since(struct symbols *sy, size_t *cursor,
			 void (*fn)(void *arg, uint32_t pid, uint64_t start, uint64_t len,
				    uint64_t pgoff, const char *path),
			 void *arg);
/* The symbol tables of the files first mapped since *cursor (then advanced), each as one
 * blob for a capture (CAP_SYMS): a replay names their functions with symbols__add_syms() as
 * the recording did, even when the file is gone or rebuilt by then. */
void symbols__syms_since(struct symbols *sy, size_t *cursor,
			 void (*fn)(void *arg, const void *blob, size_t len), void *arg);
/* Blobs of symbols__syms_since(), one after another: those files' symbols from now on. */
void symbols__add_syms(struct symbols *sy, const void *blob, size_t len);
/* The base name of the file pid maps at addr and addr's offset in it (binary+0xOFFSET: still
 * meaningful after the process is gone), or NULL for no file. */
const char *symbols__file_offset(struct symbols *sy, uint32_t pid, uint64_t addr,
				 uint64_t *off_out);
/* An executable file mapping of a process, as a profile names it (pprof's Mapping). */
struct sym_map {
	uint64_t start, end, pgoff; /* [start, end) maps the file from offset pgoff */
	const char *path;           /* as the process mapped it ("[vdso]" for the vDSO) */
	const char *build_id;       /* the file's GNU build ID in hex, "" if it has none */
};
/* The file mapping of pid holding addr; 0, or -ENOENT (anonymous memory, or no mapping). */
int symbols__map_at(struct symbols *sy, uint32_t pid, uint64_t addr, struct sym_map *out);
/* ELF symbol lookup in one file (tests, breakpoints): vaddr of a function or object, or 0. */
uint64_t symbols__elf_address(const char *path, const char *name, uint64_t *size_out);
/* File offset of a function for a uprobe, or 0. */
uint64_t symbols__elf_file_offset(const char *path, const char *name);
#endif
