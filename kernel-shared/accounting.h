/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The offline qgroup accounting engine: exact referenced and exclusive bytes
 * of every qgroup, computed from the trees of an unmounted filesystem.
 *
 * Model (on-disk-engine.md section 10): every extent has a root set, the fs
 * trees (5, >= 256, dead ones included) from which it is reachable.  A qgroup
 * G counts the extent in rfer when some root of the set lies below G, and in
 * excl when all of them do.  Data extents weigh their disk size (the
 * EXTENT_ITEM key offset), tree blocks the nodesize.
 *
 * How it is computed, with memory bounded by the number of tree blocks and
 * of distinct root sets, never by the number of data extents or back refs:
 *
 *  1. Every distinct block of every fs tree is visited once, level by level
 *     from the top.  A block's root set is the union of its parents' sets
 *     (plus the tree id for a root block); sets are interned (hash-consed,
 *     struct btrfs_rootsets) and unions memoised, so a subtree shared by
 *     thousands of snapshots costs one union per edge, not per snapshot.
 *  2. The extent tree is streamed in bytenr order.  Each data extent's back
 *     refs are resolved to leaves: SHARED_DATA_REF names the leaf,
 *     EXTENT_DATA_REF(root, ino, offset) is found by a search in that root
 *     (the path of the last search per root is cached).  The extent's set is
 *     the union of those leaves' sets.
 *  3. Bytes are accumulated per interned set, then each set's bytes are given
 *     to the qgroups once.
 *
 * Simple quotas: data extents are charged to their EXTENT_OWNER_REF root and
 * tree blocks to their header owner, both only when the extent generation is
 * >= the quota enable generation; rfer == excl.
 *
 * Dead roots (unlinked, not yet dropped) count as roots.  A partly dropped
 * root (drop_progress set) contributes nothing below the part already
 * dropped: at drop_level, slots whose key is below drop_progress are
 * skipped, above it slots whose whole key range lies below it.
 *
 * Never prints; errors are negative errno, -EUCLEAN with fs->errmsg for
 * corrupt metadata.
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCOUNTING_H
#define VOLCTL_KERNEL_SHARED_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include "acct-types.h"
#include "format.h"
#include "u64map.h"

struct btrfs_fs;
struct btrfs_qgroup_list;

/* ---- interned root sets (acct-rootset.c) ---------------------------------------------- */

/*
 * A store of sets of tree ids.  Each distinct set gets a small id; id 0 is
 * the empty set; equal sets get equal ids.  A set is kept as a bitmap over
 * dense tree numbers when that is no longer than its member list, else as
 * the list (tree ids sorted); btrfs_rootsets_copy() lists either kind.
 */
/* A memoised union of three or more sets (acct-rootset.c) */
struct btrfs_rootset_many {
	u64 hash;		/* of the sorted ids; 0 with n == 0 marks an empty entry */
	u32 off, n;		/* ids in many_ids[off .. off + n) */
	u32 result;
};

struct btrfs_rootsets {
	u64 *members;		/* the member lists of the sets kept as lists, concatenated */
	size_t nr_members, alloc_members;
	size_t *start;		/* set id -> offset in members */
	u32 *len;		/* set id -> member count */
	size_t *bits_at;	/* set id -> its own bitmap in set_bits, or (size_t)-1 */
	u32 *bits_words;	/* set id -> words of that bitmap */
	u64 *set_bits;		/* bitmaps of the sets that keep one, concatenated */
	size_t nr_set_bits, alloc_set_bits;
	u32 nr, alloc;		/* sets, including the empty one */
	struct btrfs_u64map table;	/* content hash (of the dense bitmap's words) -> set ids */
	struct btrfs_u64map memo;	/* a << 32 | b (a < b) -> id of a ∪ b */
	u32 memo_max;		/* cleared when it reaches this many entries */
	/* tree ids numbered densely in order of appearance, for bitmap unions */
	u32 *member_dense;	/* dense number of each member, parallel to members */
	/* (sets kept as a bitmap have no member list) */
	u64 *dense_ids;		/* dense number -> tree id */
	u32 nr_dense, alloc_dense;
	struct btrfs_u64map dense_map;	/* tree id -> dense number */
	bool dense_sorted;	/* ids appeared in increasing order: dense order is id order */
	u64 *bitmap;		/* the set being built; all zero between calls */
	size_t bitmap_words;	/* covers nr_dense */
	struct btrfs_rootset_many *many;	/* allocated on first use */
	u32 many_size;		/* power of two */
	u32 *many_ids;
	size_t many_nr_ids;
	/* statistics */
	u64 unions, memo_hits;

};

int btrfs_rootsets_init(struct btrfs_rootsets *rs);
void btrfs_rootsets_release(struct btrfs_rootsets *rs);

/**
 * btrfs_rootsets_intern - the id of the set with the @n members @ids
 * @ids:	any order, duplicates allowed (the array is not changed)
 * Return: 0 and *@id, or -ENOMEM.
 */
int btrfs_rootsets_intern(struct btrfs_rootsets *rs, const u64 *ids, size_t n, u32 *id);

/** btrfs_rootsets_single - the id of {@root} */
int btrfs_rootsets_single(struct btrfs_rootsets *rs, u64 root, u32 *id);

/** btrfs_rootsets_union - the id of @a ∪ @b, memoised */
int btrfs_rootsets_union(struct btrfs_rootsets *rs, u32 a, u32 b, u32 *out);

/**
 * btrfs_rootsets_union_many - the id of the union of the @n sets @ids
 *
 * Only the result is interned (no intermediate sets); @ids is compacted in
 * place (empty sets and repeats in a row dropped).  Two sets go through the
 * memoised btrfs_rootsets_union(); more through a memo keyed by the list.
 */
int btrfs_rootsets_union_many(struct btrfs_rootsets *rs, u32 *ids, size_t n, u32 *out);

/** btrfs_rootsets_remove - the id of @a without @root */
int btrfs_rootsets_remove(struct btrfs_rootsets *rs, u32 a, u64 root, u32 *out);

/** btrfs_rootsets_has - whether @root is a member of set @a */
bool btrfs_rootsets_has(const struct btrfs_rootsets *rs, u32 a, u64 root);

/**
 * btrfs_rootsets_copy - the members of set @id, sorted by tree id
 * @ids:	receives the tree ids (may be NULL)
 * @dense:	receives their dense numbers
 *
 * Each array needs room for btrfs_rootsets_len() entries (at most nr_dense).
 * Return: the number of members.
 */
u32 btrfs_rootsets_copy(const struct btrfs_rootsets *rs, u32 id, u64 *ids, u32 *dense);

/** btrfs_rootsets_len - the number of members of set @id */
static inline u32 btrfs_rootsets_len(const struct btrfs_rootsets *rs, u32 id)
{
	return rs->len[id];
}

/**
 * btrfs_rootsets_count_in - how many members of set @id are among the @n
 * tree ids @ids (repeats in @ids count once)
 */
u32 btrfs_rootsets_count_in(const struct btrfs_rootsets *rs, u32 id, const u64 *ids, size_t n);

/* ---- the engine (accounting.c, acct-*.c) ------------------------------------------------ */

enum btrfs_acct_phase {
	BTRFS_ACCT_PHASE_ROOTS,		/* reading ROOT_ITEMs */
	BTRFS_ACCT_PHASE_TREES,		/* walking fs tree blocks */
	BTRFS_ACCT_PHASE_EXTENTS,	/* streaming the extent tree */
	BTRFS_ACCT_PHASE_DONE,
};

/* Called now and then (every few thousand items); return <0 to abort with it */
typedef int (*btrfs_acct_progress_fn)(void *priv, enum btrfs_acct_phase phase, u64 done);

struct btrfs_acct_options {
	bool read_leaves;		/* also read and verify every leaf of every fs tree */
	bool simple;			/* simple-quota (owner based) numbers */
	u64 enable_gen;			/* simple quotas: extents older than this count nothing */
	btrfs_acct_progress_fn progress;
	void *progress_priv;
};

struct btrfs_acct;

/**
 * btrfs_acct_run - compute the root set of every fs tree block and data extent
 * @fs:		open filesystem (read only is enough)
 * @opts:	may be NULL (full accounting, nodes only)
 * @out:	receives the result; free with btrfs_acct_free()
 *
 * Return: 0; -EUCLEAN (fs->errmsg names the block or item), -EIO, -ENOMEM,
 * or the progress callback's error.
 */
int btrfs_acct_run(struct btrfs_fs *fs, const struct btrfs_acct_options *opts,
		   struct btrfs_acct **out);
void btrfs_acct_free(struct btrfs_acct *acct);

void btrfs_acct_get_stats(const struct btrfs_acct *acct, struct btrfs_acct_stats *stats);

/** btrfs_acct_roots - the fs trees found, sorted by id */
const struct btrfs_acct_root *btrfs_acct_roots(const struct btrfs_acct *acct, size_t *nr);

/**
 * btrfs_acct_qgroups - numbers of every qgroup of @list
 * @counts:	array of list->nr, filled in list order
 *
 * Relations are followed transitively upward from each level-0 group 0/id
 * of a root id.  Roots without a qgroup still count in a set's size.
 * Return: 0 or -ENOMEM.
 */
int btrfs_acct_qgroups(const struct btrfs_acct *acct, const struct btrfs_qgroup_list *list,
		       struct btrfs_acct_counts *counts);

/**
 * btrfs_acct_subvols - numbers of an arbitrary set of subvolumes
 * @ids:	subvolume (tree) ids, any order
 *
 * rfer: bytes reachable from any of them; excl: bytes reachable from them
 * only, i.e. what deleting all of them would free.
 */
void btrfs_acct_subvols(const struct btrfs_acct *acct, const u64 *ids, size_t n,
			struct btrfs_acct_counts *counts);

/**
 * btrfs_acct_orphan_relations - relation items naming a qgroup that is gone
 * (kernel 6.18 leaves them when it removes the qgroup of a dropped subvolume)
 * @rels:	array of @max; *@nr receives the total number found
 * Return: 0, -ENOENT without a quota tree, or the reader's error.
 */
int btrfs_acct_orphan_relations(struct btrfs_fs *fs, const struct btrfs_qgroup_list *list,
				struct btrfs_acct_orphan_rel *rels, size_t max, size_t *nr);

#endif /* VOLCTL_KERNEL_SHARED_ACCOUNTING_H */
