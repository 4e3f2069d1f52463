/*
 * symbols/symbols.c - resolving addresses (see symbols/symbols.h).
 *
 * HOW IT WORKS
 * (1) Kernel: /proc/kallsyms, loaded at the first kernel frame.
 * (2) Processes: symbols__note_pid() snapshots /proc/PID/maps (executable mappings) when the
 *     first stack or mapping of a pid is collected, and loads each file's symbols then,
 *     through /proc/PID/root (containers), while the process lives; later mappings come from
 *     the sideband's MMAP2 records (newest first), and an exec forgets the old ones: a
 *     short-lived process keeps its names.
 * (3) Files (dsos) are cached by path and shared by every process that maps them; an address
 *     becomes file offset (addr - start + pgoff), then a vaddr (+ load bias), then a symbol.
 * (4) Anonymous executable memory is looked up in /tmp/perf-PID.map (JITs), if there is one.
 * (5) [vdso] mappings are perf-sql's own vDSO image, copied into a memfd (vdso_file()).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/test_hook.h"
#include "symbols/dso.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"
#include "symbols/unwind.h"

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso; /* NULL: anonymous (perf map) */
};

struct proc {
	uint32_t pid;
	struct map *maps;
	size_t nr;
	struct symtab jit; /* /tmp/perf-PID.map */
};

struct symbols {
	struct symtab kernel;
	bool kernel_loaded;
	struct dso **dsos;
	size_t nr_dsos;
	struct proc *procs;
	size_t nr_procs, cap_procs;
	size_t last_proc; /* index of the last one found: stacks come in runs of a pid */
	bool vdso_tried;
	int vdso_fd;  /* a memfd holding perf-sql's own vDSO image (-1: none) */
	bool offline; /* replaying: no /proc of this machine's processes */
	/* every file mapping learnt, in order (dso NULL: the pid exec'd), for captures */
	struct maplog {
		uint32_t pid;
		uint64_t start, end, pgoff;
		struct dso *dso;
	} * log;
	size_t nr_log, cap_log;
	struct unwind_stats ustats;
};

struct unwind_stats *symbols__ustats(struct symbols *sy) { return &sy->ustats; }

struct symbols *symbols__new(void) { return calloc(1, sizeof(struct symbols)); }

void symbols__free(struct symbols *sy)
{
	if (!sy)
		return;
	symtab__free(&sy->kernel);
	for (size_t i = 0; i < sy->nr_dsos; i++) {
		symtab__free(&sy->dsos[i]->syms);
		dso__close_debug(sy->dsos[i]);
		free(sy->dsos[i]->path);
		free(sy->dsos[i]->real);
		free(sy->dsos[i]);
	}
	for (size_t i = 0; i < sy->nr_procs; i++) {
		free(sy->procs[i].maps);
		symtab__free(&sy->procs[i].jit);
	}
	free(sy->dsos);
	free(sy->procs);
	if (sy->vdso_tried && sy->vdso_fd >= 0)
		close(sy->vdso_fd);
	free(sy->log);
	free(sy);
}

/* the size of perf-sql's own vDSO mapping, which starts at base */
static size_t own_vdso_size(unsigned long base)
{
	unsigned long long start, end;
	char line[512];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    start == base)
			size = (size_t)(end - start);
	if (f)
		fclose(f);
	return size;
}

/*
 * The vDSO as a file: every 64-bit process of one kernel maps the same image, so perf-sql's own
 * (AT_SYSINFO_EHDR) is copied once into a memfd, whose /proc/self/fd path opens as any binary:
 * its symbols (.dynsym) and .eh_frame name and unwind frames in clock_gettime() and the like.
 */
static bool vdso_file(struct symbols *sy, char *out, size_t len)
{
	unsigned long base;
	size_t size;
	int fd;

	if (!sy->vdso_tried) {
		sy->vdso_tried = true;
		sy->vdso_fd = -1;
		base = getauxval(AT_SYSINFO_EHDR);
		size = base ? own_vdso_size(base) : 0;
		fd = size ? memfd_create("perf-sql-vdso", MFD_CLOEXEC) : -1;
		if (fd >= 0 && write(fd, (const void *)base, size) == (ssize_t)size)
			sy->vdso_fd = fd;
		else if (fd >= 0)
			close(fd);
	}
	if (sy->vdso_fd < 0)
		return false;
	snprintf(out, len, "/proc/self/fd/%d", sy->vdso_fd);
	return true;
}

static struct dso *dso_get(struct symbols *sy, const char *path, uint32_t pid)
{
	char real[4200];
	struct dso *d, **n;
	struct stat st;
	const char *hold;
	int fd;

	for (size_t i = 0; i < sy->nr_dsos; i++)
		if (!strcmp(sy->dsos[i]->path, path))
			return sy->dsos[i];
	d = calloc(1, sizeof(*d));
	n = realloc(sy->dsos, (sy->nr_dsos + 1) * sizeof(*n));
	if (!d || !n) {
		free(d);
		return NULL;
	}
	sy->dsos = n;
	d->path = strdup(path);
	d->fd = d->dbg_fd = -1;
	/* through the process's root, so a container's files are the ones it maps; a replay's
	 * pids are another machine's (or time's): the path as it is */
	snprintf(real, sizeof(real), "/proc/%u/root%s", pid, path);
	if (path[0] != '/' && !vdso_file(sy, real, sizeof(real)))
		snprintf(real, sizeof(real), "/nonexistent");
	else if (path[0] == '/' && (sy->offline || access(real, R_OK)))
		snprintf(real, sizeof(real), "%s", path);
	/* the file's identity from an fd held over the load: the process may end meanwhile, and
	 * the CFI, read later through path (symbols/dso.c), must be this file's (a stat after the
	 * load found /proc/PID/root gone now and then under load: no CFI, garbage frames kept) */
	fd = dso__open_file(real);
	if (fd >= 0 && !fstat(fd, &st)) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	}
	d->loaded = elf_syms__load(real, &d->syms, &d->bias) == 0;
	if ((hold = TEST_HOOK("DSO_LOADED_MS"))) /* tests: the process ends right after the load */
		usleep((useconds_t)atoi(hold) * 1000);
	/* the process may end between access() and the load, taking /proc/PID/root with it: then
	 * the path as it is outside, as for a process already gone (else the file stays nameless) */
	if (!d->loaded && path[0] == '/' && strcmp(real, path) && access(real, F_OK)) {
		snprintf(real, sizeof(real), "%s", path);
		d->loaded = elf_syms__load(real, &d->syms, &d->bias) == 0;
	}
	d->real = strdup(real);
	if (fd < 0 && !stat(real, &st)) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	}
	if (fd >= 0)
		close(fd);
	sy->dsos[sy->nr_dsos++] = d;
	return d;
}

/* the dso of a mapping's file: a path, or the vDSO; NULL for anonymous memory */
static struct dso *map_dso(struct symbols *sy, const char *path, uint32_t pid)
{
	return path[0] == '/' || !strcmp(path, "[vdso]") ? dso_get(sy, path, pid) : NULL;
}

static struct proc *proc_find(struct symbols *sy, uint32_t pid)
{
	if (sy->last_proc < sy->nr_procs && sy->procs[sy->last_proc].pid == pid)
		return &sy->procs[sy->last_proc];
	for (size_t i = 0; i < sy->nr_procs; i++)
		if (sy->procs[i].pid == pid) {
			sy->last_proc = i;
			return &sy->procs[i];
		}
	return NULL;
}

static void load_jit_map(struct proc *p)
{
	char path[64], line[600], name[512];
	unsigned long long start, size;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->pid);
	fd = dso__open_file(path); /* anyone may make a file in /tmp: a FIFO there is not read */
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx %511[^\n]", &start, &size, name) == 3)
			symtab__add(&p->jit, start, size, name);
	fclose(f);
	symtab__finish(&p->jit);
}

static struct proc *proc_new(struct symbols *sy, uint32_t pid)
{
	struct proc *p;

	if (sy->nr_procs == sy->cap_procs) {
		size_t ncap = sy->cap_procs ? sy->cap_procs * 2 : 64;
		struct proc *n = realloc(sy->procs, ncap * sizeof(*n));

		if (!n)
			return NULL;
		sy->procs = n;
		sy->cap_procs = ncap;
	}
	p = &sy->procs[sy->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static void log_map(struct symbols *sy, uint32_t pid, const struct map *m)
{
	if (sy->nr_log == sy->cap_log) {
		size_t ncap = sy->cap_log ? sy->cap_log * 2 : 256;
		struct maplog *n = realloc(sy->log, ncap * sizeof(*n));

		if (!n)
			return;
		sy->log = n;
		sy->cap_log = ncap;
	}
	sy->log[sy->nr_log++] = (struct maplog){ pid, m ? m->start : 0, m ? m->end : 0,
						 m ? m->pgoff : 0, m ? m->dso : NULL };
}

static void map_add(struct symbols *sy, struct proc *p, struct map m)
{
	struct map *n = realloc(p->maps, (p->nr + 1) * sizeof(*n));

	if (m.dso)
		log_map(sy, p->pid, &m);
	if (!n)
		return;
	p->maps = n;
	/* newest first: a later mapping of the same range wins */
	memmove(p->maps + 1, p->maps, p->nr * sizeof(*n));
	p->maps[0] = m;
	p->nr++;
}

void symbols__add_map(struct symbols *sy, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *path)
{
	struct proc *p = proc_find(sy, pid);

	if (!path) {
		if (p) {
			p->nr = 0;
			log_map(sy, pid, NULL);
		}
		return;
	}
	if (!p) { /* first news of pid: what it mapped before, then this */
		symbols__note_pid(sy, pid);
		p = proc_find(sy, pid);
		if (!p && !(p = proc_new(sy, pid)))
			return;
	}
	map_add(sy, p, (struct map){ start, start + len, pgoff, map_dso(sy, path, pid) });
}

void symbols__note_pid(struct symbols *sy, uint32_t pid)
{
	unsigned long long start, end, off;
	char path[64], line[4400], perms[8], file[4096];
	struct proc *p;
	FILE *f;

	if (!pid || proc_find(sy, pid) || !(p = proc_new(sy, pid)) || sy->offline)
		return;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file) < 4 ||
		    perms[2] != 'x')
			continue;
		map_add(sy, p, (struct map){ start, end, off, map_dso(sy, file, pid) });
	}
	fclose(f);
	load_jit_map(p);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static struct proc *proc_of(struct symbols *sy, uint32_t pid)
{
	struct proc *p = proc_find(sy, pid);

	if (!p) {
		symbols__note_pid(sy, pid);
		p = proc_find(sy, pid);
	}
	return p;
}

static struct map *map_of(struct proc *p, uint64_t addr)
{
	for (size_t i = 0; p && i < p->nr; i++) /* newest first */
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

struct dso *symbols__dso_at(struct symbols *sy, uint32_t pid, uint64_t addr, uint64_t *vaddr_out)
{
	struct map *m = map_of(proc_of(sy, pid), addr);

	if (!m || !m->dso)
		return NULL;
	*vaddr_out = addr - m->start + m->pgoff + (uint64_t)m->dso->bias;
	return m->dso;
}

int symbols__map_at(struct symbols *sy, uint32_t pid, uint64_t addr, struct sym_map *out)
{
	struct map *m = map_of(proc_of(sy, pid), addr);

	if (!m || !m->dso)
		return -ENOENT;
	*out = (struct sym_map){ m->start, m->end, m->pgoff, m->dso->path, dso__build_id(m->dso) };
	return 0;
}

void symbols__set_offline(struct symbols *sy) { sy->offline = true; }

void symbols__maps_since(struct symbols *sy, size_t *cursor,
			 void (*fn)(void *arg, uint32_t pid, uint64_t start, uint64_t len,
				    uint64_t pgoff, const char *path),
			 void *arg)
{
	for (; *cursor < sy->nr_log; (*cursor)++) {
		const struct maplog *l = &sy->log[*cursor];

		fn(arg, l->pid, l->start, l->end - l->start, l->pgoff,
		   l->dso ? l->dso->path : NULL);
	}
}

/* CAP_SYMS entry of one file: u32 path len, u32 nr, i64 bias, path, nr x {u64 start, size,
 * u32 bind, u32 name len, name} */
static uint8_t *syms_blob(const struct dso *d, size_t *len_out)
{
	size_t plen = strlen(d->path), len = 16 + plen, off;
	uint32_t hdr[2] = { (uint32_t)plen, (uint32_t)d->syms.nr };
	uint8_t *b;

	for (size_t i = 0; i < d->syms.nr; i++)
		len += 24 + strlen(d->syms.syms[i].name);
	if (!(b = malloc(len)))
		return NULL;
	memcpy(b, hdr, 8);
	memcpy(b + 8, &d->bias, 8);
	memcpy(b + 16, d->path, plen);
	off = 16 + plen;
	for (size_t i = 0; i < d->syms.nr; i++) {
		const struct sym *y = &d->syms.syms[i];
		uint32_t f[2] = { (uint32_t)y->bind, (uint32_t)strlen(y->name) };

		memcpy(b + off, &y->start, 8);
		memcpy(b + off + 8, &y->size, 8);
		memcpy(b + off + 16, f, 8);
		memcpy(b + off + 24, y->name, f[1]);
		off += 24 + f[1];
	}
	*len_out = len;
	return b;
}

void symbols__syms_since(struct symbols *sy, size_t *cursor,
			 void (*fn)(void *arg, const void *blob, size_t len), void *arg)
{
	for (; *cursor < sy->nr_dsos; (*cursor)++) {
		const struct dso *d = sy->dsos[*cursor];
		uint8_t *b;
		size_t len;

		if (d->loaded && (b = syms_blob(d, &len))) {
			fn(arg, b, len);
			free(b);
		}
	}
}

/* one CAP_SYMS entry into t (finished); its length, or 0 if it is damaged */
static size_t syms_parse(const uint8_t *b, size_t len, struct symtab *t, char *path,
			 size_t plen_max, int64_t *bias_out)
{
	uint32_t hdr[2];
	size_t off;

	if (len < 16)
		return 0;
	memcpy(hdr, b, 8);
	memcpy(bias_out, b + 8, 8);
	if (hdr[0] >= plen_max || hdr[0] > len - 16)
		return 0;
	memcpy(path, b + 16, hdr[0]);
	path[hdr[0]] = '\0';
	off = 16 + hdr[0];
	for (uint32_t i = 0; i < hdr[1]; i++) {
		uint64_t start, size;
		uint32_t f[2];
		char name[512];

		if (len - off < 24)
			return 0;
		memcpy(&start, b + off, 8);
		memcpy(&size, b + off + 8, 8);
		memcpy(f, b + off + 16, 8);
		if (f[1] >= sizeof(name) || f[1] > len - off - 24)
			return 0;
		memcpy(name, b + off + 24, f[1]);
		name[f[1]] = '\0';
		if (symtab__add_elf(t, start, size, name, (int)f[0]))
			return 0;
		off += 24 + f[1];
	}
	symtab__finish(t);
	return off;
}

void symbols__add_syms(struct symbols *sy, const void *blob, size_t len)
{
	const uint8_t *b = blob;
	char path[4096];

	for (size_t off = 0, n; off < len; off += n) {
		struct symtab t = { 0 };
		int64_t bias;
		struct dso *d;

		if (!(n = syms_parse(b + off, len - off, &t, path, sizeof(path), &bias)) ||
		    !(d = dso_get(sy, path, 0))) {
			symtab__free(&t);
			return;
		}
		/* the names the recording saw: the file may be gone, or another build by now */
		symtab__free(&d->syms);
		d->syms = t;
		d->bias = bias;
		d->loaded = true;
	}
}

bool symbols__mapped(struct symbols *sy, uint32_t pid, uint64_t addr)
{
	return map_of(proc_of(sy, pid), addr) != NULL;
}

const char *symbols__file_offset(struct symbols *sy, uint32_t pid, uint64_t addr, uint64_t *off_out)
{
	struct map *m = map_of(proc_of(sy, pid), addr);

	if (!m || !m->dso)
		return NULL;
	*off_out = addr - m->start + m->pgoff;
	return base_name(m->dso->path);
}

const char *symbols__resolve(struct symbols *sy, uint32_t pid, uint64_t addr, int kernel,
			     uint64_t *off_out, const char **dso_out)
{
	const struct sym *s = NULL;
	struct proc *p;
	struct map *m;

	if (dso_out)
		*dso_out = NULL;
	if (kernel) {
		if (!sy->kernel_loaded) {
			kallsyms__load(&sy->kernel);
			sy->kernel_loaded = true;
		}
		s = symtab__find(&sy->kernel, addr);
		if (dso_out)
			*dso_out = "kernel";
	} else if ((m = map_of(p = proc_of(sy, pid), addr)) && !m->dso) {
		s = symtab__find(&p->jit, addr);
	} else if (m) {
		if (dso_out)
			*dso_out = base_name(m->dso->path);
		addr = addr - m->start + m->pgoff + (uint64_t)m->dso->bias;
		s = symtab__find(&m->dso->syms, addr);
	}
	if (!s)
		return NULL;
	if (off_out)
		*off_out = addr - s->start;
	return s->name;
}

/* any symbol (function or object) of an ELF file, for breakpoints and uprobes */
static int elf_lookup(const char *path, const char *name, GElf_Sym *out, Elf **elf_out, int *fd_out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = dso__open_file(path);

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(data, (int)i, out) || !out->st_value)
				continue;
			n = elf_strptr(elf, sh.sh_link, out->st_name);
			if (n && !strcmp(n, name)) {
				*elf_out = elf;
				*fd_out = fd;
				return 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return -ENOENT;
}

uint64_t symbols__elf_address(const char *path, const char *name, uint64_t *size_out)
{
	GElf_Sym sym;
	Elf *elf;
	int fd;

	if (elf_lookup(path, name, &sym, &elf, &fd))
		return 0;
	if (size_out)
		*size_out = sym.st_size;
	elf_end(elf);
	close(fd);
	return sym.st_value;
}

uint64_t symbols__elf_file_offset(const char *path, const char *name)
{
	uint64_t off = 0;
	GElf_Sym sym;
	size_t nph;
	Elf *elf;
	int fd;

	if (elf_lookup(path, name, &sym, &elf, &fd))
		return 0;
	if (!elf_getphdrnum(elf, &nph))
		for (size_t i = 0; i < nph && !off; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    sym.st_value >= ph.p_vaddr && sym.st_value < ph.p_vaddr + ph.p_memsz)
				off = sym.st_value - ph.p_vaddr + ph.p_offset;
		}
	elf_end(elf);
	close(fd);
	return off;
}
