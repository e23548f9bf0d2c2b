/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The quota state read through the backend (the command side): the
 * printers of qgroup-out.h take what these functions fill in.
 */
#ifndef VOLCTL_COMMON_QGROUP_STATE_H
#define VOLCTL_COMMON_QGROUP_STATE_H

#include "common/backend/backend.h"
#include "common/output/qgroup-out.h"

/*
 * Read the quota tree into @list (vc_facts_qgroups(); NULL: the state
 * only) and the quota state into @st through the backend.  Quotas being
 * disabled (no quota tree, or the status not ON) is not an error:
 * st->enabled is false.  Returns 0 or a negative errno (the
 * backend may have left a message in fs->err).
 */
int quota_state_read(const struct vc_backend_ops *ops, struct vc_fs *fs,
		     struct btrfs_qgroup_list *list, struct quota_state *st);

/*
 * quota_state_read() for "quota status": without privilege (the quota tree
 * cannot be read) the state comes from the kernel's sysfs files instead, as
 * btrfs-progs reads it; the rescan state is then unknown.
 */
int quota_state_read_status(const struct vc_backend_ops *ops, struct vc_fs *fs,
			    struct btrfs_qgroup_list *list, struct quota_state *st);

#endif
