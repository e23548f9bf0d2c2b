// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume, the read side: list, show, get-default.
 *
 * They read only through ->tree_search and ->path_info, decoded by
 * kernel-shared/subvol-list.c, so they work unchanged on an unmounted image.
 * Text keeps the btrfs-progs layouts that scripts parse (list lines and -t
 * table, their columns described by rec_subvol_list_row; show's
 * tab-aligned block); JSON has one subvolume object, written by
 * subvol_emit() through the key/value writer, documented in
 * Documentation/json-schema.md ("subvolume").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/subvolume.h"
#include "common/output/kvout.h"
#include "common/output/records.h"
#include "common/util/messages.h"
#include "common/util/parse-utils.h"
#include "common/util/path-utils.h"
#include "common/util/units.h"

/* ------------------------------------------------------------------ */
/* The subvolume object (JSON schema) and show                          */
/* ------------------------------------------------------------------ */

static u64 subvol_ogen(const struct btrfs_subvol *s)
{
	return s->root.has_v2 ? s->root.otransid : s->root_offset;
}

/*
 * One subvolume as a JSON object or the show block (common/output/records.c), with
 * @path as shown (NULL when unreachable).
 */
static void subvol_emit(struct kvout *kv, const struct btrfs_subvol *s, const char *path,
			const char *abs, u64 top_level)
{
	static const char *const ro_flags[] = { "readonly", NULL };
	bool ro = s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY;
	struct subvol_rec r = {
		.id = s->id,
		.name = s->id == BTRFS_FS_TREE_OBJECTID ? "<FS_TREE>" : s->name,
		.path = path,
		.abs = abs,
		.uuid = s->root.uuid,
		.parent_uuid = s->root.parent_uuid,
		.received_uuid = s->root.received_uuid,
		.otime = s->root.otime.sec,
		.subvolid = s->id,
		.generation = s->root.generation,
		.cgeneration = subvol_ogen(s),
		.parent = s->parent_id,
		.top_level = top_level,
		.flags_text = ro ? "readonly" : "-",
		.flags = ro ? ro_flags : NULL,
		.stransid = s->root.stransid,
		.stime = s->root.stime.sec,
		.rtransid = s->root.rtransid,
		.rtime = s->root.rtime.sec,
		.ctransid = s->root.ctransid,
		.ctime = s->root.ctime.sec,
		.dirid = s->dirid,
		.snapshot = s->root_offset != 0,
		.deleted = s->deleted,
	};

	rec_emit(kv, &rec_subvol, &r);
}

/* Where @s is for the user (see ops->absolute_path); NULL if unknown. malloc'ed. */
static char *subvol_abs(const struct vc_ctx *ctx, struct vc_fs *fs, const struct btrfs_subvol *s)
{
	if (!s->path || !ctx->ops->absolute_path)
		return NULL;
	return ctx->ops->absolute_path(fs, s->path);
}

/* The "Quota group" block; quota tree missing: n/a, and no JSON object. */
static int show_quota(struct kvout *kv, struct vc_fs *fs, u64 id)
{
	struct vc_qgroup_fact q;
	const struct subvol_qgroup_rec none = { .qgroupid = "n/a" };
	struct subvol_qgroup_rec r = { 0 };
	char qgid[48];
	int ret;

	ret = vc_fact_subvol_qgroup(fs, id, &q);
	if (ret == -ENOENT) {
		rec_emit(kv, &rec_subvol_qgroup_none, &none);
		return 0;
	}
	if (ret)
		return ret;
	if (!q.info) {
		rec_emit(kv, &rec_subvol_qgroup_none, &none);
		warning("qgroup 0/%llu does not exist", (unsigned long long)id);
		return 0;
	}
	snprintf(qgid, sizeof(qgid), "0/%llu", (unsigned long long)id);
	r.qgroupid = qgid;
	r.max_rfer = q.l.max_rfer;
	r.max_excl = q.l.max_excl;
	r.rfer = q.i.rfer;
	r.excl = q.i.excl;
	rec_emit(kv, &rec_subvol_qgroup, &r);
	return 0;
}

/* Chain of ids from the top level down to @s, for pre-order sorting. */
static size_t subvol_chain(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s,
			   u64 *ids, size_t max)
{
	size_t n = 0;

	while (s && n < max) {
		ids[n++] = s->id;
		if (s->id == BTRFS_FS_TREE_OBJECTID || s->deleted)
			break;
		s = btrfs_subvol_list_find(l, s->parent_id);
	}
	for (size_t i = 0; i < n / 2; i++) {
		u64 t = ids[i];

		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
	return n;
}

#define CHAIN_MAX 64

struct snap_ref {
	const struct btrfs_subvol *s;
	size_t n;
	u64 chain[CHAIN_MAX];
};

static int snap_ref_cmp(const void *a, const void *b)
{
	const struct snap_ref *x = a, *y = b;

	for (size_t i = 0; i < x->n && i < y->n; i++)
		if (x->chain[i] != y->chain[i])
			return x->chain[i] < y->chain[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Snapshots of @s with a path (vc_fact_snapshots_of()), in tree pre-order. */
static int show_snapshots(struct kvout *kv, const struct btrfs_subvol_list *l,
			  const struct btrfs_subvol *s)
{
	const struct btrfs_subvol **snaps;
	struct snap_ref *refs;
	const char **paths;
	size_t nr;
	int ret;

	ret = vc_fact_snapshots_of(l, s, VC_SNAPS_NO_UNREACHABLE, &snaps, &nr);
	if (ret)
		return ret;
	refs = calloc(nr ? nr : 1, sizeof(*refs));
	paths = calloc(nr + 1, sizeof(*paths));
	if (!refs || !paths) {
		free(refs);
		free(paths);
		free(snaps);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		refs[i].s = snaps[i];
		refs[i].n = subvol_chain(l, snaps[i], refs[i].chain, CHAIN_MAX);
	}
	qsort(refs, nr, sizeof(*refs), snap_ref_cmp);
	for (size_t i = 0; i < nr; i++)
		paths[i] = refs[i].s->path;
	rec_emit(kv, &rec_subvol_snaps, &(struct subvol_snaps_rec){ "", paths });
	free(paths);
	free(refs);
	free(snaps);
	return 0;
}

static const char *const cmd_subvolume_show_usage[] = {
	"subvolume show [options] <subvolume>",
	"subvolume show [options] -r <id>|-u <uuid> <path>",
	NULL,
};
static const char *const cmd_subvolume_show_details[] = {
	"Show details of a subvolume: the one at <subvolume>, or the one with the",
	"given id or UUID in the filesystem holding <path>.",
	"",
	OPTLINE("-r|--rootid <id>", "show the subvolume with this id"),
	OPTLINE("-u|--uuid <uuid>", "show the subvolume with this UUID"),
	OPTLINE("-b|--raw", "quota sizes in bytes (whatever unit is given too)"),
	OPTLINE("-h|--human-readable", "quota sizes with binary units (default)"),
	OPTLINE("-H", "quota sizes with decimal units"),
	OPTLINE("--iec, --si", "binary or decimal units, keeping a fixed unit"),
	OPTLINE("-k|--kbytes, -m|--mbytes, -g|--gbytes, -t|--tbytes", "a fixed unit"),
	"The unit options combine as in btrfs-progs: see volctl-subvolume(8).",
	NULL,
};
static const struct cmd_help cmd_show_help = {
	cmd_subvolume_show_usage, "show details of a subvolume", cmd_subvolume_show_details,
};

static int parse_uuid(const char *s, u8 out[16])
{
	int n = 0;

	for (const char *p = s; *p; p++) {
		int hi, lo;

		if (*p == '-' && (p - s == 8 || p - s == 13 || p - s == 18 || p - s == 23))
			continue;
		if (!p[1] || n >= 16)
			return -EINVAL;
		hi = (*p >= '0' && *p <= '9') ? *p - '0' :
		     (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;
		p++;
		lo = (*p >= '0' && *p <= '9') ? *p - '0' :
		     (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[n++] = (u8)(hi << 4 | lo);
	}
	return n == 16 ? 0 : -EINVAL;
}

/*
 * The subvolume show is about: @id (given), the one of @uuid (its bytes @u), or
 * the one at @path, found in @l (loaded here).  Prints the error.
 */
static int show_find(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		     const u64 *id, const char *uuid, const u8 *u, struct btrfs_subvol_list *l,
		     const struct btrfs_subvol **s)
{
	struct vc_path_info info;
	u64 want = id ? *id : 0;
	int ret;

	if (!id && !uuid) {
		ret = sv_require_subvol(ctx, fs, path, &info);
		if (ret)
			return ret;
		want = info.subvolid;
	}
	ret = sv_load_list(ctx, fs, l);
	if (ret)
		return ret;
	*s = uuid ? btrfs_subvol_list_find_uuid(l, u) : btrfs_subvol_list_find(l, want);
	if (*s)
		return 0;
	if (uuid)
		error("%s: no subvolume with uuid %s", path, uuid);
	else
		error("%s: no subvolume with id %llu", path, (unsigned long long)want);
	return -ENOENT;
}

static int cmd_subvolume_show(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	static const struct option longopts[] = {
		{ "rootid", required_argument, NULL, 'r' },
		{ "uuid", required_argument, NULL, 'u' },	/* not a column label */
		{ NULL, 0, NULL, 0 },
	};
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *s;
	struct vc_fs *fs = NULL;
	struct kvout kv;
	unsigned int units;
	const char *rootid = NULL, *uuid = NULL, *path;
	char *abs = NULL;
	u64 id = 0;
	u8 u[16];
	int c, ret;

	units = units_from_args(&argc, argv, true);
	while ((c = cmd_getopt(ctx, argc, argv, "r:u:", longopts)) != -1) {
		switch (c) {
		case 'r':
			rootid = optarg;
			break;
		case 'u':
			uuid = optarg;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (rootid && uuid)
		return cmd_usage_error(ctx, "-r and -u are mutually exclusive");
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	path = argv[optind];
	if (rootid && (ret = parse_u64(rootid, &id)) != 0)
		return cmd_usage_error(ctx, "invalid subvolume id '%s': %s", rootid,
				       parse_strerror(ret, "not a number"));
	if (uuid && parse_uuid(uuid, u))
		return cmd_usage_error(ctx, "invalid uuid '%s'", uuid);
	if (cmd_open(ctx, path, false, &fs))
		return VC_EXIT_FAILURE;
	ret = show_find(ctx, fs, path, rootid ? &id : NULL, uuid, u, &l, &s);
	if (ret)
		goto out;
	if (!(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY) && !vc_uuid_is_zero(s->root.received_uuid))
		warning("subvolume %llu is read-write and has received_uuid set: an incremental "
			"send from it can fail; clear received_uuid or make it read-only",
			(unsigned long long)s->id);
	abs = subvol_abs(ctx, fs, s);
	kvout_init(&kv, ctx->cfg, stdout, units);
	rec_doc_begin(&kv, &rec_doc_subvolume_show);
	kvout_object_open(&kv, rec_doc_key(&kv, &rec_doc_subvolume_show));
	kvout_heading(&kv, s->id == BTRFS_FS_TREE_OBJECTID ? "/" : s->path ? s->path : "DELETED");
	subvol_emit(&kv, s, s->path, abs, s->parent_id);
	ret = show_snapshots(&kv, &l, s);
	if (!ret)
		ret = show_quota(&kv, fs, s->id);
	kvout_object_close(&kv);
	kvout_document_close(&kv);
	if (ret)
		cmd_report(ctx, fs, ret, "cannot read the quota tree");
out:
	free(abs);
	btrfs_subvol_list_release(&l);
	cmd_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* list                                                                */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_list_usage[] = {
	"subvolume list [options] <path>",
	NULL,
};
static const char *const cmd_subvolume_list_details[] = {
	"List the subvolumes of the filesystem holding <path>.  Paths of subvolumes",
	"below the subvolume of <path> are relative to it, others to the top level.",
	"",
	"Paths and filters:",
	OPTLINE("-o", "only subvolumes directly below the subvolume of <path>"),
	OPTLINE("-a", "all, with paths from the top level; <FS_TREE>/ marks those not\n\tdirectly below the subvolume of <path>"),
	OPTLINE("-s", "only snapshots"),
	OPTLINE("-r", "only read-only subvolumes"),
	OPTLINE("-d", "only deleted subvolumes not yet cleaned"),
	OPTLINE("-G [+|-]<gen>", "generation >= (+), <= (-) or = <gen>"),
	OPTLINE("-C [+|-]<gen>", "creation generation >= (+), <= (-) or = <gen>"),
	"Columns:",
	OPTLINE("-p", "parent id"),
	OPTLINE("-c", "creation generation (cgen)"),
	OPTLINE("-g", "generation (always shown)"),
	OPTLINE("-u", "uuid"),	/* not a column label */
	OPTLINE("-q", "parent uuid"),
	OPTLINE("-R", "received uuid"),
	OPTLINE("-t", "print a table"),
	OPTLINE("--sort=[+|-]rootid|gen|ogen|path[,...]", "sort order (default rootid)"),
	NULL,
};
static const struct cmd_help cmd_list_help = {
	cmd_subvolume_list_usage, "list subvolumes", cmd_subvolume_list_details,
};

/* the columns subvolume list shows without options (and get-default) */
#define LIST_COLS_DEFAULT	(SV_COL_ID | SV_COL_GEN | SV_COL_TOP | SV_COL_PATH)

enum sort_key { SORT_ROOTID, SORT_GEN, SORT_OGEN, SORT_PATH };

struct gen_filter {
	bool on;
	int cmp;	/* -1: <=, 0: =, 1: >= */
	u64 value;
};

struct list_opts {
	bool below_only, all, table, snapshots, readonly, deleted;
	unsigned int cols;	/* SV_COL_* of the columns shown (common/output/records.h) */
	struct gen_filter gen, ogen;
	size_t nsort;
	struct { enum sort_key key; bool desc; } sort[8];
	bool nsort_asked;	/* an order other than plain ascending rootid */
};

struct list_row {
	const struct btrfs_subvol *s;
	const char *path;	/* as shown; NULL for DELETED */
	char *owned;		/* path when made for the row (-a), else NULL */
	u64 top_level;
};

static int parse_gen_filter(const char *arg, struct gen_filter *f)
{
	f->cmp = 0;
	if (*arg == '+' || *arg == '-')
		f->cmp = *arg++ == '+' ? 1 : -1;
	f->on = true;
	return parse_u64(arg, &f->value);
}

static bool gen_match(const struct gen_filter *f, u64 v)
{
	if (!f->on)
		return true;
	return f->cmp > 0 ? v >= f->value : f->cmp < 0 ? v <= f->value : v == f->value;
}

static int parse_sort(struct list_opts *o, const char *arg)
{
	static const char *const names[] = {
		"rootid", "gen", "ogen", "path",	/* sort keys: not a column label */
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool desc = false;
		size_t k;

		if (*tok == '+' || *tok == '-')
			desc = *tok++ == '-';
		for (k = 0; k < 4; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == 4 || o->nsort == 7) {
			ret = -EINVAL;
			break;
		}
		o->sort[o->nsort].key = (enum sort_key)k;
		o->sort[o->nsort].desc = desc;
		o->nsort++;
	}
	free(copy);
	return ret;
}

static int row_cmp(const void *a, const void *b, void *priv)
{
	const struct list_opts *sort_opts = priv;
	const struct list_row *x = a, *y = b;

	for (size_t i = 0; i < sort_opts->nsort; i++) {
		int c = 0;

		switch (sort_opts->sort[i].key) {
		case SORT_ROOTID:
			c = x->s->id < y->s->id ? -1 : x->s->id > y->s->id;
			break;
		case SORT_GEN:
			c = x->s->root.generation < y->s->root.generation ? -1 :
			    x->s->root.generation > y->s->root.generation;
			break;
		case SORT_OGEN:
			c = subvol_ogen(x->s) < subvol_ogen(y->s) ? -1 :
			    subvol_ogen(x->s) > subvol_ogen(y->s);
			break;
		case SORT_PATH:
			c = strcmp(x->path ? x->path : "DELETED", y->path ? y->path : "DELETED");
			break;
		}
		if (c)
			return sort_opts->sort[i].desc ? -c : c;
	}
	return 0;
}

/* The row of @s, or false when the filters drop it. */
static int list_row_make(const struct list_opts *o, const struct btrfs_subvol_list *l,
			 const struct btrfs_subvol *s, const struct btrfs_subvol *top,
			 struct list_row *row, bool *keep)
{
	bool gone = s->deleted || !s->path;

	*keep = false;
	if (s->id == BTRFS_FS_TREE_OBJECTID || gone != o->deleted)
		return 0;
	if (o->below_only && s->parent_id != top->id)
		return 0;
	if (o->snapshots && !s->root_offset)
		return 0;
	if (o->readonly && !(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY))
		return 0;
	if (!gen_match(&o->gen, s->root.generation) || !gen_match(&o->ogen, subvol_ogen(s)))
		return 0;
	row->s = s;
	row->path = NULL;
	row->owned = NULL;
	row->top_level = gone ? 0 : s->parent_id;
	*keep = true;
	if (gone)
		return 0;
	/* the list outlives the rows: point into its paths, copy only for -a */
	if (o->all && s->parent_id != top->id) {
		row->owned = path_join2("<FS_TREE>", s->path);
		row->path = row->owned;
		return row->owned ? 0 : -ENOMEM;
	}
	if (!o->all && !o->below_only && top->path && top->id != BTRFS_FS_TREE_OBJECTID &&
	    vc_subvol_below(l, s, top->id))
		row->path = s->path + strlen(top->path) + 1;
	else
		row->path = s->path;
	return 0;
}

/*
 * The text output buffer: lines are formatted straight into it and it goes
 * out in 64 KiB writes (printf per field, or stdio's 4 KiB buffer, cost
 * more than the tree search at 10,000 rows).  One line is capped at
 * LINE_MAX_LEN, as before.
 */
#define LINE_MAX_LEN	8192
#define OUT_BUF_SIZE	(64 * 1024)

struct line {
	char buf[OUT_BUF_SIZE];
	size_t len;		/* bytes buffered */
	size_t start;		/* where the current line began */
};

static void line_mem(struct line *ln, const char *str, size_t n)
{
	size_t room = ln->start + LINE_MAX_LEN - 1 - ln->len;

	if (n > room)
		n = room;
	memcpy(ln->buf + ln->len, str, n);
	ln->len += n;
}

static void line_str(struct line *ln, const char *str)
{
	line_mem(ln, str, strlen(str));
}

static void line_flush(struct line *ln)
{
	if (ln->len)
		fwrite(ln->buf, 1, ln->len, stdout);
	ln->len = 0;
	ln->start = 0;
}

/* Start a line, flushing first when a full-length one might not fit. */
static void line_begin(struct line *ln)
{
	if (sizeof(ln->buf) - ln->len < LINE_MAX_LEN)
		line_flush(ln);
	ln->start = ln->len;
}

static void line_u64(struct line *ln, u64 v)
{
	char tmp[24];
	int i = sizeof(tmp);

	tmp[--i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	line_str(ln, tmp + i);
}

/* @text padded to @f's width */
static void line_cell(struct line *ln, const struct rec_field *f, const char *text)
{
	char pad[64];
	size_t n = strlen(text);

	if (n >= (size_t)f->width || (size_t)f->width >= sizeof(pad)) {
		line_str(ln, text);
		return;
	}
	snprintf(pad, sizeof(pad), f->align == REC_LEFT ? "%-*s" : "%*s", f->width, text);
	line_str(ln, pad);
}

/* The value of column @f of @rec: numbers and the path straight into the line */
static void list_value(struct line *ln, struct rec_text *cell, const struct rec_field *f,
		       const struct subvol_list_row_rec *rec)
{
	const char *text;

	switch (f->kind) {
	case REC_U64:
		line_u64(ln, *(const u64 *)((const char *)rec + f->off));
		break;
	case REC_STR:
		line_str(ln, *(const char *const *)((const char *)rec + f->off));
		break;
	default:
		text = rec_cell(cell, f, rec, UNITS_DEFAULT);
		line_cell(ln, f, text ? text : "");
		break;
	}
}

/*
 * The columns shown, in the order of rec_subvol_list_row, with what goes
 * around each value: "<label> " after a space between columns, or with -t a
 * tab after each but the last (two for REC_TAB2).  Made once per listing.
 */
struct list_layout {
	size_t nr;
	struct {
		const struct rec_field *f;
		char before[48];
		const char *after;
		size_t before_len, after_len;
	} col[16];
};

static void list_layout_init(struct list_layout *lo, const struct list_opts *o)
{
	const struct rec_desc *d = &rec_subvol_list_row;

	lo->nr = 0;
	for (size_t i = 0; i < d->nr && lo->nr < sizeof(lo->col) / sizeof(lo->col[0]); i++) {
		const struct rec_field *f = &d->fields[i];

		if (!rec_col_shown(f, o->cols))
			continue;
		lo->col[lo->nr].f = f;
		lo->col[lo->nr].before[0] = '\0';
		lo->col[lo->nr].after = "";
		if (!o->table)
			snprintf(lo->col[lo->nr].before, sizeof(lo->col[0].before), "%s%s ",
				 lo->nr ? " " : "", f->label);
		else if (i + 1 < d->nr)
			lo->col[lo->nr].after = f->flags & REC_TAB2 ? "\t\t" : "\t";
		lo->col[lo->nr].before_len = strlen(lo->col[lo->nr].before);
		lo->col[lo->nr].after_len = strlen(lo->col[lo->nr].after);
		lo->nr++;
	}
}

/* -t: the labels of the columns shown, and a rule of dashes under them */
static void list_print_header(struct line *ln, const struct list_opts *o,
			      const struct list_layout *lo)
{
	int lines = rec_subvol_list_row.table & REC_TAB_RULE ? 2 : 1;

	if (!o->table)
		return;
	for (int rule = 0; rule < lines; rule++) {
		line_begin(ln);
		for (size_t i = 0; i < lo->nr; i++) {
			const char *label = lo->col[i].f->label;

			if (rule)
				for (size_t n = strlen(label); n; n--)
					line_str(ln, "-");
			else
				line_str(ln, label);
			line_str(ln, "\t");
		}
		ln->buf[ln->len++] = '\n';
	}
}

/* One subvolume, in the columns of @lo */
static void list_print_row(struct line *ln, struct rec_text *cell, const struct list_layout *lo,
			   const struct list_row *r)
{
	const struct btrfs_subvol *s = r->s;
	const struct subvol_list_row_rec rec = {
		.id = s->id,
		.gen = s->root.generation,
		.cgen = subvol_ogen(s),
		.parent = r->top_level,
		.top_level = r->top_level,
		.otime = s->root.otime.sec,
		.parent_uuid = s->root.parent_uuid,
		.received_uuid = s->root.received_uuid,
		.uuid = s->root.uuid,
		.path = r->path ? r->path : "DELETED",
	};

	line_begin(ln);
	for (size_t i = 0; i < lo->nr; i++) {
		if (lo->col[i].before_len)
			line_mem(ln, lo->col[i].before, lo->col[i].before_len);
		list_value(ln, cell, lo->col[i].f, &rec);
		if (lo->col[i].after_len)
			line_mem(ln, lo->col[i].after, lo->col[i].after_len);
	}
	ln->buf[ln->len++] = '\n';
}

static struct line *line_new(void)
{
	struct line *ln = malloc(sizeof(*ln));

	if (ln) {
		ln->len = 0;
		ln->start = 0;
	}
	return ln;
}

static int list_print_text(const struct list_opts *o, const struct list_row *rows, size_t nr)
{
	struct line *ln = line_new();
	struct rec_text cell = { 0 };
	struct list_layout lo;

	if (!ln)
		return -ENOMEM;
	list_layout_init(&lo, o);
	list_print_header(ln, o, &lo);
	for (size_t i = 0; i < nr; i++)
		list_print_row(ln, &cell, &lo, &rows[i]);
	line_flush(ln);
	rec_text_release(&cell);
	free(ln);
	return 0;
}

/*
 * Text in id order, the default: each row is printed as it is made, with
 * no row array to sort.
 */
static int list_stream_text(const struct list_opts *o, const struct btrfs_subvol_list *l,
			    const struct btrfs_subvol *top)
{
	struct line *ln = line_new();
	struct rec_text cell = { 0 };
	struct list_layout lo;
	int ret = 0;

	if (!ln)
		return -ENOMEM;
	list_layout_init(&lo, o);
	list_print_header(ln, o, &lo);
	for (size_t i = 0; i < l->nr && !ret; i++) {
		struct list_row row;
		bool keep;

		ret = list_row_make(o, l, &l->subvols[i], top, &row, &keep);
		if (ret || !keep)
			continue;
		list_print_row(ln, &cell, &lo, &row);
		free(row.owned);
	}
	line_flush(ln);
	rec_text_release(&cell);
	free(ln);
	return ret;
}

static void list_print_json(const struct vc_ctx *ctx, struct vc_fs *fs,
			    const struct list_row *rows, size_t nr)
{
	char **abs = calloc(nr ? nr : 1, sizeof(*abs));
	struct kvout kv;

	for (size_t i = 0; abs && i < nr; i++)
		abs[i] = subvol_abs(ctx, fs, rows[i].s);
	kvout_init(&kv, ctx->cfg, stdout, UNITS_DEFAULT);
	rec_doc_begin(&kv, &rec_doc_subvolume_list);
	kvout_array_open(&kv, rec_doc_key(&kv, &rec_doc_subvolume_list));
	for (size_t i = 0; i < nr; i++) {
		kvout_object_open(&kv, NULL);
		subvol_emit(&kv, rows[i].s, rows[i].path, abs ? abs[i] : NULL, rows[i].top_level);
		kvout_object_close(&kv);
	}
	kvout_array_close(&kv);
	kvout_document_close(&kv);
	for (size_t i = 0; abs && i < nr; i++)
		free(abs[i]);
	free(abs);
}

static int list_run(const struct vc_ctx *ctx, struct list_opts *o, const char *path)
{
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *top;
	struct list_row *rows = NULL;
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	size_t nr = 0;
	int ret;

	ret = cmd_open(ctx, path, false, &fs);
	if (ret)
		return ret;
	ret = sv_path_info(ctx, fs, path, &info);
	if (ret) {
		cmd_report(ctx, fs, ret, path);
		goto out;
	}
	ret = sv_load_list(ctx, fs, &l);
	if (ret)
		goto out;
	top = btrfs_subvol_list_find(&l, info.subvolid);
	if (!top) {
		error("%s: its subvolume %llu is not in the root tree", path,
		      (unsigned long long)info.subvolid);
		ret = -EUCLEAN;
		goto out;
	}
	/* rows are made in id order: the default sort needs no row array */
	if (!o->nsort_asked && ctx->cfg->format != VC_FORMAT_JSON && !ctx->cfg->quiet) {
		ret = list_stream_text(o, &l, top);
		if (ret)
			error("out of memory");
		goto out;
	}
	rows = calloc(l.nr ? l.nr : 1, sizeof(*rows));
	if (!rows) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.nr && !ret; i++) {
		bool keep;

		ret = list_row_make(o, &l, &l.subvols[i], top, &rows[nr], &keep);
		if (keep)
			nr++;
	}
	if (ret) {
		error("out of memory");
		goto out;
	}
	if (o->nsort_asked)
		qsort_r(rows, nr, sizeof(*rows), row_cmp, o);
	if (ctx->cfg->quiet)
		goto out;
	if (ctx->cfg->format == VC_FORMAT_JSON)
		list_print_json(ctx, fs, rows, nr);
	else if ((ret = list_print_text(o, rows, nr)) != 0)
		error("out of memory");
out:
	for (size_t i = 0; i < nr; i++)
		free(rows[i].owned);
	free(rows);
	btrfs_subvol_list_release(&l);
	cmd_close(ctx, fs);
	return ret;
}

static int cmd_subvolume_list(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	enum { OPT_SORT = 256 };
	static const struct option longopts[] = {
		{ "sort", required_argument, NULL, OPT_SORT },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { 0 };
	bool has_rootid = false;
	int c, ret;

	o.cols = LIST_COLS_DEFAULT;
	while ((c = cmd_getopt(ctx, argc, argv, "oapcgquRtsrdG:C:", longopts)) != -1) {
		switch (c) {
		case 'o': o.below_only = true; break;
		case 'a': o.all = true; break;
		case 'p': o.cols |= SV_COL_PARENT; break;
		case 'c': o.cols |= SV_COL_CGEN; break;
		case 'g': o.cols |= SV_COL_GEN; break;
		case 'q': o.cols |= SV_COL_PUUID; break;
		case 'u': o.cols |= SV_COL_UUID; break;
		case 'R': o.cols |= SV_COL_RUUID; break;
		case 't': o.table = true; break;
		case 's':
			o.snapshots = true;
			o.cols |= SV_COL_CGEN | SV_COL_OTIME;
			break;
		case 'r': o.readonly = true; break;
		case 'd': o.deleted = true; break;
		case 'G':
		case 'C':
			ret = parse_gen_filter(optarg, c == 'G' ? &o.gen : &o.ogen);
			if (ret)
				return cmd_usage_error(ctx, "invalid generation filter '-%c %s': %s",
						       c, optarg,
						       parse_strerror(ret, "expected [+|-]<number>"));
			o.cols |= c == 'G' ? SV_COL_GEN : SV_COL_CGEN;
			break;
		case OPT_SORT:
			ret = parse_sort(&o, optarg);
			if (ret)
				return cmd_usage_error(ctx, "invalid --sort '%s': keys are rootid, "
						       "gen, ogen, path with an optional + or -",
						       optarg);
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (o.all && o.below_only)
		return cmd_usage_error(ctx, "-a and -o are mutually exclusive");
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	for (size_t i = 0; i < o.nsort; i++)
		has_rootid |= o.sort[i].key == SORT_ROOTID;
	if (!has_rootid) {
		o.sort[o.nsort].key = SORT_ROOTID;
		o.sort[o.nsort].desc = false;
		o.nsort++;
	}
	o.nsort_asked = o.nsort > 1 || o.sort[0].desc || o.sort[0].key != SORT_ROOTID;
	return list_run(ctx, &o, argv[optind]) ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* get-default, set-default                                            */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_get_default_usage[] = {
	"subvolume get-default <path>",
	NULL,
};
static const struct cmd_help cmd_get_default_help = {
	cmd_subvolume_get_default_usage, "show the default subvolume of a filesystem", NULL,
};

static int cmd_subvolume_get_default(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				     int argc, char **argv)
{
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *s;
	struct vc_fs *fs = NULL;
	struct kvout kv;
	u64 id;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	if (cmd_open(ctx, argv[optind], false, &fs))
		return VC_EXIT_FAILURE;
	vc_fs_clear_error(fs);
	ret = vc_fact_default_subvol(fs, &id);
	if (ret == -ENOENT) {
		error("%s: the filesystem has no default subvolume entry", argv[optind]);
		goto out;
	} else if (ret) {
		cmd_report(ctx, fs, ret, "cannot read the default subvolume");
		goto out;
	}
	ret = sv_load_list(ctx, fs, &l);
	if (ret)
		goto out;
	s = btrfs_subvol_list_find(&l, id);
	if (!s) {
		error("%s: default subvolume %llu does not exist", argv[optind],
		      (unsigned long long)id);
		ret = -ENOENT;
		goto out;
	}
	kvout_init(&kv, ctx->cfg, stdout, UNITS_DEFAULT);
	if (kv.json) {
		char *abs = subvol_abs(ctx, fs, s);

		rec_doc_begin(&kv, &rec_doc_subvolume_get_default);
		kvout_object_open(&kv, rec_doc_key(&kv, &rec_doc_subvolume_get_default));
		subvol_emit(&kv, s, s->path, abs, s->parent_id);
		kvout_object_close(&kv);
		kvout_document_close(&kv);
		free(abs);
	} else if (id == BTRFS_FS_TREE_OBJECTID) {
		pr_out(ctx->cfg, "ID 5 (FS_TREE)\n");
	} else if (!ctx->cfg->quiet) {
		/* the line subvolume list prints for it */
		const struct list_opts o = { .cols = LIST_COLS_DEFAULT };
		const struct list_row row = { .s = s, .path = s->path, .top_level = s->parent_id };

		ret = list_print_text(&o, &row, 1);
		if (ret)
			error("out of memory");
	}
out:
	btrfs_subvol_list_release(&l);
	cmd_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* Commands of the read side (listed in subvolume.c's group table)     */
/* ------------------------------------------------------------------ */

#define READ_FLAGS	(CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE)

const struct cmd_struct cmd_struct_subvolume_list = {
	"list", cmd_subvolume_list, &cmd_list_help, NULL, READ_FLAGS,
};
const struct cmd_struct cmd_struct_subvolume_show = {
	"show", cmd_subvolume_show, &cmd_show_help, NULL, READ_FLAGS,
};
const struct cmd_struct cmd_struct_subvolume_get_default = {
	"get-default", cmd_subvolume_get_default, &cmd_get_default_help, NULL, READ_FLAGS,
};
