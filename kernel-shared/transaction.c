// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transactions: start, commit, abort (see transaction.h).
 *
 * Commit order (on-disk-engine 11): copy the root tree's root so it is new
 * in T; loop { pending extent updates, block group items, qgroup deltas,
 * ROOT_ITEMs of changed trees } until a pass does nothing; with a
 * recompute requested, the engine's numbers into every qgroup and loop
 * again; the qgroup limit check; then write every live new block to every
 * copy on every member device, flush them all, the primary superblock on
 * every member (one backup slot filled), flush, the mirror superblocks
 * (members.c).  Everything before the first primary superblock write
 * can fail without changing what the image means.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "super.h"
#include "volumes.h"
#include "transaction.h"
#include "squota.h"
#include "chunk-alloc.h"
#include "qgroup-recompute.h"
#include "members.h"

/* Features whose on-disk structures this writer does not maintain */
static int check_write_features(struct btrfs_fs *fs)
{
	static const u64 incompat_ok = BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF |
		BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL | BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO |
		BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD | BTRFS_FEATURE_INCOMPAT_BIG_METADATA |
		BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF | BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA |
		BTRFS_FEATURE_INCOMPAT_NO_HOLES | BTRFS_FEATURE_INCOMPAT_RAID1C34 |
		BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA |
		BTRFS_FEATURE_INCOMPAT_RAID56;	/* data only: parity metadata is refused (members.c) */
	static const u64 compat_ro_ok = BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
		BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID |
		BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;
	u64 incompat = btrfs_super_incompat_flags(&fs->super);
	u64 compat_ro = btrfs_super_compat_ro_flags(&fs->super);
	u64 bad;

	bad = incompat & ~incompat_ok;
	if (bad) {
		u64 bit = bad & -bad;
		const char *name = btrfs_incompat_name(bit);

		if (name)
			btrfs_fs_set_error(fs, "incompat feature %s: writing not implemented offline yet", name);
		else
			btrfs_fs_set_error(fs, "unknown incompat feature 0x%llx: cannot write",
					   (unsigned long long)bit);
		return -EOPNOTSUPP;
	}
	bad = compat_ro & ~compat_ro_ok;
	if (bad) {
		u64 bit = bad & -bad;
		const char *name = btrfs_compat_ro_name(bit);

		if (name)
			btrfs_fs_set_error(fs, "compat_ro feature %s: writing not implemented offline yet", name);
		else
			btrfs_fs_set_error(fs, "unknown compat_ro feature 0x%llx: cannot write",
					   (unsigned long long)bit);
		return -EOPNOTSUPP;
	}
	if (!(incompat & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA)) {
		btrfs_fs_set_error(fs, "filesystem without skinny-metadata: writing not implemented offline yet");
		return -EOPNOTSUPP;
	}
	if ((compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) &&
	    !(compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID)) {
		btrfs_fs_set_error(fs, "free space tree not marked valid: cannot write");
		return -EOPNOTSUPP;
	}
	/* btrfs_fs_open(writable) checked the members (members.c); never write degraded */
	for (size_t i = 0; i < fs->nr_devices; i++) {
		if (!fs->devices[i]->io) {
			btrfs_fs_set_error(fs, "device %llu is missing: a degraded filesystem is never written",
					   (unsigned long long)fs->devices[i]->devid);
			return -ENXIO;
		}
	}
	if (btrfs_super_log_root(&fs->super)) {
		btrfs_fs_set_error(fs, "log tree present (needs replay by the kernel): cannot write");
		return -EOPNOTSUPP;
	}
	if (btrfs_super_cache_generation(&fs->super) != 0 &&
	    btrfs_super_cache_generation(&fs->super) != (u64)-1 &&
	    !(compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		btrfs_fs_set_error(fs, "space cache v1 in use: writing not implemented offline yet");
		return -EOPNOTSUPP;
	}
	return 0;
}

int btrfs_start_transaction(struct btrfs_fs *fs, struct btrfs_trans_handle **out)
{
	struct btrfs_trans_handle *trans;
	struct btrfs_root *root;
	int ret;

	*out = NULL;
	if (!fs->writable) {
		btrfs_fs_set_error(fs, "filesystem opened read-only");
		return -EROFS;
	}
	ret = check_write_features(fs);
	if (ret < 0)
		return ret;
	trans = calloc(1, sizeof(*trans));
	if (!trans)
		return -ENOMEM;
	trans->fs = fs;
	trans->transid = fs->generation + 1;
	trans->nr_roots_at_start = fs->nr_roots;
	trans->super_at_start = fs->super;
	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret == 0)
		trans->quota_on = true;
	else if (ret != -ENOENT)
		goto fail;
	ret = btrfs_squota_load(trans);
	if (ret < 0)
		goto fail;
	ret = btrfs_alloc_init(trans);
	if (ret < 0)
		goto fail;
	ret = btrfs_qgroup_trans_begin(trans);
	if (ret < 0) {
		btrfs_alloc_release(&trans->alloc);
		goto fail;
	}
	*out = trans;
	return 0;
fail:
	free(trans);
	return ret;
}

void btrfs_trans_recompute_qgroups(struct btrfs_trans_handle *trans)
{
	/* simple quotas charge by owner: sharing never makes the deltas inexact */
	if (trans->quota_on && !trans->squota)
		trans->qgroup_recompute = true;
}

void btrfs_trans_ignore_qgroup_limits(struct btrfs_trans_handle *trans)
{
	trans->qgroup_no_limits = true;
}

bool btrfs_trans_block_is_new(const struct btrfs_trans_handle *trans,
			      const struct extent_buffer *eb)
{
	uint32_t pos, idx;
	bool found = false;
	size_t last = 0;

	if (btrfs_eb_generation(eb) != trans->transid || !(eb->flags & EXTENT_BUFFER_DIRTY))
		return false;
	/* the latest allocation of this buffer decides */
	pos = btrfs_u64map_first(&trans->block_index, eb->start);
	while (btrfs_u64map_next(&trans->block_index, eb->start, &pos, &idx)) {
		if (trans->blocks[idx].eb == eb && (!found || idx > last)) {
			last = idx;
			found = true;
		}
	}
	return found && !trans->blocks[last].freed;
}

int btrfs_trans_track_root(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   bool dirty)
{
	struct btrfs_trans_root *tr;

	for (size_t i = 0; i < trans->nr_roots; i++) {
		if (trans->roots[i].root == root) {
			trans->roots[i].dirty |= dirty;
			return 0;
		}
	}
	if (trans->nr_roots == trans->roots_cap) {
		size_t ncap = trans->roots_cap ? trans->roots_cap * 2 : 16;
		struct btrfs_trans_root *p = realloc(trans->roots, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		trans->roots = p;
		trans->roots_cap = ncap;
	}
	tr = &trans->roots[trans->nr_roots++];
	memset(tr, 0, sizeof(*tr));
	tr->root = root;
	tr->dirty = dirty;
	tr->bytenr = root->bytenr;
	tr->generation = root->generation;
	tr->level = root->level;
	tr->root_item = root->root_item;
	tr->node = root->node ? extent_buffer_get(root->node) : NULL;
	return 0;
}

/* Write the ROOT_ITEM of every changed tree but the root tree itself */
static int update_root_items(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	int done = 0;
	int ret;

	for (size_t i = 0; i < trans->nr_roots; i++) {
		struct btrfs_trans_root *tr = &trans->roots[i];
		struct btrfs_root *root = tr->root;
		struct btrfs_root_item *ri = &root->root_item;

		if (!tr->dirty || root->id == BTRFS_ROOT_TREE_OBJECTID ||
		    root->id == BTRFS_CHUNK_TREE_OBJECTID)
			continue;
		tr->dirty = false;
		btrfs_set_root_bytenr(ri, root->bytenr);
		btrfs_set_root_level(ri, root->level);
		btrfs_set_root_generation(ri, root->generation);
		btrfs_set_root_generation_v2(ri, root->generation);
		if (root->item_size != sizeof(*ri)) {
			btrfs_fs_set_error(fs, "tree %llu: legacy root item, writing not implemented offline yet",
					   (unsigned long long)root->id);
			return -EOPNOTSUPP;
		}
		ret = btrfs_update_item(trans, fs->tree_root, &root->root_key, ri, sizeof(*ri));
		if (ret < 0)
			return ret;
		done++;
	}
	return done;
}

static int update_qgroup_status(struct btrfs_trans_handle *trans)
{
	struct btrfs_root *root;
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_path path;
	u8 *p;
	u32 len;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -EUCLEAN;
	}
	p = btrfs_path_item_ptr(&path, &len);
	if (len >= 16)
		put_le64(p + 8, trans->transid);
	btrfs_path_release(&path);
	return 0;
}

static void fill_backup(struct btrfs_fs *fs, struct btrfs_super_block *sb)
{
	struct btrfs_root_backup *b;
	u64 old_gen = btrfs_super_generation(&fs->super);
	u64 gen = btrfs_super_generation(sb);
	int slot = -1;
	struct {
		u64 id;
		void (*set)(struct btrfs_root_backup *, u64);
		void (*set_gen)(struct btrfs_root_backup *, u64);
		void (*set_level)(struct btrfs_root_backup *, u8);
	} trees[] = {
		{ BTRFS_EXTENT_TREE_OBJECTID, btrfs_set_backup_extent_root,
		  btrfs_set_backup_extent_root_gen, btrfs_set_backup_extent_root_level },
		{ BTRFS_FS_TREE_OBJECTID, btrfs_set_backup_fs_root, btrfs_set_backup_fs_root_gen,
		  btrfs_set_backup_fs_root_level },
		{ BTRFS_DEV_TREE_OBJECTID, btrfs_set_backup_dev_root, btrfs_set_backup_dev_root_gen,
		  btrfs_set_backup_dev_root_level },
		{ BTRFS_CSUM_TREE_OBJECTID, btrfs_set_backup_csum_root,
		  btrfs_set_backup_csum_root_gen, btrfs_set_backup_csum_root_level },
	};

	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		if (btrfs_backup_tree_root_gen(btrfs_super_backup(sb, i)) == gen) {
			slot = i;
			break;
		}
	}
	if (slot < 0) {
		slot = 0;
		for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
			if (btrfs_backup_tree_root_gen(btrfs_super_backup(sb, i)) == old_gen) {
				slot = (i + 1) % BTRFS_NUM_BACKUP_ROOTS;
				break;
			}
		}
	}
	b = btrfs_super_backup(sb, slot);
	memset(b, 0, sizeof(*b));
	btrfs_set_backup_tree_root(b, btrfs_super_root(sb));
	btrfs_set_backup_tree_root_gen(b, gen);
	btrfs_set_backup_tree_root_level(b, btrfs_super_root_level(sb));
	btrfs_set_backup_chunk_root(b, btrfs_super_chunk_root(sb));
	btrfs_set_backup_chunk_root_gen(b, btrfs_super_chunk_root_generation(sb));
	btrfs_set_backup_chunk_root_level(b, btrfs_super_chunk_root_level(sb));
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct btrfs_root *root;

		if (btrfs_read_root(fs, trees[i].id, &root) < 0)
			continue;
		trees[i].set(b, root->bytenr);
		trees[i].set_gen(b, root->generation);
		trees[i].set_level(b, root->level);
	}
	btrfs_set_backup_total_bytes(b, btrfs_super_total_bytes(sb));
	btrfs_set_backup_bytes_used(b, btrfs_super_bytes_used(sb));
	btrfs_set_backup_num_devices(b, btrfs_super_num_devices(sb));
}

static void trans_free(struct btrfs_trans_handle *trans)
{
	btrfs_qgroup_trans_end(trans);
	for (size_t i = 0; i < trans->nr_blocks; i++)
		free_extent_buffer(trans->blocks[i].eb);
	for (size_t i = 0; i < trans->nr_roots; i++)
		free_extent_buffer(trans->roots[i].node);
	btrfs_alloc_release(&trans->alloc);
	free(trans->blocks);
	btrfs_u64map_release(&trans->block_index);
	free(trans->frees);
	btrfs_data_release(trans);
	free(trans->qdeltas);
	free(trans->roots);
	free(trans);
}

void btrfs_abort_transaction(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs;
	size_t start;

	if (!trans)
		return;
	fs = trans->fs;
	btrfs_chunk_alloc_abort(trans);
	for (size_t i = trans->nr_roots; i-- > 0;) {
		struct btrfs_trans_root *tr = &trans->roots[i];
		struct btrfs_root *root = tr->root;

		free_extent_buffer(root->node);
		root->node = tr->node;
		tr->node = NULL;
		root->bytenr = tr->bytenr;
		root->generation = tr->generation;
		root->level = tr->level;
		root->root_item = tr->root_item;
	}
	start = trans->nr_roots_at_start;
	fs->super = trans->super_at_start;
	trans_free(trans);
	/* roots read during T may describe trees that exist only in T */
	for (size_t i = start; i < fs->nr_roots; i++) {
		free_extent_buffer(fs->roots[i]->node);
		free(fs->roots[i]);
	}
	if (fs->nr_roots > start)
		fs->nr_roots = start;
	/* new blocks nobody references any more leave the cache */
	btrfs_eb_cache_drop_dirty(fs);
}

/* Apply pending work until a whole pass changes nothing */
static int converge(struct btrfs_trans_handle *trans)
{
	for (int pass = 0; pass < 64; pass++) {
		int done = 0, ret;

		/* items of new chunks first: block group items must exist when rewritten */
		ret = btrfs_chunk_create_items(trans);
		if (ret < 0)
			return ret;
		done += ret;
		ret = btrfs_run_pending(trans);
		if (ret < 0)
			return ret;
		done += ret;
		ret = btrfs_chunk_create_items(trans);
		if (ret < 0)
			return ret;
		done += ret;
		ret = btrfs_write_dirty_block_groups(trans);
		if (ret < 0)
			return ret;
		done += ret;
		ret = btrfs_run_qgroup_deltas(trans);
		if (ret < 0)
			return ret;
		done += ret;
		ret = update_root_items(trans);
		if (ret < 0)
			return ret;
		done += ret;
		if (!done)
			return 0;
	}
	btrfs_fs_set_error(trans->fs, "transaction %llu: extent updates do not converge",
			   (unsigned long long)trans->transid);
	return -ELOOP;
}

/* Σ used of the block groups must equal the new super bytes_used */
static int verify_bytes_used(struct btrfs_trans_handle *trans, u64 bytes_used)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	u64 sum = 0;

	for (size_t i = 0; i < ctx->nr_bgs; i++)
		sum += ctx->bgs[i].used;
	if (sum != bytes_used) {
		btrfs_fs_set_error(fs, "transaction %llu: bytes used %llu but block groups sum to %llu",
				   (unsigned long long)trans->transid, (unsigned long long)bytes_used,
				   (unsigned long long)sum);
		return -EUCLEAN;
	}
	return 0;
}

/*
 * Checksum every live new block and run the reader's block verification
 * (tree-checker included) on it, and validate the new superblock
 */
static int verify_new_blocks(struct btrfs_trans_handle *trans, struct btrfs_super_block *sb)
{
	struct btrfs_fs *fs = trans->fs;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	int ret;

	for (size_t i = 0; i < trans->nr_blocks; i++) {
		struct extent_buffer *eb = trans->blocks[i].eb;

		if (trans->blocks[i].freed)
			continue;
		ret = btrfs_csum_data(fs->csum_type, eb->data + BTRFS_CSUM_SIZE,
				      eb->len - BTRFS_CSUM_SIZE, csum);
		if (ret < 0)
			return ret;
		btrfs_set_header_csum((struct btrfs_header *)eb->data, csum);
		ret = btrfs_verify_tree_block(fs, eb->start, eb->data, NULL);
		if (ret < 0) {
			btrfs_fs_set_error_once(fs, "transaction %llu: new tree block %llu fails verification",
						(unsigned long long)trans->transid,
						(unsigned long long)eb->start);
			return ret;
		}
	}
	btrfs_set_super_bytenr(sb, BTRFS_SUPER_INFO_OFFSET);
	ret = btrfs_super_csum_update(sb);
	if (!ret)
		ret = btrfs_super_validate(sb, BTRFS_SUPER_INFO_OFFSET, msg);
	if (ret < 0)
		btrfs_fs_set_error(fs, "transaction %llu: new superblock invalid: %s",
				   (unsigned long long)trans->transid, msg);
	return ret;
}

int btrfs_mark_unfinished(struct btrfs_fs *fs, bool unfinished)
{
	bool was = fs->unfinished;
	int primaries;
	int ret;

	if (!fs->writable)
		return -EROFS;
	ret = btrfs_super_guard_check(&fs->super_guard, fs->errmsg);
	if (ret < 0)
		return ret;
	fs->unfinished = unfinished;
	if (unfinished)
		ret = btrfs_members_write_supers_mirrors_first(fs, &fs->super, &primaries);
	else
		ret = btrfs_members_write_supers(fs, &fs->super, &primaries);
	if (!ret)
		ret = btrfs_members_flush(fs);
	if (ret < 0 && !primaries)
		fs->unfinished = was;
	return ret;
}

int btrfs_commit_transaction(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_super_block sb;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int primaries;
	int ret;

	/* the root tree's root must be a block of T (super generation == its generation) */
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, fs->tree_root, &key, &path, 0);
	btrfs_path_release(&path);
	if (ret < 0)
		goto abort;
	ret = btrfs_fst_drop_stale(trans);
	if (ret < 0)
		goto abort;
	ret = btrfs_csum_flush(trans);
	if (ret < 0)
		goto abort;
	if (trans->quota_on) {
		ret = update_qgroup_status(trans);
		if (ret < 0)
			goto abort;
	}
	ret = converge(trans);
	if (ret < 0)
		goto abort;
	if (trans->quota_on && trans->qgroup_recompute) {
		/* fs trees are final: their numbers do not change any more */
		ret = btrfs_qgroup_commit_recompute(trans);
		if (!ret)
			ret = converge(trans);
		if (ret < 0)
			goto abort;
	}
	if (trans->quota_on) {
		ret = btrfs_qgroup_commit_check_limits(trans);
		if (ret < 0)
			goto abort;
	}

	sb = fs->super;
	btrfs_set_super_generation(&sb, trans->transid);
	btrfs_set_super_root(&sb, fs->tree_root->bytenr);
	btrfs_set_super_root_level(&sb, fs->tree_root->level);
	btrfs_set_super_bytes_used(&sb, btrfs_super_bytes_used(&sb) + (u64)trans->bytes_used_delta);
	btrfs_set_super_flags(&sb, btrfs_super_flags(&sb) | BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_super_incompat_flags(&sb, btrfs_super_incompat_flags(&sb) | trans->incompat_set);
	btrfs_set_super_log_root(&sb, 0);
	btrfs_set_super_log_root_level(&sb, 0);
	{
		struct btrfs_root *uuid_root;

		if (btrfs_read_root(fs, BTRFS_UUID_TREE_OBJECTID, &uuid_root) == 0)
			btrfs_set_super_uuid_tree_generation(&sb, trans->transid);
	}
	btrfs_chunk_update_super(trans, &sb);
	ret = verify_bytes_used(trans, btrfs_super_bytes_used(&sb));
	if (ret < 0)
		goto abort;
	fill_backup(fs, &sb);

	/* nothing is written unless every new block passes the reader's checks */
	ret = verify_new_blocks(trans, &sb);
	if (ret < 0)
		goto abort;
	for (size_t i = 0; i < trans->nr_blocks; i++) {
		if (trans->blocks[i].freed)
			continue;
		ret = btrfs_write_tree_block(fs, trans->blocks[i].eb);
		if (ret < 0)
			goto abort;
	}
	ret = btrfs_members_flush(fs);
	if (ret < 0)
		goto abort;
	/* new blocks went to free space only: refused here, the image is as it was */
	ret = btrfs_super_guard_check(&fs->super_guard, fs->errmsg);
	if (ret < 0)
		goto abort;
	ret = btrfs_members_write_supers(fs, &sb, &primaries);
	if (ret < 0) {
		/* before the first primary copy nothing a reader sees has changed */
		if (primaries && (size_t)primaries < fs->nr_devices)
			btrfs_fs_set_error(fs, "transaction %llu: committed on %d of %zu devices only, "
					   "then failed: the kernel mounts the new state; its next commit brings the others up to date",
					   (unsigned long long)trans->transid, primaries, fs->nr_devices);
		else if (primaries)
			btrfs_fs_set_error(fs, "transaction %llu: committed, but a mirror superblock copy was not written",
					   (unsigned long long)trans->transid);
		goto abort;
	}
	fs->super = sb;
	fs->generation = trans->transid;
	for (size_t i = 0; i < trans->nr_blocks; i++)
		btrfs_clear_buffer_dirty(trans->blocks[i].eb);
	trans_free(trans);
	return 0;
abort:
	btrfs_abort_transaction(trans);
	return ret;
}

int btrfs_run_transaction(struct btrfs_fs *fs, unsigned int flags, btrfs_trans_op_fn op,
			  void *arg)
{
	struct btrfs_trans_handle *trans;
	int ret;

	btrfs_fs_clear_error(fs);
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		return ret;
	if (flags & BTRFS_RUN_NO_QGROUP_LIMITS)
		btrfs_trans_ignore_qgroup_limits(trans);
	ret = op(trans, arg);
	if (ret) {
		btrfs_abort_transaction(trans);
		return ret;
	}
	return btrfs_commit_transaction(trans);
}
