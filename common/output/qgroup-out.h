/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rendering of qgroups and quota status: the btrfs-progs compatible text
 * table of "qgroup show", the hierarchy as a tree (libsmartcols tree mode),
 * the JSON documents of "qgroup show" and "quota status".
 *
 * Commands build a struct qgroup_view (which rows, in which order, and what
 * each row stands for) and hand it here; this file decides nothing about
 * filtering or sorting, it only prints.
 */
#ifndef VOLCTL_COMMON_QGROUP_OUT_H
#define VOLCTL_COMMON_QGROUP_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include "common/output/records.h"
#include "common/util/quota-types.h"
#include "kernel-shared/qgroup-types.h"
#include "kernel-shared/subvol-list.h"

struct vc_config;

#define QUOTA_MAX_LEVELS VC_QUOTA_MAX_LEVELS
/* the kernel's drop subtree threshold when a filesystem is mounted */
#define QUOTA_DROP_SUBTREE_THRES_DEFAULT 3

struct qgroup_row {
	const struct btrfs_qgroup *qg;
	enum btrfs_qgroup_kind kind;
	const char *path;	/* subvolume path ("" for the top level), NULL if none */
	char *abs;		/* where that is for the user (ops->absolute_path), or NULL */
};

/* Quota state as shown by quota status and in the "quota" JSON object. */
struct quota_state {
	bool enabled;		/* the quota tree exists and its status says ON */
	bool simple;		/* squota mode */
	bool inconsistent;
	bool rescan_running;
	bool rescan_unknown;	/* the kernel would not say (no privilege) */
	u64 rescan_progress;
	int override_limits;	/* the kernel ignores limits: 1, 0; -1 unknown */
	long long drop_threshold; /* the kernel's drop subtree threshold, -1 unknown */
	size_t total;		/* qgroups */
	size_t levels[QUOTA_MAX_LEVELS];	/* per level; the last counts all above */
	/* the STATUS item as stored, and what is wrong with it for the kernel */
	bool has_status;
	struct btrfs_qgroup_status_rec status;
	unsigned int status_faults;	/* BTRFS_QSTATUS_FAULT_*: mode unknown */
	bool sb_known;
	struct btrfs_qstatus_super sb;
};

struct qgroup_view {
	const struct btrfs_qgroup_list *list;
	struct quota_state quota;
	size_t nr;
	struct qgroup_row *rows;	/* in display order */
	/* NULL: the recorded numbers; else computed from "image" or "live_snapshot" */
	const char *computed;
};

struct qgroup_show_opts {
	bool parent;		/* -p */
	bool child;		/* -c */
	bool max_rfer;		/* -r */
	bool max_excl;		/* -e */
	unsigned int units;	/* common/util/units.h mode */
};

/* How full a limit is, in percent rounded down; -1 when the limit is not set. */
int qgroup_limit_percent(u64 used, u64 limit, bool set);
/* A set limit counts as full when less than this much room is left (see json-schema.md). */
bool qgroup_limit_is_full(u64 used, u64 limit, bool set);

/* The text shown in the Path column for @row, e.g. "a/b", "<stale>", "<3 members>". */
const char *qgroup_row_label(const struct qgroup_row *row, char *buf, size_t size);

/* btrfs-progs layout: header, dashes, one line per row. */
int qgroup_print_table(FILE *out, const struct qgroup_view *view,
		       const struct qgroup_show_opts *opts);
/* The hierarchy: groups without parents at the root, members below (libsmartcols). */
int qgroup_print_tree(FILE *out, const struct qgroup_view *view,
		      const struct qgroup_show_opts *opts);
/* {"__header", "quota": {...}, "qgroup_show": [...], "qgroup-show": [...] (version 1)} */
int qgroup_print_json(FILE *out, const struct qgroup_view *view, bool v1);

/* The faults of a STATUS item as rows (struct qstatus_fault_rec) and their words */
#define QSTATUS_MAX_FAULTS 5
struct qstatus_faults {
	size_t nr;
	struct qstatus_fault_rec rec[QSTATUS_MAX_FAULTS];
	char msg[QSTATUS_MAX_FAULTS][192];
};
void qstatus_faults_fill(struct qstatus_faults *out, unsigned int faults,
			 const struct btrfs_qgroup_status_rec *st,
			 const struct btrfs_qstatus_super *sb);

/* quota status, text (btrfs-progs' lines in its order, then volctl's) or JSON. */
int quota_print_status(FILE *out, const char *path, const struct quota_state *st,
		       const struct vc_config *cfg);
struct rec_doc;
/* The JSON document @doc (quota enable, disable, rescan) of the state after the change */
void quota_print_result(FILE *out, const char *path, const struct quota_state *st,
			const struct rec_doc *doc);

#endif
