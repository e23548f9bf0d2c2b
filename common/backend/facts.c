// SPDX-License-Identifier: GPL-2.0-only
/*
 * The facts API (common/backend/facts.h): answers for both backends, read through
 * the backend's item source with the parsers of kernel-shared/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/backend/facts.h"
#include "kernel-shared/acct-types.h"
#include "kernel-shared/items.h"

bool vc_uuid_is_zero(const u8 *u)
{
	for (int i = 0; i < BTRFS_UUID_SIZE; i++)
		if (u[i])
			return false;
	return true;
}

int vc_facts_subvols(struct vc_fs *fs, struct btrfs_subvol_list *l)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);

	return btrfs_subvol_list_load(&src, l);
}

bool vc_subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top)
{
	size_t depth = 0;

	/* depth bounds a parent loop in a corrupt image */
	while (s && s->id != BTRFS_FS_TREE_OBJECTID && !s->deleted && depth++ <= l->nr) {
		if (s->parent_id == top)
			return true;
		s = btrfs_subvol_list_find(l, s->parent_id);
	}
	return false;
}

int vc_fact_snapshots_of(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s,
			 unsigned int flags, const struct btrfs_subvol ***out, size_t *nr)
{
	const struct btrfs_subvol **snaps = malloc((l->nr ? l->nr : 1) * sizeof(*snaps));
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!snaps)
		return -ENOMEM;
	for (size_t i = 0; !vc_uuid_is_zero(s->root.uuid) && i < l->nr; i++) {
		const struct btrfs_subvol *c = &l->subvols[i];

		if (memcmp(c->root.parent_uuid, s->root.uuid, BTRFS_UUID_SIZE) ||
		    ((flags & VC_SNAPS_NO_SELF) && c->id == s->id) ||
		    ((flags & VC_SNAPS_NO_DELETED) && c->deleted) ||
		    ((flags & VC_SNAPS_NO_UNREACHABLE) && !c->path))
			continue;
		snaps[n++] = c;
	}
	*out = snaps;
	*nr = n;
	return 0;
}

static int cmp_uuid_of(const void *a, const void *b, void *priv)
{
	const struct btrfs_subvol *const *live = priv;

	return memcmp(live[*(const size_t *)a]->root.uuid, live[*(const size_t *)b]->root.uuid,
		      BTRFS_UUID_SIZE);
}

/* By a binary search over the uuids: thousands of snapshots cost n log n, not n^2 */
int vc_fact_snapshot_origins(const struct btrfs_subvol *const *live, size_t n, size_t *origin)
{
	size_t *by_uuid = malloc((n ? n : 1) * sizeof(*by_uuid));

	if (!by_uuid)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by_uuid[i] = i;
	qsort_r(by_uuid, n, sizeof(*by_uuid), cmp_uuid_of, (void *)live);
	for (size_t i = 0; i < n; i++) {
		const u8 *want = live[i]->root.parent_uuid;
		size_t lo = 0, hi = n;

		origin[i] = BTRFS_ACCT_NO_ORIGIN;
		if (vc_uuid_is_zero(want))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = memcmp(live[by_uuid[mid]]->root.uuid, want, BTRFS_UUID_SIZE);

			if (!c) {
				origin[i] = by_uuid[mid] != i ? by_uuid[mid] : BTRFS_ACCT_NO_ORIGIN;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	free(by_uuid);
	return 0;
}

int vc_fact_default_subvol(struct vc_fs *fs, u64 *id)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);

	return btrfs_default_subvol(&src, id);
}

int vc_fact_inode_path(struct vc_fs *fs, u64 tree, u64 ino, char **path)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);

	return btrfs_inode_path(&src, tree, ino, path);
}

static int found_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	*(bool *)priv = true;
	return 1;
}

int vc_fact_qgroup_present(struct vc_fs *fs, u64 qgroupid, bool *present)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct btrfs_key k = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };

	*present = false;
	return btrfs_item_source_search(&src, BTRFS_QUOTA_TREE_OBJECTID, &k, &k, found_cb,
					present);
}

struct qgroup_items {
	u64 qgroupid;
	struct vc_qgroup_fact *q;
};

static int qgroup_items_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct qgroup_items *it = priv;

	/* the range also holds the INFO of higher and LIMIT of lower qgroups */
	if (key->offset != it->qgroupid)
		return 0;
	if (key->type == BTRFS_QGROUP_INFO_KEY)
		it->q->info = btrfs_decode_qgroup_info(data, len, &it->q->i) == 0;
	else if (key->type == BTRFS_QGROUP_LIMIT_KEY)
		it->q->limit = btrfs_decode_qgroup_limit(data, len, &it->q->l) == 0;
	return 0;
}

int vc_fact_subvol_qgroup(struct vc_fs *fs, u64 id, struct vc_qgroup_fact *q)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct btrfs_key min = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_key max = { 0, BTRFS_QGROUP_LIMIT_KEY, id };
	struct qgroup_items it = { .qgroupid = id, .q = q };

	memset(q, 0, sizeof(*q));
	return btrfs_item_source_search(&src, BTRFS_QUOTA_TREE_OBJECTID, &min, &max,
					qgroup_items_cb, &it);
}

static int highest_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	u64 *highest = priv;
	u64 id = key->type == BTRFS_ORPHAN_ITEM_KEY ? key->offset : key->objectid;

	if ((key->type == BTRFS_ROOT_ITEM_KEY || key->type == BTRFS_ORPHAN_ITEM_KEY) &&
	    id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID && id > *highest)
		*highest = id;
	return 0;
}

int vc_fact_highest_subvol_id(struct vc_fs *fs, u64 *highest)
{
	struct btrfs_key min = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { (u64)-1, BTRFS_ORPHAN_ITEM_KEY, (u64)-1 };
	struct btrfs_item_source src = vc_fs_item_source(fs);

	*highest = 0;
	return btrfs_item_source_search(&src, BTRFS_ROOT_TREE_OBJECTID, &min, &max, highest_cb,
					highest);
}

struct deleted_walk {
	int (*cb)(void *priv, u64 id);
	void *priv;
};

static int orphan_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct deleted_walk *w = priv;

	if (key->type != BTRFS_ORPHAN_ITEM_KEY)
		return 0;
	return w->cb(w->priv, key->offset);
}

int vc_fact_deleted_subvols(struct vc_fs *fs, int (*cb)(void *priv, u64 id), void *priv)
{
	struct btrfs_key min = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, (u64)-1 };
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct deleted_walk w = { cb, priv };

	return btrfs_item_source_search(&src, BTRFS_ROOT_TREE_OBJECTID, &min, &max, orphan_cb, &w);
}
