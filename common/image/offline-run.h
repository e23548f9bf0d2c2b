/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How an offline write runs and how its failure reads.
 *
 * Every offline write is one call of vc_offline_run(): the one transaction
 * runner of kernel-shared/ (btrfs_run_transaction(): start, the caller's
 * operation, commit or abort) with the caller's own function and typed
 * argument, no op codes.  A failure is kept as values (struct
 * vc_write_err: what the command was about, the errno, the library's
 * message and what that message names) and made into one line only here.
 */
#ifndef VOLCTL_COMMON_OFFLINE_RUN_H
#define VOLCTL_COMMON_OFFLINE_RUN_H

#include <stddef.h>
#include "kernel-shared/fs.h"
#include "kernel-shared/transaction.h"

/* Lowercase words for an errno in offline write messages */
const char *vc_offline_errno_text(int err);

/* What an offline write is about, named in its messages */
enum vc_write_object {
	VC_WRITE_PATH,		/* a path in the image, or "subvolume N" */
	VC_WRITE_IMAGE,		/* the image itself: set-default, quota, qgroup writes */
};

/*
 * The failure of an offline write, as values: what the command was about,
 * the errno, and the library's message with what that message names
 * (fs->errobj, set where the error happened).  vc_write_err_format()
 * turns it into the one line the user sees:
 * - a message naming its subvolume, qgroup or member device stands alone;
 * - another message stands alone for a path, gets the image name first
 *   for an image write;
 * - no message: the object and the errno in words; -ENOTCONN on an image
 *   says that quotas are off.
 */
struct vc_write_err {
	enum vc_write_object kind;
	const char *object;		/* the path, "subvolume N" or the image name */
	int err;			/* negative errno */
	enum btrfs_err_object cause_object;	/* what @cause names first */
	const char *cause;		/* the library's message, "" if none */
};

/** vc_write_err_format - the one line of @e (see struct vc_write_err) */
void vc_write_err_format(const struct vc_write_err *e, char *err, size_t errlen);

/** vc_offline_error - vc_write_err_format() of failure @ret on @fs, about @object */
void vc_offline_error(struct btrfs_fs *fs, enum vc_write_object kind, const char *object,
		      int ret, char *err, size_t errlen);

/**
 * vc_offline_run - run @op in one transaction (btrfs_run_transaction()),
 * its failure formatted into @err about @object
 * Return: 0 committed, >0 @op had nothing to write, <0 error.
 */
int vc_offline_run(struct btrfs_fs *fs, enum vc_write_object kind, const char *object,
		   unsigned int flags, btrfs_trans_op_fn op, void *arg, char *err, size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_RUN_H */
