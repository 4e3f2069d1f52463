/*
 * symbols/dso.c - a mapped file's CFI and DWARF, opened once at their first use (see
 * symbols/dso.h).
 *
 * (1) CFI: the binary's .eh_frame (dwarf_getcfi_elf: it is loaded, so stripping keeps it),
 *     else the .debug_frame of its DWARF. libdw caches the FDEs it has parsed in the
 *     Dwarf_CFI, so each binary's CFI is read once for the whole run, whatever the number of
 *     processes that map it.
 * (2) DWARF: the separate debug file (symbols/debuginfo.c) when there is one, else the
 *     binary itself if it was built with -g.
 * (3) A file that has neither is tried once, then left alone.
 * (4) Every file of symbols/ is opened by dso__open_file(): a regular file, never a FIFO, a
 *     device or a file of /proc or /sys, and without waiting. A capture names paths that
 *     replay opens here (its MAPS and SYMS blocks), and a capture is anyone's.
 */
#include <errno.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "symbols/debuginfo.h"
#include "symbols/dso.h"

/* filesystems whose files are the kernel's, not data: reading one may wait or have effects
 * (/proc/kmsg consumes the kernel's messages) */
static bool pseudo_fs(int fd)
{
	static const long types[] = { PROC_SUPER_MAGIC,   SYSFS_MAGIC,        DEBUGFS_MAGIC,
				      TRACEFS_MAGIC,      SECURITYFS_MAGIC,   BPF_FS_MAGIC,
				      CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC };
	struct statfs fs;

	if (fstatfs(fd, &fs))
		return true;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((long)fs.f_type == types[i])
			return true;
	return false;
}

int dso__open_file(const char *path)
{
	struct stat st;
	int fd;

	/* looked at first, so a device or FIFO is not even opened (opening some has effects) */
	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* O_NONBLOCK: what the name is now may differ from what stat saw, and is checked again
	 * on the descriptor; a FIFO swapped in opens at once instead of waiting for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || pseudo_fs(fd)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* the file of d: by its real path, else (the process is gone) by its path if it is the same */
static int open_dso(const struct dso *d)
{
	int fd = dso__open_file(d->real);
	struct stat st;

	if (fd >= 0 || !strcmp(d->real, d->path))
		return fd;
	fd = dso__open_file(d->path);
	if (fd >= 0 && (fstat(fd, &st) || st.st_dev != d->dev || st.st_ino != d->ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

static Elf *open_elf(const struct dso *d, int *fd_out)
{
	int fd = open_dso(d);
	Elf *elf;

	*fd_out = -1;
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return elf;
}

static bool frame_at(Dwarf_CFI *cfi, uint64_t vaddr, Dwarf_Frame **frame_out)
{
	*frame_out = NULL;
	return cfi && dwarf_cfi_addrframe(cfi, vaddr, frame_out) == 0;
}

Dwarf_CFI *dso__cfi(struct dso *d, uint64_t vaddr, Dwarf_Frame **frame_out)
{
	Dwarf *dw;

	if (!d->cfi_tried) {
		d->cfi_tried = true;
		d->elf = open_elf(d, &d->fd);
		d->eh_cfi = d->elf ? dwarf_getcfi_elf(d->elf) : NULL;
	}
	if (frame_at(d->eh_cfi, vaddr, frame_out))
		return d->eh_cfi;
	/* .debug_frame: only when .eh_frame has nothing for vaddr (built with
	 * -fno-asynchronous-unwind-tables, say) */
	if (!d->dbg_cfi && (dw = dso__dwarf(d)))
		d->dbg_cfi = dwarf_getcfi(dw);
	return frame_at(d->dbg_cfi, vaddr, frame_out) ? d->dbg_cfi : NULL;
}

Dwarf *dso__dwarf(struct dso *d)
{
	char path[4096];
	Elf *elf;
	int fd;

	if (d->dwarf_tried)
		return d->dwarf;
	d->dwarf_tried = true;
	d->dbg_fd = -1;
	if (!(elf = open_elf(d, &fd)))
		return NULL;
	if (debuginfo__find(elf, access(d->real, F_OK) ? d->path : d->real, path, sizeof(path)) ==
		    0 &&
	    (d->dbg_fd = dso__open_file(path)) >= 0) {
		d->dwarf = dwarf_begin(d->dbg_fd, DWARF_C_READ);
		if (d->dwarf)
			d->debug_path = strdup(path);
	}
	if (!d->dwarf) { /* the binary's own .debug_info, if any */
		if (d->dbg_fd >= 0)
			close(d->dbg_fd);
		d->dbg_fd = dup(fd);
		d->dwarf = d->dbg_fd >= 0 ? dwarf_begin(d->dbg_fd, DWARF_C_READ) : NULL;
		if (d->dwarf)
			d->debug_path = strdup(d->path);
	}
	elf_end(elf);
	close(fd);
	return d->dwarf;
}

const char *dso__build_id(struct dso *d)
{
	const uint8_t *id = NULL;
	ssize_t n;
	Elf *elf;
	int fd;

	if (d->build_id_tried)
		return d->build_id;
	d->build_id_tried = true;
	if (!(elf = open_elf(d, &fd)))
		return d->build_id;
	n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	for (ssize_t i = 0; i < n && i < 64; i++)
		sprintf(d->build_id + 2 * i, "%02x", id[i]);
	elf_end(elf);
	close(fd);
	return d->build_id;
}

void dso__close_debug(struct dso *d)
{
	if (d->eh_cfi)
		dwarf_cfi_end(d->eh_cfi);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0 && d->cfi_tried)
		close(d->fd);
	if (d->dwarf)
		dwarf_end(d->dwarf); /* frees dbg_cfi too: dwarf_getcfi's belongs to it */
	if (d->dbg_fd >= 0 && d->dwarf_tried)
		close(d->dbg_fd);
	free(d->debug_path);
	d->eh_cfi = d->dbg_cfi = NULL;
	d->elf = NULL;
	d->dwarf = NULL;
	d->debug_path = NULL;
	d->cfi_tried = d->dwarf_tried = false;
}
