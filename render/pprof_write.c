/*
 * render/pprof_write.c - the profile render/pprof.c collected, as pprof's messages (build/gen/
 * profile.pb-c.h, from render/profile.proto), packed by libprotobuf-c, gzip'd by zlib, written
 * whole or not at all (core/outfile.h).
 *
 * The messages point into one allocation per kind (the arrays of pointers protobuf-c wants,
 * and the messages they point to), made for the encoding and freed after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "core/outfile.h"
#include "profile.pb-c.h"
#include "render/pprof_int.h"

typedef Perftools__Profiles__Profile PB_Profile;
typedef Perftools__Profiles__ValueType PB_ValueType;
typedef Perftools__Profiles__Sample PB_Sample;
typedef Perftools__Profiles__Label PB_Label;
typedef Perftools__Profiles__Mapping PB_Mapping;
typedef Perftools__Profiles__Location PB_Location;
typedef Perftools__Profiles__Line PB_Line;
typedef Perftools__Profiles__Function PB_Function;

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* (2): a sample type, not a label */
static bool is_value(const struct pp_col *c)
{
	return !c->label_name && (c->num || c->text) && !c->text_other;
}

size_t pp_value_cols(const struct pprof *p, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr_cols; i++)
		if (is_value(&p->cols[i]))
			out[n++] = (uint32_t)i;
	return n;
}

const char *pp_unit(const struct pprof *p, uint32_t col)
{
	const char *name = p->strs[p->cols[col].name];

	if (p->cols[col].text || ends_with(name, "_ns"))
		return "nanoseconds"; /* dur() text is read back in ns */
	if (ends_with(name, "_us"))
		return "microseconds";
	if (ends_with(name, "_ms"))
		return "milliseconds";
	if (ends_with(name, "_s"))
		return "seconds";
	if (ends_with(name, "bytes"))
		return "bytes";
	return "count";
}

/* everything the messages point into: freed at once */
struct pb {
	PB_Profile prof;
	PB_ValueType *types, **types_p, period_type;
	PB_Sample *samples, **samples_p;
	PB_Label *labels, **labels_p;
	int64_t *values;
	PB_Mapping *maps, **maps_p;
	PB_Location *locs, **locs_p;
	PB_Line *lines, **lines_p;
	PB_Function *funcs, **funcs_p;
	uint32_t *vcols;
	uint32_t *map_pos; /* mapping i's index in the profile (map_order) */
	size_t nr_types;
	bool cpu; /* (6): a cpu/nanoseconds type after the first */
};

static void pb_free(struct pb *b)
{
	free(b->types);
	free(b->types_p);
	free(b->samples);
	free(b->samples_p);
	free(b->labels);
	free(b->labels_p);
	free(b->values);
	free(b->maps);
	free(b->maps_p);
	free(b->map_pos);
	free(b->locs);
	free(b->locs_p);
	free(b->lines);
	free(b->lines_p);
	free(b->funcs);
	free(b->funcs_p);
	free(b->vcols);
}

#define ALLOC(b, field, n) (((b)->field = calloc((n) ? (n) : 1, sizeof(*(b)->field))) != NULL)

static int value_type(struct pprof *p, PB_ValueType *t, const char *type, const char *unit)
{
	perftools__profiles__value_type__init(t);
	t->type = pp_str(p, type);
	t->unit = pp_str(p, unit);
	return t->type < 0 || t->unit < 0 ? -ENOMEM : 0;
}

/* sample_type, period_type, period (2), (3), (6) */
static int pb_types(struct pprof *p, struct pb *b)
{
	size_t n;
	int ret = 0;

	if (!ALLOC(b, vcols, p->nr_cols))
		return -ENOMEM;
	n = pp_value_cols(p, b->vcols);
	b->cpu = p->period && n && !strcmp(pp_unit(p, b->vcols[0]), "count");
	b->nr_types = n + b->cpu;
	if (!ALLOC(b, types, b->nr_types) || !ALLOC(b, types_p, b->nr_types))
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < n && !ret; i++, k++) {
		ret = value_type(p, &b->types[k], p->strs[p->cols[b->vcols[i]].name],
				 pp_unit(p, b->vcols[i]));
		if (!ret && i == 0 && b->cpu)
			ret = value_type(p, &b->types[++k], "cpu", "nanoseconds");
	}
	for (size_t i = 0; i < b->nr_types; i++)
		b->types_p[i] = &b->types[i];
	b->prof.n_sample_type = b->nr_types;
	b->prof.sample_type = b->types_p;
	/* shown first: the query's first column (pprof's own default is the last type), or cpu */
	if (b->nr_types && !ret)
		b->prof.default_sample_type = b->types[b->cpu ? 1 : 0].type;
	if (b->cpu && !ret) {
		ret = value_type(p, &b->period_type, "cpu", "nanoseconds");
		b->prof.period_type = &b->period_type;
		b->prof.period = (int64_t)p->period;
	}
	return ret;
}

/* one sample's values (in b->types' order) and labels */
static void pb_sample(struct pprof *p, struct pb *b, size_t i, int64_t *values, PB_Label *labels,
		      PB_Label **labels_p)
{
	const struct pp_sample *s = &p->samples[i];
	PB_Sample *out = &b->samples[i];
	size_t nl = 0;

	perftools__profiles__sample__init(out);
	out->n_location_id = s->nr_locs;
	out->location_id = p->loc_ids + s->loc0;
	out->n_value = b->nr_types;
	out->value = values;
	for (size_t c = s->cell0; c < s->cell0 + s->nr_cells; c++) {
		const struct pp_cell *cell = &p->cells[c];
		size_t k = 0;

		if (!is_value(&p->cols[cell->col])) {
			perftools__profiles__label__init(&labels[nl]);
			labels[nl].key = p->cols[cell->col].name;
			if (cell->text)
				labels[nl].str = cell->str;
			else
				labels[nl].num = cell->num;
			labels_p[nl] = &labels[nl];
			nl++;
			continue;
		}
		while (b->vcols[k] != cell->col)
			k++;
		k += b->cpu && k > 0;
		values[k] = cell->num;
		if (k == 0 && b->cpu)
			values[1] = cell->num * (int64_t)p->period;
	}
	out->n_label = nl;
	out->label = labels_p;
	b->samples_p[i] = out;
}

static int pb_samples(struct pprof *p, struct pb *b)
{
	size_t lab = 0, nr_values = p->nr_samples * b->nr_types;

	if (!ALLOC(b, samples, p->nr_samples) || !ALLOC(b, samples_p, p->nr_samples) ||
	    !ALLOC(b, labels, p->nr_cells) || !ALLOC(b, labels_p, p->nr_cells) ||
	    !ALLOC(b, values, nr_values))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_samples; i++) {
		pb_sample(p, b, i, b->values + i * b->nr_types, b->labels + lab, b->labels_p + lab);
		lab += b->samples[i].n_label;
	}
	b->prof.n_sample = p->nr_samples;
	b->prof.sample = b->samples_p;
	return 0;
}

static void pb_map(const struct pprof *p, const struct pp_map *m, size_t i, PB_Mapping *out)
{
	perftools__profiles__mapping__init(out);
	out->id = i + 1;
	out->memory_start = m->start;
	out->memory_limit = m->end;
	out->file_offset = m->pgoff;
	out->filename = m->file;
	out->build_id = m->build_id;
	out->has_functions = !m->unnamed;
	out->has_filenames = out->has_line_numbers = m->lines;
	out->has_inline_frames = m->lines && p->inlines;
}

/* where each mapping goes in the profile, in pos[]: pprof takes the first mapping for the
 * profile's main binary ("File:", "Build ID:"), so the first is the user mapping of the lowest
 * address (the kernel loads an executable below the shared objects and the vDSO: 0x400000, or
 * PIE's 0x55...), then the others in the order met, [kernel.kallsyms] last */
static void map_order(const struct pprof *p, uint32_t *pos)
{
	size_t main = p->nr_maps, k = p->kernel_map ? p->kernel_map - 1 : p->nr_maps, n = 0;

	for (size_t i = 0; i < p->nr_maps; i++)
		if (i != k && (main == p->nr_maps || p->maps[i].start < p->maps[main].start))
			main = i;
	if (main < p->nr_maps)
		pos[main] = n++;
	for (size_t i = 0; i < p->nr_maps; i++)
		if (i != main && i != k)
			pos[i] = n++;
	if (k < p->nr_maps)
		pos[k] = n;
}

/* mappings, locations and their lines, functions */
static int pb_code(struct pprof *p, struct pb *b)
{
	if (!ALLOC(b, maps, p->nr_maps) || !ALLOC(b, maps_p, p->nr_maps) ||
	    !ALLOC(b, locs, p->nr_locs) || !ALLOC(b, locs_p, p->nr_locs) ||
	    !ALLOC(b, lines, p->nr_lines) || !ALLOC(b, lines_p, p->nr_lines) ||
	    !ALLOC(b, funcs, p->nr_funcs) || !ALLOC(b, funcs_p, p->nr_funcs) ||
	    !ALLOC(b, map_pos, p->nr_maps))
		return -ENOMEM;
	map_order(p, b->map_pos);
	for (size_t i = 0; i < p->nr_maps; i++) {
		pb_map(p, &p->maps[i], b->map_pos[i], &b->maps[i]);
		b->maps_p[b->map_pos[i]] = &b->maps[i];
	}
	for (size_t i = 0; i < p->nr_lines; i++) {
		perftools__profiles__line__init(&b->lines[i]);
		b->lines[i].function_id = p->lines[i].function_id;
		b->lines[i].line = p->lines[i].line;
		b->lines_p[i] = &b->lines[i];
	}
	for (size_t i = 0; i < p->nr_locs; i++) {
		perftools__profiles__location__init(&b->locs[i]);
		b->locs[i].id = i + 1;
		b->locs[i].mapping_id =
			p->locs[i].mapping_id ? b->map_pos[p->locs[i].mapping_id - 1] + 1 : 0;
		b->locs[i].address = p->locs[i].address;
		b->locs[i].n_line = p->locs[i].nr_lines;
		b->locs[i].line = b->lines_p + p->locs[i].line0;
		b->locs_p[i] = &b->locs[i];
	}
	for (size_t i = 0; i < p->nr_funcs; i++) {
		perftools__profiles__function__init(&b->funcs[i]);
		b->funcs[i].id = i + 1;
		b->funcs[i].name = b->funcs[i].system_name = p->funcs[i].name;
		b->funcs[i].filename = p->funcs[i].file;
		b->funcs_p[i] = &b->funcs[i];
	}
	b->prof.n_mapping = p->nr_maps;
	b->prof.mapping = b->maps_p;
	b->prof.n_location = p->nr_locs;
	b->prof.location = b->locs_p;
	b->prof.n_function = p->nr_funcs;
	b->prof.function = b->funcs_p;
	return 0;
}

/* gzip (RFC 1952) of in, as pprof reads it */
static int gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *len_out)
{
	z_stream z = { 0 };
	size_t cap;
	int rc;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	cap = deflateBound(&z, len);
	if (!(*out = malloc(cap))) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)in;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*len_out = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pprof__encode(struct pprof *p, uint8_t **buf_out, size_t *len_out)
{
	struct pb b = { .prof = PERFTOOLS__PROFILES__PROFILE__INIT };
	uint8_t *raw = NULL;
	size_t len;
	int ret;

	*buf_out = NULL;
	if (p->nr_cells > UINT32_MAX || p->nr_locs > UINT32_MAX)
		return -E2BIG;
	ret = pb_types(p, &b) ?: pb_samples(p, &b) ?: pb_code(p, &b);
	b.prof.time_nanos = p->time_nanos;
	b.prof.duration_nanos = p->end_nanos > p->time_nanos ? p->end_nanos - p->time_nanos : 0;
	/* the strings last: the steps above may add some */
	b.prof.n_string_table = p->nr_strs;
	b.prof.string_table = p->strs;
	if (!ret && !(raw = malloc(perftools__profiles__profile__get_packed_size(&b.prof) + 1)))
		ret = -ENOMEM;
	if (!ret) {
		len = perftools__profiles__profile__pack(&b.prof, raw);
		ret = gzip(raw, len, buf_out, len_out);
	}
	free(raw);
	pb_free(&b);
	return ret;
}

struct blob {
	const uint8_t *p;
	size_t len;
};

static int put_blob(FILE *f, void *ctx)
{
	const struct blob *b = ctx;

	return fwrite(b->p, 1, b->len, f) == b->len ? 0 : -EIO;
}

int pprof__check(const char *path, struct err *e)
{
	if (!path && isatty(STDOUT_FILENO)) {
		err_set(e, -EINVAL, "-f pprof: a profile is binary, and stdout is a terminal");
		return err_hint(e, "write it with -o FILE (cpu.pb.gz), or redirect stdout");
	}
	return path ? outfile__check(path, e) : 0;
}

int pprof__save(struct pprof *p, const char *path, struct err *e)
{
	struct blob b;
	uint8_t *buf;
	int ret;

	if ((ret = pprof__check(path, e)))
		return ret;
	if ((ret = pprof__encode(p, &buf, &b.len)))
		return err_set(e, ret, "-f pprof: %s", strerror(-ret));
	b.p = buf;
	if (!path) {
		ret = put_blob(stdout, &b) || fflush(stdout)
			      ? err_set(e, -EIO, "stdout: %s", strerror(errno))
			      : 0;
	} else {
		ret = outfile__replace(path, 0644, put_blob, &b, e);
	}
	free(buf);
	return ret;
}
