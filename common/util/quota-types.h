/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plain types of the quota state that more than one part of common/ speaks:
 * the backend fills them (common/backend/backend.h: ->quota_runtime,
 * ->rescan_status), the qgroup printers (common/output/qgroup-out.h) size
 * their tables with them.  Types only: no function, no I/O.
 */
#ifndef VOLCTL_COMMON_QUOTA_TYPES_H
#define VOLCTL_COMMON_QUOTA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

/* qgroup levels counted apart; the last counts all above */
#define VC_QUOTA_MAX_LEVELS 8

/* What the running kernel says about quotas (sysfs), readable without privilege. */
struct vc_quota_runtime {
	bool enabled;
	bool simple;
	bool inconsistent;
	int override_limits;		/* quota_override: 0 or 1 */
	long long drop_threshold;	/* qgroups/drop_subtree_threshold, -1 if absent */
	size_t total;			/* qgroups/L_ID entries */
	size_t levels[VC_QUOTA_MAX_LEVELS];	/* per level; the last counts all above */
};

/* A quota rescan: whether one runs, and how far it is */
struct vc_rescan_status {
	bool running;
	u64 progress;			/* objectid the rescan has reached */
};

#endif
