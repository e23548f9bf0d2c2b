/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subvolumes of a filesystem, read through an item source.
 *
 * Owns the reading of ROOT_ITEM and ROOT_BACKREF items of the root tree
 * (tree 1), the "default" DIR_ITEM (objectid 6 of the root tree) and the
 * INODE_REF chains that turn a directory inode into a path.  It never issues
 * an ioctl and never prints: the online backend feeds it TREE_SEARCH_V2
 * results, the offline backend leaf items, so both list the same thing.
 *
 * Invariants of a loaded list:
 *  - subvols[] is sorted by id and holds tree 5 plus every fs tree with a
 *    ROOT_ITEM (ids 256..BTRFS_LAST_FREE_OBJECTID), deleted ones included;
 *  - path is the full path from the top level ("" for 5), NULL when the
 *    chain to 5 cannot be resolved (deleted, or a parent missing);
 *  - names and paths belong to the list (a few large string chunks rather
 *    than two mallocs per subvolume): callers never free or keep them past
 *    btrfs_subvol_list_release();
 *  - corrupt data (a cycle in ROOT_BACKREFs or INODE_REFs, a path deeper
 *    than any real one) ends the load with -EUCLEAN, never a loop.
 */
#ifndef VOLCTL_KSHARED_SUBVOL_LIST_H
#define VOLCTL_KSHARED_SUBVOL_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "items.h"
#include "itemsrc.h"

/*
 * The ROOT_ITEM fields listing and show use, under their items.h names.
 * Not the whole struct btrfs_root_rec: at 10,000 subvolumes the unused
 * half (inode item, block pointers, drop progress) cost more in page
 * faults than the tree search itself.
 */
struct btrfs_subvol_root {
	u64 generation;
	u64 flags;
	u64 ctransid;
	u64 otransid;
	u64 stransid;
	u64 rtransid;
	struct btrfs_time ctime;
	struct btrfs_time otime;
	struct btrfs_time stime;
	struct btrfs_time rtime;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 parent_uuid[BTRFS_UUID_SIZE];
	u8 received_uuid[BTRFS_UUID_SIZE];
	bool has_v2;
};

struct btrfs_subvol {
	u64 id;
	u64 parent_id;		/* tree holding its directory entry (ROOT_BACKREF offset); 0 if none */
	u64 dirid;		/* directory inode in the parent tree */
	char *name;		/* entry name, NULL if none */
	char *path;		/* full path from the top level: "" for 5, "a/b/c"; NULL if unreachable */
	struct btrfs_subvol_root root;	/* from the decoded ROOT_ITEM (items.h) */
	bool deleted;		/* no ROOT_BACKREF: deleted, waiting for the cleaner (ORPHAN item) */
	u64 root_offset;	/* ROOT_ITEM key offset: creation transid of a snapshot, else 0 */
};

struct btrfs_subvol_str_chunk;

struct btrfs_subvol_list {
	size_t nr;
	struct btrfs_subvol *subvols;	/* sorted by id */
	/* private: the names and paths above live in these chunks */
	struct btrfs_subvol_str_chunk *strings;
};

/**
 * btrfs_subvol_list_load - read every subvolume and resolve its path
 * @src:  item source of the filesystem
 * @list: filled on success; release with btrfs_subvol_list_release()
 *
 * One range search over the root tree, then one INODE_REF walk per distinct
 * (parent tree, directory) pair, cached.
 *
 * Return: 0, -ENOMEM, -EUCLEAN on corrupt items, or the source's error.
 */
int btrfs_subvol_list_load(const struct btrfs_item_source *src, struct btrfs_subvol_list *list);
void btrfs_subvol_list_release(struct btrfs_subvol_list *list);

/* Binary search by id; NULL if absent. */
const struct btrfs_subvol *btrfs_subvol_list_find(const struct btrfs_subvol_list *l, u64 id);
/* Linear search by ROOT_ITEM uuid; NULL if absent or @uuid is all zero. */
const struct btrfs_subvol *btrfs_subvol_list_find_uuid(const struct btrfs_subvol_list *l,
						       const u8 uuid[16]);

/**
 * btrfs_default_subvol - the id of the default subvolume
 *
 * Reads the DIR_ITEM named "default" of directory 6 in the root tree.
 * Return: 0 and *id, -ENOENT when there is no such item, or another error.
 */
int btrfs_default_subvol(const struct btrfs_item_source *src, u64 *id);

/**
 * btrfs_inode_path - path of inode @ino of tree @tree, relative to the tree's root
 *
 * Walks INODE_REF items up to BTRFS_FIRST_FREE_OBJECTID.  *path is malloc'ed:
 * "" for the root directory itself, "dir/sub" otherwise (no leading or
 * trailing slash).  An inode with several links gets the first name found.
 *
 * Return: 0, -ENOENT when an inode has no INODE_REF, -EUCLEAN on a cycle or a
 * path too deep, -ENOMEM, or the source's error.
 */
int btrfs_inode_path(const struct btrfs_item_source *src, u64 tree, u64 ino, char **path);

#endif
