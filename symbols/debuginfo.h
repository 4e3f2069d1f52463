/*
 * symbols/debuginfo.h - where a stripped binary's debug file is: by build-id, by
 * .gnu_debuglink, or in the debuginfod client's cache (nothing is downloaded).
 */
#ifndef PERF_SQL_DEBUGINFO_H
#define PERF_SQL_DEBUGINFO_H
#include <stddef.h>
#include <libelf.h>

/*
 * The debug file of elf (opened from path, which may be /proc/PID/root/...): 0 and its path in
 * out, or -ENOENT. A candidate counts only if its build-id is elf's (or, without build-ids, its
 * CRC32 is the one .gnu_debuglink names).
 */
int debuginfo__find(Elf *elf, const char *path, char *out, size_t len);
/* The CRC32 that .gnu_debuglink records (zlib's polynomial), of len bytes after crc. */
unsigned int debuginfo__crc32(unsigned int crc, const void *buf, size_t len);
#endif
