/*
 * tests/fuzz/fuzz_sql_select.c - the SELECT reader of the BPF planner (engine/sql_expr.c): the
 * input is the statement text.
 * (1) No crash, whatever the text; a failure leaves a reason in sel->err.
 * (2) On success every node's token span lies inside the tokens, its kids are nodes that come
 *     before it ends, and its text span inside the text: the rewrite copies text by spans.
 * (3) Every node is the same expression as itself (sql_select__same is reflexive).
 */
#include <stdio.h>
#include <stdlib.h>
#include "engine/sql_expr.h"
#include "fuzz.h"

static void check_node(const struct sql_select *sel, int n, size_t len)
{
	const struct sql_node *x = &sel->node[n];
	int kids = 0;

	FUZZ_ASSERT(x->tok0 >= 0 && x->tok0 < x->tok1 && x->tok1 <= sel->nr_tok);
	FUZZ_ASSERT(sql_select__start(sel, n) >= 0 &&
		    sql_select__start(sel, n) <= sql_select__end(sel, n) &&
		    (size_t)sql_select__end(sel, n) <= len);
	for (int k = x->first; k >= 0; k = sel->node[k].next) {
		FUZZ_ASSERT(k < sel->nr_node && k != n);
		kids++;
	}
	FUZZ_ASSERT(kids == x->nr_kids);
	FUZZ_ASSERT(sql_select__same(sel, n, n));
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct sql_select *sel = malloc(sizeof(*sel));
	char *text = malloc(size + 1);

	if (!sel || !text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (sql_select__parse(sel, text) == 0) {
		size_t len = strlen(text);

		FUZZ_ASSERT(sel->nr_items > 0 && sel->table >= 0);
		for (int n = 0; n < sel->nr_node; n++)
			check_node(sel, n, len);
		for (int i = 0; i < sel->nr_items; i++)
			FUZZ_ASSERT(sel->items[i].expr >= 0 && sel->items[i].expr < sel->nr_node);
	} else {
		FUZZ_ASSERT(sel->err[0]);
	}
	free(text);
	free(sel);
	return 0;
}
