/*
 * vtab/tp_group.c - a GROUP BY's rows handed to SQLite group by group (vtab/tp_table.c).
 *
 * HOW IT WORKS
 * (1) SQLite groups a virtual table's rows by sorting them all (its sorter copies every row's
 *     key and columns, sorts, reads them back) unless the table hands them over with each
 *     group's rows adjacent: xBestIndex learns the scan is a GROUP BY from
 *     sqlite3_vtab_distinct() (1) with its terms as aOrderBy, and says so with
 *     orderByConsumed. (Not a DISTINCT: SQLite keeps its rows in the scan's order.) SQLite passes a term only when it is a column of the table compared
 *     with the column's own collation (BINARY here), so equal keys are equal bytes.
 * (2) tp_group__plan takes terms of the columns below (at most three, each of the kinds whose
 *     values xColumn gives from the row itself) and writes them into idxNum.
 * (3) At xFilter the scan is read once: each row's key (its columns' values as SQLite compares
 *     them: NULL, integers, texts and blobs by bytes) finds its group in a hash table. The
 *     groups are then handed over in their keys' order, as SQLite's sorter would give them, so
 *     a GROUP BY without ORDER BY prints as before; each group's rows keep the scan's (time)
 *     order. Memory: 16 bytes a row and one key per group, against the sorter's copy of every
 *     row (one group: 12, its rows kept in scan order as they are).
 * (4) The keys stay with the groups' ends: xColumn of a _comm term gives the row's group's key
 *     (tp_group__column()), so a row's task name is looked up once, not again for SQLite.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "vtab/tp_table_int.h"

#define GROUP_MAX_TERMS 3
#define GROUP_COL_BITS 9 /* columns 0..511 */

enum { K_NULL, K_INT, K_TEXT, K_BLOB }; /* SQLite's order of storage classes */

struct group {
	uint64_t hash;
	uint8_t *key;
	size_t len;
	size_t nr;    /* its rows; then where they start in the output */
	int nr_terms; /* of its key */
};

static bool groupable(const struct tp_col *c)
{
	switch (c->kind) {
	case TP_COL_TIME:
	case TP_COL_CPU:
	case TP_COL_PID:
	case TP_COL_TID:
	case TP_COL_COMM:
	case TP_COL_PERIOD:
	case TP_COL_IP:
	case TP_COL_FIELD: return true;
	default: return false;
	}
}

int tp_group__plan(const struct tp_vtab *vt, sqlite3_index_info *info)
{
	int d = sqlite3_vtab_distinct(info), idx = 0;

	/* a GROUP BY only: SQLite's DISTINCT keeps the scan's order (a hash of rows seen) */
	if (d != 1 || info->nOrderBy < 1 || info->nOrderBy > GROUP_MAX_TERMS)
		return 0;
	for (int i = 0; i < info->nOrderBy; i++) {
		int col = info->aOrderBy[i].iColumn;

		if (col < 0 || col >= vt->nr_cols || col >= (1 << GROUP_COL_BITS) ||
		    !groupable(&vt->cols[col]))
			return 0;
		idx |= col << (3 + i * GROUP_COL_BITS);
	}
	info->orderByConsumed = 1;
	return 1 | info->nOrderBy << 1 | idx;
}

/* one column's value into the key at *len (room: 13 bytes, or 5 and the text's) */
static int put_value(struct tp_vtab *vt, const struct tp_col *c, const struct wrow *r,
		     uint8_t **buf, size_t *cap, size_t *len)
{
	const uint8_t *p = NULL;
	size_t n = 0;
	int64_t v = 0;
	int kind = K_INT;

	switch (c->kind) {
	case TP_COL_TIME: v = (int64_t)r->time; break;
	case TP_COL_CPU: v = r->cpu; break;
	case TP_COL_PID: v = r->pid; break;
	case TP_COL_TID: v = r->tid; break;
	case TP_COL_PERIOD: v = (int64_t)r->period; break;
	case TP_COL_IP: v = (int64_t)r->ip; break;
	case TP_COL_COMM:
		p = (const uint8_t *)session__comm(vt->s, r->tid, r->time);
		kind = p ? K_TEXT : K_NULL;
		n = p ? strlen((const char *)p) : 0;
		break;
	default: /* TP_COL_FIELD: as field_result() gives it */
		if (c->f->kind == FIELD_INT)
			kind = field__int(c->f, r, &v) ? K_INT : K_NULL;
		else if (field__bytes(c->f, r, &p, &n))
			kind = c->f->kind == FIELD_STR || c->f->kind == FIELD_DYN_STR ? K_TEXT
										      : K_BLOB;
		else
			kind = K_NULL;
	}
	if (*len + 13 + n > *cap) {
		size_t want = (*len + 13 + n) * 2;
		uint8_t *b = realloc(*buf, want);

		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = want;
	}
	(*buf)[(*len)++] = (uint8_t)kind;
	if (kind == K_INT) {
		memcpy(*buf + *len, &v, 8);
		*len += 8;
	} else if (kind != K_NULL) {
		uint32_t n32 = (uint32_t)n;

		memcpy(*buf + *len, &n32, 4);
		memcpy(*buf + *len + 4, p, n);
		*len += 4 + n;
	}
	return 0;
}

/* SQLite's order of two keys, column by column (BINARY texts: bytes, then the shorter) */
static int key_cmp(const uint8_t *a, const uint8_t *b, int nr)
{
	for (int i = 0; i < nr; i++) {
		int ka = *a++, kb = *b++;
		int64_t va, vb;
		uint32_t la, lb;
		int c;

		if (ka != kb)
			return ka < kb ? -1 : 1;
		if (ka == K_NULL)
			continue;
		if (ka == K_INT) {
			memcpy(&va, a, 8);
			memcpy(&vb, b, 8);
			if (va != vb)
				return va < vb ? -1 : 1;
			a += 8;
			b += 8;
			continue;
		}
		memcpy(&la, a, 4);
		memcpy(&lb, b, 4);
		c = memcmp(a + 4, b + 4, la < lb ? la : lb);
		if (c || la != lb)
			return c ? c : la < lb ? -1 : 1;
		a += 4 + la;
		b += 4 + lb;
	}
	return 0;
}

static uint64_t hash_of(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

struct grouping {
	struct group *g;
	size_t nr_g, cap_g;
	uint32_t *slots; /* group index + 1, 0: empty */
	size_t nr_slots;
	long last; /* the previous row's group (a run of one task's rows is common), -1 */
};

static int grow_slots(struct grouping *gr)
{
	size_t n = gr->nr_slots ? gr->nr_slots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < gr->nr_g; i++) {
		size_t at = gr->g[i].hash & (n - 1);

		while (s[at])
			at = (at + 1) & (n - 1);
		s[at] = (uint32_t)i + 1;
	}
	free(gr->slots);
	gr->slots = s;
	gr->nr_slots = n;
	return 0;
}

/* the group of key (made if new): its index, or -ENOMEM */
static long group_of(struct grouping *gr, int nr_terms, const uint8_t *key, size_t len)
{
	uint64_t h;
	size_t at;
	struct group *g;

	if (gr->last >= 0 && gr->g[gr->last].len == len && !memcmp(gr->g[gr->last].key, key, len))
		return gr->last;
	h = hash_of(key, len);
	if ((gr->nr_g + 1) * 2 > gr->nr_slots && grow_slots(gr))
		return -ENOMEM;
	for (at = h & (gr->nr_slots - 1); gr->slots[at]; at = (at + 1) & (gr->nr_slots - 1)) {
		g = &gr->g[gr->slots[at] - 1];
		if (g->hash == h && g->len == len && !memcmp(g->key, key, len))
			return gr->last = (long)gr->slots[at] - 1;
	}
	if (gr->nr_g == gr->cap_g) {
		size_t n = gr->cap_g ? gr->cap_g * 2 : 64;
		struct group *ng = realloc(gr->g, n * sizeof(*ng));

		if (!ng)
			return -ENOMEM;
		gr->g = ng;
		gr->cap_g = n;
	}
	g = &gr->g[gr->nr_g];
	*g = (struct group){
		.hash = h, .len = len, .nr_terms = nr_terms, .key = malloc(len ? len : 1)
	};
	if (!g->key)
		return -ENOMEM;
	memcpy(g->key, key, len);
	gr->slots[at] = (uint32_t)++gr->nr_g;
	return gr->last = (long)gr->nr_g - 1;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;

	return key_cmp(x->key, y->key, x->nr_terms);
}

/* rows (nr of them, each of group gid[i]) into t, the groups in their keys' order, and the
 * keys with where each group's rows end (the keys move to t); one group: the rows as they are */
static int place(struct grouping *gr, const struct wrow ***rows, const uint32_t *gid, size_t nr,
		 struct tp_group *t)
{
	struct group **order = malloc(gr->nr_g * sizeof(*order));
	size_t at = 0;

	t->keys = malloc(gr->nr_g * sizeof(*t->keys));
	t->ends = malloc(gr->nr_g * sizeof(*t->ends));
	t->rows = gr->nr_g == 1 ? *rows : malloc(nr * sizeof(*t->rows));
	if (!order || !t->keys || !t->ends || !t->rows) {
		if (gr->nr_g == 1)
			t->rows = NULL; /* still the caller's */
		free(order);
		return -ENOMEM;
	}
	if (gr->nr_g == 1)
		*rows = NULL; /* t has them */
	for (size_t i = 0; i < gr->nr_g; i++)
		order[i] = &gr->g[i];
	qsort(order, gr->nr_g, sizeof(*order), group_cmp);
	for (size_t i = 0; i < gr->nr_g; i++) { /* nr: a count, then where the group starts */
		size_t n = order[i]->nr;

		order[i]->nr = at;
		at += n;
		t->ends[i] = at;
		t->keys[i] = order[i]->key;
		order[i]->key = NULL;
	}
	t->nr_keys = gr->nr_g;
	for (size_t i = 0; gr->nr_g > 1 && i < nr; i++)
		t->rows[gr->g[gid[i]].nr++] = (*rows)[i];
	free(order);
	return 0;
}

int tp_group__scan(struct tp_group *t, struct tp_vtab *vt, struct wscan *sc, int idx_num)
{
	int nr_terms = (idx_num >> 1) & 3, ret = 0;
	struct grouping gr = { .last = -1 };
	const struct wrow **rows = NULL, *r;
	uint32_t *gid = NULL;
	uint8_t *key = NULL;
	size_t nr = 0, cap = 0, key_cap = 0;

	tp_group__done(t);
	for (int i = 0; i < nr_terms; i++) {
		int col = (idx_num >> (3 + i * GROUP_COL_BITS)) & ((1 << GROUP_COL_BITS) - 1);

		if (vt->cols[col].kind == TP_COL_COMM) {
			t->comm_col = col;
			t->comm_term = i;
		}
	}
	while (!ret && (r = wscan__next(sc))) {
		size_t len = 0;
		long g;

		if (nr == cap) {
			size_t n = cap ? cap * 2 : 4096;
			const struct wrow **nrows = realloc(rows, n * sizeof(*rows));
			uint32_t *ngid = nrows ? realloc(gid, n * sizeof(*gid)) : NULL;

			rows = nrows ? nrows : rows;
			gid = ngid ? ngid : gid;
			if (!nrows || !ngid) {
				ret = -ENOMEM;
				break;
			}
			cap = n;
		}
		for (int i = 0; i < nr_terms && !ret; i++) {
			int col =
				(idx_num >> (3 + i * GROUP_COL_BITS)) & ((1 << GROUP_COL_BITS) - 1);

			ret = put_value(vt, &vt->cols[col], r, &key, &key_cap, &len);
		}
		if (ret || (g = group_of(&gr, nr_terms, key, len)) < 0) {
			ret = -ENOMEM;
			break;
		}
		gr.g[g].nr++;
		rows[nr] = r;
		gid[nr++] = (uint32_t)g;
	}
	if (!ret && nr && place(&gr, &rows, gid, nr, t))
		ret = -ENOMEM;
	t->nr = ret ? 0 : nr;
	for (size_t i = 0; i < gr.nr_g; i++)
		free(gr.g[i].key);
	free(gr.g);
	free(gr.slots);
	free(rows);
	free(gid);
	free(key);
	return ret;
}

const struct wrow *tp_group__next(struct tp_group *t)
{
	if (t->at >= t->nr)
		return NULL;
	while (t->key_at < t->nr_keys && t->ends[t->key_at] <= t->at)
		t->key_at++;
	return t->rows[t->at++];
}

bool tp_group__column(const struct tp_group *t, int col, sqlite3_context *ctx)
{
	const uint8_t *k;
	uint32_t n;

	if (col != t->comm_col || t->key_at >= t->nr_keys)
		return false;
	k = t->keys[t->key_at];
	for (int i = 0; i < t->comm_term; i++) { /* the terms before it */
		if (*k == K_NULL) {
			k++;
		} else if (*k == K_INT) {
			k += 9;
		} else {
			memcpy(&n, k + 1, 4);
			k += 5 + n;
		}
	}
	if (*k == K_TEXT) {
		memcpy(&n, k + 1, 4);
		sqlite3_result_text(ctx, (const char *)k + 5, (int)n, SQLITE_TRANSIENT);
	}
	return true;
}

void tp_group__done(struct tp_group *t)
{
	for (size_t i = 0; i < t->nr_keys; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->ends);
	free(t->rows);
	*t = (struct tp_group){ .comm_col = -1 };
}
