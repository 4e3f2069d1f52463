/*
 * core/outfile.h - the one way perf-sql opens a file to write: -o reports, REPL .output files,
 * flame graphs and FILE.folded, heatmaps, captures, saved profilers and the REPL history. Safe
 * in a shared directory such as /tmp, where anyone may plant a name before perf-sql runs.
 *
 *   FILE *f = outfile__create("/tmp/report.csv", 0644, &e);       rows stream into it
 *   ret = outfile__replace("/tmp/cpu.svg", 0644, write_svg, ctx, &e);   whole or absent
 *   fd = outfile__append(history_path, 0600, &e);                 read, then appended to
 *
 * (1) Nothing is written through a link perf-sql did not create: a PATH that is a symbolic
 *     link, or a regular file with more than one hard link, is refused (e: the path, why, and
 *     how to fix it), and so is a directory, a block device or a socket.
 * (2) A new file is made exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode & ~umask) under a fresh
 *     name in PATH's directory, then renamed over PATH: at once (outfile__create: a streaming
 *     report is read with `tail -F` while it grows, and a killed run leaves its rows) or after
 *     fn wrote it all (outfile__replace). A rename replaces a name; it never writes through it.
 * (3) A FIFO or a character device at PATH is opened for writing as it is (no O_CREAT, no
 *     O_TRUNC, O_NOFOLLOW; fstat checks it is the one looked at). /dev/stdout, /dev/stderr,
 *     /dev/fd/N and /proc/self/fd/N name the descriptor itself: a dup, whatever it is.
 * (4) outfile__append opens an existing regular file of one link with O_APPEND|O_NOFOLLOW and
 *     checks the descriptor (fstat: same file, still one link), or creates it exclusively.
 * (5) PATH's directories are taken as named (they are the caller's): only the last component
 *     is checked, and every step works relative to one descriptor of the directory.
 */
#ifndef PERF_SQL_OUTFILE_H
#define PERF_SQL_OUTFILE_H
#include <stdio.h>
#include <sys/types.h>
#include "core/err.h"

/* A stream to write (see (2), (3)); NULL with e set. */
FILE *outfile__create(const char *path, mode_t mode, struct err *e);
/* fn(f, ctx) writes the contents (0 or -errno); then the file is renamed over path. 0 or -errno,
 * e set; on failure path is as it was and no temporary file is left. */
int outfile__replace(const char *path, mode_t mode, int (*fn)(FILE *f, void *ctx), void *ctx,
		     struct err *e);
/* 0 if path may be written by (1), else -errno with e set: a writer of two files checks both
 * before it writes either. */
int outfile__check(const char *path, struct err *e);
/* A descriptor open O_RDWR|O_APPEND on a regular file (see (4)); -errno with e set. */
int outfile__append(const char *path, mode_t mode, struct err *e);
#endif
