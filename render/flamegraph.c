/*
 * render/flamegraph.c - a self-contained SVG flame graph (see render/flamegraph.h).
 *
 * (1) Folded lines merge into a tree of frames; a frame's width is its sample count.
 * (2) The SVG has one <g> per frame (a rect, a clipped label, a <title> tooltip with the
 *     count and share) and ~30 lines of script: click a frame to zoom on it, click the
 *     background (or press Escape) to zoom out. No external file is referenced.
 * (3) FILE.folded gets every line, each prefixed by its window's start with -i (as perf-prof
 *     writes time-prefixed folded files); files appear whole or not at all, and never through a
 *     link (core/outfile.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/outfile.h"
#include "render/flamegraph.h"

struct node {
	char *name;
	long long count;
	struct node **kids;
	int nr, cap;
};

struct flame {
	struct node root;
	char *folded; /* FILE.folded contents */
	size_t len, cap;
	int depth;
};

bool flame__empty(const struct flame *f) { return !f->len; }

struct flame *flame__new(void)
{
	struct flame *f = calloc(1, sizeof(*f));

	if (f)
		f->root.name = strdup("all");
	return f;
}

static void node_free(struct node *n)
{
	for (int i = 0; i < n->nr; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

void flame__free(struct flame *f)
{
	if (!f)
		return;
	node_free(&f->root);
	free(f->folded);
	free(f);
}

static struct node *child(struct node *n, const char *name, size_t len)
{
	struct node *k;

	for (int i = 0; i < n->nr; i++)
		if (strlen(n->kids[i]->name) == len && !strncmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->nr == n->cap) {
		int ncap = n->cap ? n->cap * 2 : 4;
		struct node **p = realloc(n->kids, (size_t)ncap * sizeof(*p));

		if (!p)
			return NULL;
		n->kids = p;
		n->cap = ncap;
	}
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strndup(name, len))) {
		free(k);
		return NULL;
	}
	n->kids[n->nr++] = k;
	return k;
}

static int append(struct flame *f, const char *s, size_t n)
{
	if (f->len + n + 1 > f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 65536;
		char *p;

		while (ncap < f->len + n + 1)
			ncap *= 2;
		p = realloc(f->folded, ncap);
		if (!p)
			return -ENOMEM;
		f->folded = p;
		f->cap = ncap;
	}
	memcpy(f->folded + f->len, s, n);
	f->len += n;
	f->folded[f->len] = '\0';
	return 0;
}

static int add_line(struct flame *f, const char *line, size_t len)
{
	const char *sp = line + len;
	struct node *n = &f->root;
	long long count;
	int depth = 0;

	while (sp > line && sp[-1] != ' ')
		sp--;
	if (sp == line || (count = atoll(sp)) <= 0)
		return 0; /* not a folded line */
	n->count += count;
	for (const char *p = line; p < sp - 1;) {
		const char *end = memchr(p, ';', (size_t)(sp - 1 - p));
		size_t flen = end ? (size_t)(end - p) : (size_t)(sp - 1 - p);

		n = child(n, p, flen);
		if (!n)
			return -ENOMEM;
		n->count += count;
		depth++;
		p += flen + 1;
	}
	if (depth > f->depth)
		f->depth = depth;
	return 0;
}

int flame__add(struct flame *f, const char *folded, const char *window)
{
	int ret = 0;

	for (const char *p = folded; *p && !ret;) {
		size_t len = strcspn(p, "\n");

		ret = add_line(f, p, len);
		if (!ret && window)
			ret = append(f, window, strlen(window)) || append(f, ";", 1);
		if (!ret)
			ret = append(f, p, len) || append(f, "\n", 1);
		p += len + (p[len] == '\n');
	}
	return ret;
}

static void xml_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", o);
		else if (*s == '>')
			fputs("&gt;", o);
		else if (*s == '&')
			fputs("&amp;", o);
		else if (*s == '"')
			fputs("&quot;", o);
		else
			fputc(*s, o);
	}
}

static unsigned hash_name(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

#define FG_W 1200.0
#define FG_ROW 17

static void draw(FILE *o, const struct node *n, double x, int depth, long long total, int height)
{
	double w = FG_W * (double)n->count / (double)total;
	unsigned h = hash_name(n->name);
	double cx = x;

	if (w < 0.1)
		return;
	fprintf(o, "<g class=\"f\"><title>");
	xml_text(o, n->name);
	fprintf(o,
		" (%lld samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
		"height=\"%d\" fill=\"rgb(%u,%u,%u)\"/><text x=\"%.2f\" y=\"%d\">",
		n->count, 100.0 * (double)n->count / (double)total, x,
		height - (depth + 1) * FG_ROW, w, FG_ROW - 1, 205 + h % 50, 80 + (h >> 8) % 140,
		(h >> 16) % 55, x + 3, height - depth * FG_ROW - 5);
	/* labels fit their frame without a script (7 px a character); the script redoes this
	 * on zoom */
	if (w >= 21) {
		size_t fit = (size_t)(w / 7), len = strlen(n->name);
		char *label = strndup(n->name, len > fit ? fit - 2 : len);

		if (label) {
			xml_text(o, label);
			fputs(len > fit ? ".." : "", o);
			free(label);
		}
	}
	fputs("</text></g>\n", o);
	for (int i = 0; i < n->nr; i++) {
		draw(o, n->kids[i], cx, depth + 1, total, height);
		cx += FG_W * (double)n->kids[i]->count / (double)total;
	}
}

static const char fg_script[] =
	"<script><![CDATA[\n"
	"var svg=document.documentElement,W=1200;\n"
	"function zoom(x,w){svg.querySelectorAll('g.f').forEach(function(g){\n"
	" var r=g.querySelector('rect'),t=g.querySelector('text');\n"
	" if(!r.dataset.x){r.dataset.x=r.getAttribute('x');r.dataset.w=r.getAttribute('width');}\n"
	" var nx=(r.dataset.x-x)*W/w,nw=r.dataset.w*W/w;\n"
	" r.setAttribute('x',nx);r.setAttribute('width',Math.max(nw,0));t.setAttribute('x',nx+3);\n"
	" g.style.display=(nx+nw<0||nx>W)?'none':'';\n"
	" t.textContent=nw<30?'':t.textContent||g.querySelector('title').textContent.split(' "
	"(')[0];\n"
	" var full=g.querySelector('title').textContent.split(' (')[0];\n"
	" t.textContent=nw<30?'':full.slice(0,Math.floor(nw/7));});}\n"
	"svg.addEventListener('click',function(e){var g=e.target.closest('g.f');\n"
	" if(!g){zoom(0,W);return;}var r=g.querySelector('rect');\n"
	" zoom(+(r.dataset.x||r.getAttribute('x')),+(r.dataset.w||r.getAttribute('width')));});\n"
	"document.addEventListener('keydown',function(e){if(e.key=='Escape')zoom(0,W);});\n"
	"zoom(0,W);\n"
	"]]></script>\n";

static int write_svg(struct flame *f, FILE *o, const char *title)
{
	int height = (f->depth + 1) * FG_ROW + 40;

	fprintf(o,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font:12px monospace;pointer-events:none}g.f:hover rect"
		"{stroke:#000;stroke-width:.5}</style>\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f8\"/>\n<text x=\"600\" y=\"20\" text-anchor=\"middle\" "
		"style=\"font-size:16px\">",
		(int)FG_W, height, (int)FG_W, height);
	xml_text(o, title);
	fputs("</text>\n", o);
	if (f->root.count)
		draw(o, &f->root, 0, 0, f->root.count, height);
	fputs(fg_script, o);
	fputs("</svg>\n", o);
	return ferror(o) ? -EIO : 0;
}

struct flame_out {
	struct flame *f;
	const char *title;
};

static int put_svg(FILE *o, void *ctx)
{
	struct flame_out *fo = ctx;

	return write_svg(fo->f, o, fo->title);
}

static int put_folded(FILE *o, void *ctx)
{
	struct flame *f = ((struct flame_out *)ctx)->f;

	return fwrite(f->folded ? f->folded : "", 1, f->len, o) == f->len ? 0 : -EIO;
}

int flame__save(struct flame *f, const char *path, const char *title, struct err *e)
{
	struct flame_out fo = { f, title };
	char folded[PATH_MAX];

	if (snprintf(folded, sizeof(folded), "%s.folded", path) >= (int)sizeof(folded))
		return err_set(e, -ENAMETOOLONG, "%s.folded: %s", path, strerror(ENAMETOOLONG));
	return outfile__check(path, e) ?: outfile__replace(folded, 0644, put_folded, &fo, e) ?:
	       outfile__replace(path, 0644, put_svg, &fo, e);
}
