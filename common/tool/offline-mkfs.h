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
	const char *const *subvols;	/* created in this order */
	size_t nr_subvols;
	const char *default_subvol;	/* NULL or one of @subvols */
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
