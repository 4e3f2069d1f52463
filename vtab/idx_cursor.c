/*
 * vtab/idx_cursor.c - see vtab/idx_cursor.h: one implementation of the cursor methods the
 * index-row tables would otherwise each repeat.
 */
#include <string.h>
#include "vtab/idx_cursor.h"

void *vtab__new(sqlite3 *db, const char *schema, size_t size, int *rc)
{
	void *vt;

	*rc = sqlite3_declare_vtab(db, schema);
	if (*rc != SQLITE_OK)
		return NULL;
	vt = sqlite3_malloc64(size);
	if (!vt) {
		*rc = SQLITE_NOMEM;
		return NULL;
	}
	memset(vt, 0, size);
	return vt;
}

int vtab__free(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

int idx_cursor__open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct idx_cursor *c = sqlite3_malloc64(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

int idx_cursor__close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

int idx_cursor__filter(sqlite3_vtab_cursor *c, int idx_num, const char *idx_str, int argc,
		       sqlite3_value **argv)
{
	((struct idx_cursor *)c)->idx = 0;
	return SQLITE_OK;
}

int idx_cursor__next(sqlite3_vtab_cursor *c)
{
	((struct idx_cursor *)c)->idx++;
	return SQLITE_OK;
}

int idx_cursor__rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = ((struct idx_cursor *)c)->idx + 1;
	return SQLITE_OK;
}
