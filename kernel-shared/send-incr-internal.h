/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state machine of send-incr.c, shared by its parts (not a public
 * interface): the state the kernel's send keeps, and the functions of
 * send-incr-path.c, send-incr-refs.c, send-incr-data.c and send-incr-clone.c.
 */
#ifndef VOLCTL_KERNEL_SHARED_SEND_INCR_INTERNAL_H
#define VOLCTL_KERNEL_SHARED_SEND_INCR_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "ctree.h"
#include "items.h"
#include "send-clone.h"
#include "send-size.h"
#include "tree-compare.h"

#define CMD_HDR		10u	/* le32 len, le16 cmd, le32 crc */
#define TLV_HDR		4u
#define TLV_U64		(TLV_HDR + 8u)
#define TLV_U32		(TLV_HDR + 4u)
#define TLV_TIME	(TLV_HDR + 12u)
#define TLV_UUID	(TLV_HDR + 16u)
#define STREAM_HDR	17u
#define V1_CHUNK	(48u * 1024)
#define V2_CHUNK	(128u * 1024)
#define SECTOR		4096u
#define CLONE_EOF_ALIGN	65536u
#define NAME_CACHE_MAX	256u
#define UTIMES_CACHE	64u
#define ICACHE_SLOTS	4096u		/* inode items kept, a power of two */
#define TOP		BTRFS_FIRST_FREE_OBJECTID
#define MAX_PATH	4096u
#define MAX_DIR_MOVES	(1ull << 24)

enum istate { ST_NO_CHANGE, ST_WILL_CREATE, ST_DID_CREATE, ST_WILL_DELETE, ST_DID_DELETE };

/* A path being built, as the kernel's fs_path (at most PATH_MAX bytes) */
struct fpath {
	u32 len;
	char s[MAX_PATH + 1];
};

struct iinfo {
	u64 size, gen, mode, uid, gid, rdev, flags, nlink;
};

/* An inode item looked up, or its absence (see si_get_inode_info()) */
struct icent {
	const struct btrfs_root *root;	/* NULL: an empty slot */
	u64 ino;
	int ret;			/* 0 or -ENOENT */
	struct iinfo info;
};

struct rref {
	u64 dir, dir_gen;
	char *path;		/* full path, malloc'd */
	u32 len;		/* of path */
	u32 name;		/* offset of the last component */
};

struct dref {
	u64 dir, dir_gen;
};

struct nce {
	u64 ino, gen, parent_ino, parent_gen;
	int ret;
	bool later;		/* need_later_update */
	u16 name_len;
	char name[256];
};

struct pdm {
	u64 parent_ino, ino, gen;
	struct dref *refs;
	u32 nr_refs;
};

struct pgroup {
	u64 parent_ino;
	struct pdm **pms;
	size_t nr, cap;
};

struct wdm {
	u64 ino, rmdir_ino, rmdir_gen;
	bool orphanized;
};

struct odi {
	u64 ino, gen, last_index, high_ino;
};

struct uent {
	u64 ino, gen;
};


struct inc {
	struct btrfs_fs *fs;
	struct btrfs_root *send, *parent;
	struct btrfs_send_size *out;
	struct clone_search cs;		/* the clone roots, the backref cache */

	/* the compare callback being handled */
	struct btrfs_key cmp_key;
	const struct btrfs_cmp_item *left, *right;

	u64 cur_ino, cur_gen, cur_size, cur_mode, cur_rdev, cur_last_extent, cur_next_write;
	u64 cur_next_write2;		/* protocol 2: a hole (fallocate) does not move it */
	bool cur_new, cur_new_gen, cur_deleted, ignore_cur;
	u64 send_progress;
	u64 moves_applied;		/* delayed directory moves done, bounded */
	struct fpath cur_path;		/* the current inode's path, cached (len 0: none) */

	struct rref *new_refs, *del_refs;
	size_t nr_new, cap_new, nr_del, cap_del;

	/*
	 * The name cache, an LRU of NAME_CACHE_MAX entries as the kernel's:
	 * an entry stays in its slot of nc; nc_order holds the slots in use,
	 * least recently used first, nc_key their keys for the search
	 */
	struct nce *nc;
	struct nckey { u64 ino, gen; } *nc_key;
	u16 *nc_order, *nc_free;
	u32 nr_nc, nr_nc_free;
	struct icent *icache;		/* ICACHE_SLOTS, by tree and inode number */

	struct pgroup *groups;
	size_t nr_groups, cap_groups;
	struct wdm *waiting;
	size_t nr_waiting, cap_waiting;
	struct odi *orphans;
	size_t nr_orphans, cap_orphans;
	u64 *created;			/* directories created out of order */
	size_t nr_created, cap_created;
	struct uent *utimes;		/* [0] least recently used */
	size_t nr_utimes, cap_utimes;
};

struct fext {
	struct btrfs_key key;
	struct btrfs_file_extent_rec fe;
	u32 item_len;
	u32 slot;
};

/* ---- counting and paths ---- */

static inline void cmd2(struct inc *s, u64 b1, u64 b2)
{
	s->out->v1.total += CMD_HDR + b1;
	s->out->v2c.total += CMD_HDR + b2;
	s->out->v1.commands++;
	s->out->v2c.commands++;
}

static inline void cmd(struct inc *s, u64 b)
{
	cmd2(s, b, b);
}

static inline u64 tlvp(const struct fpath *p)
{
	return TLV_HDR + p->len;
}

static inline void fp_reset(struct fpath *p)
{
	p->len = 0;
	p->s[0] = 0;
}

static inline int fp_add(struct fpath *p, const char *name, u32 len)
{
	u32 need = p->len + len + (p->len ? 1 : 0);

	if (need > MAX_PATH)
		return -ENAMETOOLONG;
	if (p->len)
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, len);
	p->len += len;
	p->s[p->len] = 0;
	return 0;
}

static inline int fp_prepend(struct fpath *p, const char *name, u32 len)
{
	u32 sep = p->len ? 1 : 0;

	if (p->len + len + sep > MAX_PATH)
		return -ENAMETOOLONG;
	memmove(p->s + len + sep, p->s, p->len + 1);
	memcpy(p->s, name, len);
	if (sep)
		p->s[len] = '/';
	p->len += len + sep;
	return 0;
}

static inline int fp_copy(struct fpath *p, const char *s, u32 len)
{
	fp_reset(p);
	return fp_add(p, s, len);
}

static inline u64 align_up(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

/* send-incr-path.c */
int si_get_inode_info(struct inc *s, struct btrfs_root *root, u64 ino, struct iinfo *info);
int si_get_inode_gen(struct inc *s, struct btrfs_root *root, u64 ino, u64 *gen);
int si_get_first_ref(struct inc *s, struct btrfs_root *root, u64 ino, u64 *dir, u64 *dir_gen,
		struct fpath *name);
int si_lookup_dir_item_inode(struct btrfs_root *root, u64 dir, const char *name, u32 name_len,
		u64 *found);
int si_gen_unique_name(struct inc *s, u64 ino, u64 gen, struct fpath *dest);
int si_get_cur_inode_state(struct inc *s, u64 ino, u64 gen, u64 *send_gen, u64 *parent_gen);
struct wdm *si_get_waiting(struct inc *s, u64 ino);
void si_free_waiting(struct inc *s, struct wdm *w);
int si_add_waiting(struct inc *s, u64 ino, bool orphanized);
struct odi *si_get_orphan(struct inc *s, u64 ino, u64 gen);
struct odi *si_add_orphan(struct inc *s, u64 ino, u64 gen);
void si_free_orphan(struct inc *s, struct odi *o);
struct pgroup *si_get_group(struct inc *s, u64 parent_ino);
void si_pdm_free(struct pdm *pm);
struct nce *si_nc_lookup(struct inc *s, u64 ino, u64 gen);
void si_nc_remove(struct inc *s, struct nce *e);
bool si_is_waiting_for_move(struct inc *s, u64 ino);
bool si_is_waiting_for_rm(struct inc *s, u64 ino, u64 gen);
int si_will_overwrite_ref(struct inc *s, u64 dir, u64 dir_gen, const char *name, u32 name_len,
		u64 *who_ino, u64 *who_gen, u64 *who_mode);
int si_did_overwrite_ref(struct inc *s, u64 dir, u64 dir_gen, u64 ino, u64 ino_gen,
		const char *name, u32 name_len);
int si_did_overwrite_first_ref(struct inc *s, u64 ino, u64 gen);
int si_is_first_ref(struct inc *s, struct btrfs_root *root, u64 ino, u64 dir, const char *name,
		u32 name_len);
int si_get_cur_name_and_parent(struct inc *s, u64 ino, u64 gen, u64 *parent_ino,
		u64 *parent_gen, struct fpath *dest);
int si_get_cur_path(struct inc *s, u64 ino, u64 gen, struct fpath *dest);
int si_get_inode_path(struct inc *s, struct btrfs_root *root, u64 ino, struct fpath *dest);
void si_send_rename(struct inc *s, const struct fpath *from, const struct fpath *to);
void si_send_link(struct inc *s, const struct fpath *path, const struct fpath *lnk);
void si_send_unlink(struct inc *s, const struct fpath *path);
void si_send_rmdir(struct inc *s, const struct fpath *path);
int si_path_cmd(struct inc *s, u64 ino, u64 gen, u64 extra1, u64 extra2);
int si_send_utimes(struct inc *s, u64 ino, u64 gen);
int si_cache_dir_utimes(struct inc *s, u64 dir, u64 gen);
int si_trim_dir_utimes_cache(struct inc *s);
int si_send_create_inode(struct inc *s, u64 ino);
int si_mark_created(struct inc *s, u64 dir);
int si_did_create_dir(struct inc *s, u64 dir);
int si_send_create_inode_if_needed(struct inc *s);
int si_orphanize_inode(struct inc *s, u64 ino, u64 gen, const struct fpath *path);

/* send-incr-refs.c */
int si_apply_children_dir_moves(struct inc *s);
void si_refs_free(struct rref *a, size_t *nr);
int si_record_item_refs(struct inc *s, bool is_new, const struct btrfs_key *key,
		const u8 *data, u32 len);
int si_process_recorded_refs(struct inc *s, int *pending_move);
int si_process_all_refs(struct inc *s, bool is_new);

/* send-incr-data.c */
int si_xattr_item(struct inc *s, int mode, const u8 *data, u32 len, const u8 *other, u32 other_len);
int si_process_all_new_xattrs(struct inc *s);
int si_send_capabilities(struct inc *s);
int si_fext_decode(struct fext *f, const struct btrfs_key *key, const u8 *data, u32 len, u32 slot);
u64 si_fext_end(const struct inc *s, const struct btrfs_key *key,
		const struct btrfs_file_extent_rec *fe);
u64 si_raw_disk_bytenr(const u8 *data, u32 len);
int si_send_extent_data(struct inc *s, const struct fext *f, u64 len);
int si_send_hole(struct inc *s, u64 end);
int si_send_clone(struct inc *s, const struct croot *c);
int si_get_last_extent(struct inc *s, u64 offset);
int si_range_is_hole_in_parent(struct inc *s, u64 start, u64 end);
bool si_need_send_hole(const struct inc *s);
int si_maybe_send_hole(struct inc *s, const struct fext *f);
int si_process_extent(struct inc *s, const struct fext *f);
int si_process_all_extents(struct inc *s);

/* send-incr-clone.c */
int si_find_extent_clone(struct inc *s, const struct fext *f, struct croot **found);
int si_send_write_or_clone(struct inc *s, const struct fext *f, struct croot *c);

#endif /* VOLCTL_KERNEL_SHARED_SEND_INCR_INTERNAL_H */
