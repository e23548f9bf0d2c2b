/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `volctl mkfs`: make a filesystem on a file or device, then create the
 * requested subvolumes through the offline writer.
 */
#ifndef VOLCTL_COMMON_OFFLINE_MKFS_H
#define VOLCTL_COMMON_OFFLINE_MKFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/tool/rootdir.h"

/* --snapshot SRC:DST[:ro], taken after the copy and the subvolumes */
struct vc_mkfs_snapshot {
	const char *src, *dst;		/* clean absolute paths; src "/" is the top level */
	bool readonly;
};

/* --qgroup ID:PATH[,PATH...]: a group above level 0 holding those subvolumes */
struct vc_mkfs_qgroup {
	uint64_t qgroupid;
	const char *const *paths;
	size_t nr_paths;
};

/* --limit SIZE[:e]:PATH|GROUP */
struct vc_mkfs_limit {
	uint64_t bytes;
	bool exclusive;
	const char *path;		/* a subvolume (0/id), or NULL: @qgroupid */
	uint64_t qgroupid;
	const char *arg;		/* as given, for messages */
};

/* What mkfs wrote, read back from the image (--format json) */
struct vc_mkfs_result {
	uint64_t total_bytes;
	uint8_t fsid[16];
	uint64_t subvolumes;		/* below the top level, snapshots included */
	bool quota;
	uint64_t qgroups;
};

struct vc_mkfs_opts {
	const char *path;
	uint64_t size;			/* 0: the whole file or device */
	uint32_t nodesize;		/* 0: 16 KiB */
	uint16_t csum_type;
	const char *label;
	const unsigned char *fsid;	/* NULL: random */
	bool quota;
	bool simple_quota;		/* quotas in simple mode (not with @quota) */
	bool force;			/* overwrite an existing filesystem */
	bool shrink;			/* with @rootdir: the smallest image that holds it */
	bool meta_single;		/* -m single: SYSTEM and METADATA one copy, not DUP */
	const char *const *subvols;	/* created in this order */
	size_t nr_subvols;
	const bool *subvol_ro;		/* per @subvols: made read-only at the end; NULL: none */
	const struct vc_mkfs_snapshot *snapshots;	/* taken in this order */
	size_t nr_snapshots;
	const char *default_subvol;	/* NULL or one of @subvols or of the snapshots */
	const struct vc_mkfs_qgroup *qgroups;	/* made after the snapshots */
	size_t nr_qgroups;
	const struct vc_mkfs_limit *limits;	/* checked before anything is written */
	size_t nr_limits;
	const char *rootdir;		/* --rootdir DIR: copied in, @subvols from its directories */
	const struct vc_inode_flags *iflags;	/* --inode-flags */
	size_t nr_iflags;
	bool owner_set;
	uint32_t owner_uid, owner_gid;
	const struct vc_id_map *uid_map, *gid_map;
	size_t nr_uid_map, nr_gid_map;
	const char *compress;		/* --compress ALG[:LEVEL], with @rootdir; NULL: none */
	bool epoch_set;			/* SOURCE_DATE_EPOCH: the time of every new record */
	int64_t epoch;
	void (*skipped)(void *priv, const char *path);	/* a mount point not crossed */
	struct vc_rootdir_stats *stats;	/* out, with @rootdir; may be NULL */
	struct vc_mkfs_result *result;	/* out; NULL: not read */
	long long wait_ms;		/* wait for a held target (--wait, common/image/storage.h) */
};

/**
 * vc_mkfs_check_layout - check the requested layout before anything is
 * written: one quota mode, each subvolume once and below the top level or
 * an earlier one, the default one of them
 * Return: 0 or -EINVAL with @err set (a usage error).
 */
int vc_mkfs_check_layout(const struct vc_mkfs_opts *o, char *err, size_t errlen);

/**
 * vc_mkfs - make the filesystem, commit it, then create @subvols
 * (each its own transaction) and set the default subvolume
 * Return: 0 or a negative errno with @err set.
 */
int vc_mkfs(const struct vc_mkfs_opts *o, char *err, size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_MKFS_H */
