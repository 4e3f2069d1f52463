/*
 * core/capture.h - the capture file of `perf-sql record`: a versioned header, then blocks,
 * each one LZ4 frame, so a file cut short by a crash stays readable up to its last whole block.
 * docs/record.md describes the format for other tools.
 */
#ifndef PERF_SQL_CAPTURE_H
#define PERF_SQL_CAPTURE_H
#include <stddef.h>
#include <stdint.h>
#include "core/err.h"

#define CAPTURE_MAGIC "PSQLCAP1"
#define CAPTURE_VERSION 1

enum capture_block {
	CAP_META = 1,     /* text: key=value lines (host, kernel, cpus, start, command) */
	CAP_TABLE = 2,    /* u32 index, u32 kind | flags, then "system\0name\0format text" */
	CAP_RECORDS = 3,  /* u32 table index, u32 stream (CPU index), then struct wrow rows */
	CAP_WINDOW = 4,   /* u64 window start (realtime ns), u32 nr, nr x {u32 table, u32 cpu,
			     * u64 received, u64 lost} */
	CAP_COMMS = 5,    /* {u32 tid, u32 pad, u64 since_ns, char comm[16]} entries */
	CAP_KALLSYMS = 6, /* the text of /proc/kallsyms (when stacks were recorded) */
	CAP_MAPS = 7,     /* {u32 pid, u32 len of path, u64 start, end, pgoff, path} entries */
	CAP_SYMS = 8,     /* the symbols of the mapped files, written before the maps naming
			   * them: the symbols layer's blobs (symbols__syms_since()) */
	CAP_FACTS = 9,    /* text: the kernel facts of the BPF compiler (bpf/facts.h (2)), so
			   * --explain over the capture lists programs as its kernel would */
	CAP_CGROUPS = 10, /* {u64 cgroup id, u32 len, u32 pad, char path[len]} entries: the paths
			   * of the ids the rows carry (written last, as COMMS) */
};

/* CAP_TABLE's kind word: the kind in the low 16 bits, flags above (older captures: none) */
#define CAP_KIND_MASK 0xffffu
#define CAP_TABLE_CGROUP (1u << 16) /* every row ends with a u64 cgroup id (core/window.h) */

struct capture_writer;
struct capture_reader;

struct capture_writer *capture__create(const char *path, struct err *e);
/* compresses and appends one block; 0 or -errno */
int capture__write(struct capture_writer *w, enum capture_block type, const void *data, size_t len);
/* bytes before / after compression so far */
void capture__sizes(const struct capture_writer *w, uint64_t *raw_out, uint64_t *file_out);
int capture__close(struct capture_writer *w, struct err *e);

/* Opens a capture (a regular file: a directory, FIFO or device is refused with one line). */
struct capture_reader *capture__open(const char *path, struct err *e);
/*
 * The next block: 1 with *type_out, *data_out (valid until the next call) and *len_out, 0 at
 * the end of the file or of its last whole block (*cut_out set: the file was cut short, see
 * capture__cut_at()), or -errno with e set (a damaged block with more after it: corruption).
 */
int capture__next(struct capture_reader *r, uint32_t *type_out, const void **data_out,
		  size_t *len_out, int *cut_out, struct err *e);
/* The same for the block types in want (bit 1 << type); the others are stepped over unread:
 * *data_out NULL, *len_out their size once decompressed. */
int capture__next_of(struct capture_reader *r, uint32_t want, uint32_t *type_out,
		     const void **data_out, size_t *len_out, int *cut_out, struct err *e);
/*
 * From the next call of capture__next_of() on, the wanted frames of the blocks ahead, up to
 * about bytes (raw) at a time, are read together and decompressed on threads threads (this
 * one among them; at most 4); 1 or 0: one block at a time. The blocks, their data and their
 * errors are the same either way. 0 or -ENOMEM.
 */
int capture__read_ahead(struct capture_reader *r, unsigned threads, size_t bytes);
/* Back to the first block; a cut found before stays where it was found. */
void capture__rewind(struct capture_reader *r);
/* Where the whole blocks of a file cut short end (0: not cut, or not reached yet); the file's
 * size in *size_out. */
uint64_t capture__cut_at(const struct capture_reader *r, uint64_t *size_out);
/* Takes the data of the block capture__next() returned last (free() it); NULL if none. */
void *capture__take(struct capture_reader *r);
void capture__free(struct capture_reader *r);
/* decoding one block from memory (what capture__next does after reading it): fuzzable */
int capture__decode(const void *frame, size_t len, void **out, size_t *len_out);
#endif
