/*
 * tests/unit/test_pprof.c - -f pprof's encoder (render/pprof.c, render/pprof_write.c) against a
 * decoded round trip: rows of known stacks (frames in this test's own functions, symbolized
 * from its own mappings, and a kernel frame) and values go in; the gzip'd profile is inflated
 * with zlib and unpacked with protobuf-c's generated unpacker, and every sample, location,
 * mapping, function and line is checked against what went in (render/pprof.h (1)-(6)).
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "render/pprof_int.h"
#include "symbols/stack.h"
#include "symbols/symbols.h"
#include "t.h"

typedef Perftools__Profiles__Profile Profile;

__attribute__((noinline)) int pprof_leaf(int x)
{
	for (int i = 0; i < 8; i++)
		x = x * 31 + i;
	return x;
}

__attribute__((noinline)) int pprof_caller(int x) { return pprof_leaf(x) * 7 + pprof_leaf(x + 1); }

#define KADDR 0xffffffff81000010ull

/* a stack of this process: the kernel frame, the leaf, its caller (innermost first) */
static void *make_stack(size_t *len)
{
	uint64_t f[] = { (uint64_t)PERF_CONTEXT_KERNEL, KADDR, (uint64_t)PERF_CONTEXT_USER,
			 (uint64_t)(uintptr_t)pprof_leaf + 4,
			 (uint64_t)(uintptr_t)pprof_caller + 8 };

	return stack_blob__new((uint32_t)getpid(), (uint32_t)getpid(), "tester", f, 5, len);
}

/* the rows: two samples of the stack, one row without a stack */
static int fill(struct pprof *p, sqlite3 *db)
{
	const char *sql = "SELECT ?1 AS stack, 3 AS samples, 1500 AS lat_ns, '1.50us' AS waited, "
			  "'x' AS kind, 2.6 AS score "
			  "UNION ALL SELECT ?1, 4, 2500, '2.00ms', 'y', NULL "
			  "UNION ALL SELECT NULL, 9, 9, '1ns', 'z', 1";
	sqlite3_stmt *st;
	size_t len;
	void *blob = make_stack(&len);
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_blob(st, 1, blob, (int)len, free);
	rc = pprof__statement(p, st);
	sqlite3_finalize(st);
	return rc;
}

static Profile *decode(const uint8_t *gz, size_t len)
{
	static uint8_t raw[1 << 20];
	z_stream z = { .next_in = (uint8_t *)gz, .avail_in = (uInt)len };
	Profile *prof = NULL;

	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return NULL;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	if (inflate(&z, Z_FINISH) == Z_STREAM_END)
		prof = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	return prof;
}

static const char *str(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(bad index)";
}

static const char *label_str(const Profile *p, const Perftools__Profiles__Sample *s,
			     const char *key, int64_t *num_out)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), key)) {
			*num_out = s->label[i]->num;
			return str(p, s->label[i]->str);
		}
	return NULL;
}

static void check_types(const Profile *prof)
{
	static const char *const want[][2] = { { "samples", "count" },
					       { "cpu", "nanoseconds" },
					       { "lat_ns", "nanoseconds" },
					       { "waited", "nanoseconds" },
					       { "score", "count" } };

	T(prof->n_sample_type == 5, "5 sample types (%zu): kind is a label", prof->n_sample_type);
	for (size_t i = 0; i < 5 && i < prof->n_sample_type; i++)
		T(!strcmp(str(prof, prof->sample_type[i]->type), want[i][0]) &&
			  !strcmp(str(prof, prof->sample_type[i]->unit), want[i][1]),
		  "type %zu is %s/%s (%s/%s)", i, want[i][0], want[i][1],
		  str(prof, prof->sample_type[i]->type), str(prof, prof->sample_type[i]->unit));
	T(prof->period == 10101010 && prof->period_type &&
		  !strcmp(str(prof, prof->period_type->type), "cpu"),
	  "the clock's period, as Go's CPU profiles (%" PRId64 ")", prof->period);
	T(prof->n_string_table && !strcmp(prof->string_table[0], ""), "string 0 is empty");
	T(!strcmp(str(prof, prof->default_sample_type), "cpu"), "cpu is shown first (%s)",
	  str(prof, prof->default_sample_type));
}

static void check_samples(const Profile *prof)
{
	static const int64_t want[2][5] = { { 3, 3 * 10101010LL, 1500, 1500, 3 },
					    { 4, 4 * 10101010LL, 2500, 2000000, 0 } };
	int64_t num = 0;

	T(prof->n_sample == 2, "the two rows with a stack are samples (%zu)", prof->n_sample);
	for (size_t i = 0; i < prof->n_sample && i < 2; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];
		const char *v;

		T(s->n_value == 5, "5 values");
		for (size_t k = 0; k < 5 && k < s->n_value; k++)
			T(s->value[k] == want[i][k],
			  "sample %zu value %zu: %" PRId64 " (want %" PRId64 ")", i, k, s->value[k],
			  want[i][k]);
		T(s->n_location_id == 3, "3 locations (%zu)", s->n_location_id);
		v = label_str(prof, s, "kind", &num);
		T(v && !strcmp(v, i ? "y" : "x"), "label kind (%s)", v ? v : "none");
		v = label_str(prof, s, "comm", &num);
		T(v && !strcmp(v, "tester"), "the stack's comm (%s)", v ? v : "none");
		T(label_str(prof, s, "pid", &num) && num == getpid(),
		  "the stack's pid (%" PRId64 ")", num);
	}
}

static const Perftools__Profiles__Location *loc(const Profile *p, uint64_t id)
{
	return id && id <= p->n_location && p->location[id - 1]->id == id ? p->location[id - 1]
									  : NULL;
}

static const char *func_name(const Profile *p, const Perftools__Profiles__Location *l)
{
	uint64_t f = l && l->n_line ? l->line[l->n_line - 1]->function_id : 0;

	return f && f <= p->n_function ? str(p, p->function[f - 1]->name) : NULL;
}

static void check_locations(const Profile *prof, struct symbols *sy)
{
	const Perftools__Profiles__Sample *s = prof->n_sample ? prof->sample[0] : NULL;
	const Perftools__Profiles__Location *leaf, *caller, *kern;
	const Perftools__Profiles__Mapping *m;
	const char *fn;
	char exe[512] = "";
	uint64_t off = 0;

	if (!s || s->n_location_id != 3)
		return;
	kern = loc(prof, s->location_id[0]); /* the leaf first: the kernel's innermost */
	leaf = loc(prof, s->location_id[1]);
	caller = loc(prof, s->location_id[2]);
	T(prof->n_location == 3 && leaf && caller && kern, "3 distinct locations, ids 1..3");
	if (!leaf || !caller || !kern)
		return;
	T(leaf->address == (uint64_t)(uintptr_t)pprof_leaf + 4, "the leaf's address as sampled");
	T(caller->address == (uint64_t)(uintptr_t)pprof_caller + 7, "a return address minus one");
	T((fn = func_name(prof, leaf)) && !strcmp(fn, "pprof_leaf"), "leaf: %s", fn ? fn : "?");
	T((fn = func_name(prof, caller)) && !strcmp(fn, "pprof_caller"), "caller: %s",
	  fn ? fn : "?");
	T(leaf->n_line && leaf->line[0]->line > 20 && leaf->line[0]->line < 30,
	  "the leaf's source line is in pprof_leaf (%" PRId64 ")",
	  leaf->n_line ? leaf->line[0]->line : 0);
	fn = leaf->n_line ? str(prof, prof->function[leaf->line[0]->function_id - 1]->filename)
			  : "";
	T(strstr(fn, "tests/unit/test_pprof.c") != NULL, "its file (%s)", fn);
	m = leaf->mapping_id ? prof->mapping[leaf->mapping_id - 1] : NULL;
	T(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0, "readlink /proc/self/exe");
	T(m && !strcmp(str(prof, m->filename), exe), "mapping of this binary (%s)",
	  m ? str(prof, m->filename) : "none");
	T(m && strlen(str(prof, m->build_id)) == 40, "its build ID (%s)",
	  m ? str(prof, m->build_id) : "");
	T(m && m->has_functions && m->has_line_numbers, "named, with lines");
	symbols__file_offset(sy, (uint32_t)getpid(), leaf->address, &off);
	T(m && leaf->address - m->memory_start + m->file_offset == off &&
		  leaf->address < m->memory_limit,
	  "address -> file offset through the mapping (0x%" PRIx64 ")", off);
	m = kern->mapping_id ? prof->mapping[kern->mapping_id - 1] : NULL;
	T(m && !strcmp(str(prof, m->filename), "[kernel.kallsyms]") && kern->address == KADDR &&
		  m->memory_start <= KADDR && KADDR < m->memory_limit,
	  "the kernel frame is in [kernel.kallsyms]");
}

static void test_round_trip(void)
{
	struct pprof *p = pprof__new();
	struct symbols *sy = symbols__new();
	sqlite3 *db = NULL;
	uint8_t *gz = NULL;
	size_t len = 0, rows, samples;
	Profile *prof;

	T(p && sy && sqlite3_open(":memory:", &db) == SQLITE_OK, "set up");
	p->sy = sy;
	p->period = 10101010; /* 99 Hz, as pprof__window() finds for cpu_clock */
	T(fill(p, db) == SQLITE_OK, "rows added");
	pprof__counts(p, &rows, &samples);
	T(rows == 3 && samples == 2, "3 rows, 2 with a stack (%zu, %zu)", rows, samples);
	T(pprof__encode(p, &gz, &len) == 0 && len > 20 && gz[0] == 0x1f && gz[1] == 0x8b,
	  "encoded, gzip'd");
	prof = gz ? decode(gz, len) : NULL;
	T(prof != NULL, "inflated and unpacked by protobuf-c");
	if (prof) {
		check_types(prof);
		check_samples(prof);
		check_locations(prof, sy);
		perftools__profiles__profile__free_unpacked(prof, NULL);
	}
	free(gz);
	sqlite3_close(db);
	pprof__free(p);
	symbols__free(sy);
}

/* no period (a capture, a table that is no clock): no cpu type; the names decide units */
static void test_units(void)
{
	struct pprof *p = pprof__new();
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t len;
	void *blob = make_stack(&len);
	uint8_t *gz = NULL;
	Profile *prof = NULL;
	static const char *const units[] = { "microseconds", "milliseconds", "seconds", "bytes",
					     "count" };

	sqlite3_open(":memory:", &db);
	T(sqlite3_prepare_v2(db,
			     "SELECT 1 AS off_us, 2 AS x_ms, 3 AS y_s, 4 AS alloc_bytes, 5 AS "
			     "faults, 6 AS next_pid, ?1 AS stack",
			     -1, &st, NULL) == SQLITE_OK,
	  "prepare");
	sqlite3_bind_blob(st, 1, blob, (int)len, free);
	T(pprof__statement(p, st) == SQLITE_OK, "row added");
	sqlite3_finalize(st);
	T(pprof__encode(p, &gz, &len) == 0 && (prof = decode(gz, len)), "round trip");
	T(prof && prof->n_sample_type == 5 && !prof->period_type, "5 types, no period");
	T(prof && !strcmp(str(prof, prof->default_sample_type), "off_us"),
	  "the first column first");
	for (size_t i = 0; prof && i < 5 && i < prof->n_sample_type; i++)
		T(!strcmp(str(prof, prof->sample_type[i]->unit), units[i]), "unit %zu: %s", i,
		  str(prof, prof->sample_type[i]->unit));
	if (prof)
		perftools__profiles__profile__free_unpacked(prof, NULL);
	free(gz);
	sqlite3_close(db);
	pprof__free(p);
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_units);
	return t_done("pprof");
}
