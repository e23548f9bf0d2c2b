// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the quota tree into a struct btrfs_qgroup_list: see qgroup-list.h.
 *
 * One range search over tree 8 visits STATUS, then every INFO, every LIMIT
 * (all with objectid 0, so in qgroupid order within each type) and finally
 * the RELATION items keyed by qgroupid.  Groups are kept sorted as they come;
 * relations are collected and attached at the end, when both ends are known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qgroup-list.h"
#include "subvol-list.h"

struct relation {
	u64 parent;
	u64 child;
};

struct load_ctx {
	struct btrfs_qgroup_list *list;
	size_t alloc;
	struct relation *rels;
	size_t nr_rels, alloc_rels;
};

const char *btrfs_qgroupid_str(u64 qgroupid, char *buf)
{
	snprintf(buf, BTRFS_QGROUPID_BUFSIZE, "%u/%" PRIu64, btrfs_qgroup_level(qgroupid),
		 btrfs_qgroup_subvolid(qgroupid));
	return buf;
}

/* Index of the first group with qgroupid >= @id. */
static size_t lower_bound(const struct btrfs_qgroup_list *list, u64 id)
{
	size_t lo = 0, hi = list->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list->groups[mid].qgroupid < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct btrfs_qgroup *btrfs_qgroup_list_find(const struct btrfs_qgroup_list *list, u64 qgroupid)
{
	size_t i = lower_bound(list, qgroupid);

	if (i < list->nr && list->groups[i].qgroupid == qgroupid)
		return &list->groups[i];
	return NULL;
}

/* The group @id, inserted in order if new; NULL on -ENOMEM. */
static struct btrfs_qgroup *get_group(struct load_ctx *ctx, u64 id)
{
	struct btrfs_qgroup_list *list = ctx->list;
	size_t i = lower_bound(list, id);

	if (i < list->nr && list->groups[i].qgroupid == id)
		return &list->groups[i];
	if (list->nr == ctx->alloc) {
		size_t n = ctx->alloc ? ctx->alloc * 2 : 64;
		struct btrfs_qgroup *g = realloc(list->groups, n * sizeof(*g));

		if (!g)
			return NULL;
		list->groups = g;
		ctx->alloc = n;
	}
	memmove(&list->groups[i + 1], &list->groups[i], (list->nr - i) * sizeof(*list->groups));
	memset(&list->groups[i], 0, sizeof(*list->groups));
	list->groups[i].qgroupid = id;
	list->nr++;
	return &list->groups[i];
}

static int add_relation(struct load_ctx *ctx, u64 parent, u64 child)
{
	if (ctx->nr_rels == ctx->alloc_rels) {
		size_t n = ctx->alloc_rels ? ctx->alloc_rels * 2 : 64;
		struct relation *r = realloc(ctx->rels, n * sizeof(*r));

		if (!r)
			return -ENOMEM;
		ctx->rels = r;
		ctx->alloc_rels = n;
	}
	ctx->rels[ctx->nr_rels].parent = parent;
	ctx->rels[ctx->nr_rels].child = child;
	ctx->nr_rels++;
	return 0;
}

static int load_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct load_ctx *ctx = priv;
	struct btrfs_qgroup *qg;
	int ret = 0;

	switch (key->type) {
	case BTRFS_QGROUP_STATUS_KEY:
		if (key->objectid || key->offset)
			return 0;
		ret = btrfs_decode_qgroup_status(data, len, &ctx->list->status);
		if (!ret)
			ctx->list->has_status = true;
		return ret;
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		if (key->objectid)
			return 0;
		qg = get_group(ctx, key->offset);
		if (!qg)
			return -ENOMEM;
		if (key->type == BTRFS_QGROUP_INFO_KEY) {
			ret = btrfs_decode_qgroup_info(data, len, &qg->info);
			qg->has_info = !ret;
		} else {
			ret = btrfs_decode_qgroup_limit(data, len, &qg->limit);
			qg->has_limit = !ret;
		}
		return ret;
	case BTRFS_QGROUP_RELATION_KEY:
		/* (parent, 246, child): the kernel also writes the reverse */
		if (key->objectid <= key->offset)
			return 0;
		return add_relation(ctx, key->objectid, key->offset);
	default:
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int push_id(u64 **arr, size_t *nr, u64 id)
{
	u64 *n = realloc(*arr, (*nr + 1) * sizeof(**arr));

	if (!n)
		return -ENOMEM;
	n[(*nr)++] = id;
	*arr = n;
	return 0;
}

static size_t sort_unique(u64 *arr, size_t nr)
{
	size_t out = 0;

	if (!nr)
		return 0;
	qsort(arr, nr, sizeof(*arr), cmp_u64);
	for (size_t i = 1; i < nr; i++)
		if (arr[i] != arr[out])
			arr[++out] = arr[i];
	return out + 1;
}

static int attach_relations(struct load_ctx *ctx)
{
	struct btrfs_qgroup_list *list = ctx->list;

	for (size_t i = 0; i < ctx->nr_rels; i++) {
		struct btrfs_qgroup *parent = btrfs_qgroup_list_find(list, ctx->rels[i].parent);
		struct btrfs_qgroup *child = btrfs_qgroup_list_find(list, ctx->rels[i].child);

		if (!parent || !child)
			continue;
		if (push_id(&parent->children, &parent->nr_children, child->qgroupid) ||
		    push_id(&child->parents, &child->nr_parents, parent->qgroupid))
			return -ENOMEM;
	}
	for (size_t i = 0; i < list->nr; i++) {
		struct btrfs_qgroup *qg = &list->groups[i];

		qg->nr_parents = sort_unique(qg->parents, qg->nr_parents);
		qg->nr_children = sort_unique(qg->children, qg->nr_children);
	}
	return 0;
}

int btrfs_qgroup_list_load(const struct btrfs_item_source *src, struct btrfs_qgroup_list *list)
{
	const struct btrfs_key min = { 0, 0, 0 };
	const struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };
	struct load_ctx ctx = { .list = list };
	int ret;

	memset(list, 0, sizeof(*list));
	ret = btrfs_item_source_search(src, BTRFS_QUOTA_TREE_OBJECTID, &min, &max, load_cb, &ctx);
	if (!ret)
		ret = attach_relations(&ctx);
	free(ctx.rels);
	if (ret)
		btrfs_qgroup_list_release(list);
	return ret;
}

void btrfs_qgroup_list_release(struct btrfs_qgroup_list *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		free(list->groups[i].parents);
		free(list->groups[i].children);
	}
	free(list->groups);
	memset(list, 0, sizeof(*list));
}

void btrfs_qgroup_list_mark(const struct btrfs_qgroup_list *list, u64 qgroupid, bool ancestors,
			    bool *mark)
{
	struct btrfs_qgroup *qg = btrfs_qgroup_list_find(list, qgroupid);
	size_t idx;

	if (!qg)
		return;
	idx = (size_t)(qg - list->groups);
	if (mark[idx])
		return;		/* already visited: also stops cycles */
	mark[idx] = true;
	if (!ancestors)
		return;
	for (size_t i = 0; i < qg->nr_parents; i++)
		btrfs_qgroup_list_mark(list, qg->parents[i], true, mark);
}

enum btrfs_qgroup_kind btrfs_qgroup_kind(const struct btrfs_qgroup_list *list,
					 const struct btrfs_qgroup *qg,
					 const struct btrfs_subvol_list *subvols)
{
	const struct btrfs_subvol *sv;
	u64 id = btrfs_qgroup_subvolid(qg->qgroupid);

	if (btrfs_qgroup_level(qg->qgroupid))
		return BTRFS_QGROUP_KIND_GROUP;
	if (id == BTRFS_FS_TREE_OBJECTID)
		return BTRFS_QGROUP_KIND_TOPLEVEL;
	if (!subvols)
		return BTRFS_QGROUP_KIND_SUBVOL;
	sv = btrfs_subvol_list_find(subvols, id);
	if (!sv) {
		if (btrfs_qgroup_list_is_simple(list) && (qg->info.rfer || qg->info.excl))
			return BTRFS_QGROUP_KIND_SQUOTA_HOLDER;
		return BTRFS_QGROUP_KIND_STALE;
	}
	if (sv->deleted || !sv->path)
		return BTRFS_QGROUP_KIND_UNDER_DELETION;
	return BTRFS_QGROUP_KIND_SUBVOL;
}

unsigned int btrfs_qgroup_status_faults(const struct btrfs_qgroup_status_rec *st,
					const struct btrfs_qstatus_super *sb)
{
	bool simple = st->flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE;
	unsigned int faults = 0;

	if (st->version != BTRFS_QGROUP_STATUS_VERSION)
		faults |= BTRFS_QSTATUS_FAULT_VERSION;
	if (st->flags & ~BTRFS_QGROUP_STATUS_FLAGS_MASK)
		faults |= BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS;
	if (simple && !st->has_enable_gen)
		faults |= BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN;
	if (!sb)
		return faults;
	if (simple && !(sb->incompat & BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA))
		faults |= BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE;
	/*
	 * The kernel's enable_gen is the enabling transaction; volctl's offline
	 * enable writes the next one (its own blocks predate the accounting):
	 * later than that no commit can have written it.
	 */
	if (simple && st->has_enable_gen && st->enable_gen > sb->generation + 1)
		faults |= BTRFS_QSTATUS_FAULT_ENABLE_GEN;
	return faults;
}

const char *btrfs_qgroup_status_fault_str(unsigned int fault,
					  const struct btrfs_qgroup_status_rec *st,
					  const struct btrfs_qstatus_super *sb, char *buf,
					  size_t size)
{
	unsigned long long flags = st->flags;

	switch (fault) {
	case BTRFS_QSTATUS_FAULT_VERSION:
		snprintf(buf, size, "version %llu, not %d (the kernel turns quotas off)",
			 (unsigned long long)st->version, BTRFS_QGROUP_STATUS_VERSION);
		break;
	case BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS:
		snprintf(buf, size, "flags 0x%llx hold unknown bits 0x%llx", flags,
			 flags & ~(unsigned long long)BTRFS_QGROUP_STATUS_FLAGS_MASK);
		break;
	case BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE:
		snprintf(buf, size, "flags 0x%llx say simple quotas, but the incompat feature "
			 "simple_quota is not set", flags);
		break;
	case BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN:
		snprintf(buf, size, "flags 0x%llx say simple quotas, but the item has %u bytes, "
			 "no enable generation", flags, (unsigned int)st->size);
		break;
	case BTRFS_QSTATUS_FAULT_ENABLE_GEN:
		snprintf(buf, size, "simple-quota enable generation %llu is past the filesystem "
			 "generation %llu and the next", (unsigned long long)st->enable_gen,
			 sb ? (unsigned long long)sb->generation : 0ULL);
		break;
	default:
		snprintf(buf, size, "fault 0x%x", fault);
		break;
	}
	return buf;
}

const char *btrfs_qgroup_status_fault_name(unsigned int fault)
{
	switch (fault) {
	case BTRFS_QSTATUS_FAULT_VERSION:
		return "version";
	case BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS:
		return "unknown_flags";
	case BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE:
		return "simple_without_feature";
	case BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN:
		return "no_enable_generation";
	case BTRFS_QSTATUS_FAULT_ENABLE_GEN:
		return "enable_generation_ahead";
	default:
		return "unknown";
	}
}

const char *btrfs_qgroup_status_reason(unsigned int faults,
				       const struct btrfs_qgroup_status_rec *st,
				       const struct btrfs_qstatus_super *sb, char *buf,
				       size_t size)
{
	size_t used = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned int bit = 1; bit & BTRFS_QSTATUS_FAULT_ALL; bit <<= 1) {
		char one[160];
		int n;

		if (!(faults & bit) || used >= size)
			continue;
		btrfs_qgroup_status_fault_str(bit, st, sb, one, sizeof(one));
		n = snprintf(buf + used, size - used, "%s%s", used ? "; " : "", one);
		if (n > 0)
			used += (size_t)n;
	}
	return buf;
}
