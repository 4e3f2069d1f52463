/*
 * symbols/symtab.h - a sorted table of (start, size, name): the shape of kallsyms, of an ELF
 * .symtab and of a perf-PID.map, searched the same way.
 */
#ifndef PERF_SQL_SYMTAB_H
#define PERF_SQL_SYMTAB_H
#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t start, size; /* size 0: up to the next symbol */
	const char *name;     /* points into the table's string pool */
	int bind;             /* of aliases, the lowest is printed: SYM_GLOBAL, _LOCAL, _WEAK */
};

enum { SYM_GLOBAL, SYM_LOCAL, SYM_WEAK };

struct symtab {
	struct sym *syms;
	size_t nr, cap;
	char *pool; /* names, NUL-separated */
	size_t pool_len, pool_cap;
};

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, const char *name);
/* the same, with the ELF binding; a "name@VERSION" / "name@@VERSION" is stored as name */
int symtab__add_elf(struct symtab *t, uint64_t start, uint64_t size, const char *name, int bind);
/* sorts and fixes the name pointers: call once after the adds */
void symtab__finish(struct symtab *t);
const struct sym *symtab__find(const struct symtab *t, uint64_t addr);
void symtab__free(struct symtab *t);

/* kernel: /proc/kallsyms text symbols (modules included); -errno */
int kallsyms__load(struct symtab *t);
/* an ELF file's function symbols (.symtab, else .dynsym) and its first executable PT_LOAD
 * (vaddr - offset) for file-offset -> vaddr; -errno */
int elf_syms__load(const char *path, struct symtab *t, int64_t *load_bias_out);
#endif
