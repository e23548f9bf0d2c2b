/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records volctl prints: each one's value struct, filled by the command,
 * and its description (common/records.c), the one place that names its text
 * labels and JSON keys.  Print them with common/record.h.
 */
#ifndef VOLCTL_COMMON_RECORDS_H
#define VOLCTL_COMMON_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/record.h"

/* Every record description and document name, for the naming check; NULL-terminated. */
extern const struct rec_desc *const rec_all[];
extern const struct rec_doc *const rec_all_docs[];

/* subvolume list (JSON rows), show, get-default: the subvolume object */
struct subvol_rec {
	uint64_t id;
	const char *name;
	const char *path;		/* NULL when unreachable */
	const char *abs;		/* absolute path, NULL if unknown */
	const uint8_t *uuid, *parent_uuid, *received_uuid;
	int64_t otime;
	uint64_t subvolid;		/* text: "Subvolume ID" */
	uint64_t generation, cgeneration, parent, top_level;
	const char *flags_text;		/* "readonly" or "-" */
	const char *const *flags;	/* JSON: "readonly" or nothing */
	uint64_t stransid;
	int64_t stime;
	uint64_t rtransid;
	int64_t rtime;
	uint64_t ctransid;
	int64_t ctime;
	uint64_t dirid;
	bool snapshot, deleted;
};
extern const struct rec_desc rec_subvol;
extern const struct rec_doc rec_doc_subvolume_list, rec_doc_subvolume_show,
	rec_doc_subvolume_get_default;

/* subvolume show: the "Snapshot(s):" block */
struct subvol_snaps_rec {
	const char *heading;		/* "" */
	const char *const *paths;	/* NULL-terminated */
};
extern const struct rec_desc rec_subvol_snaps;

/* subvolume show: its qgroup ("Quota group" block) */
struct subvol_qgroup_rec {
	const char *qgroupid;		/* "n/a" in text when there is none */
	uint64_t max_rfer, max_excl, rfer, excl;
};
extern const struct rec_desc rec_subvol_qgroup, rec_subvol_qgroup_none;

/* subvolume delete --dry-run: one subvolume of the set (a row) */
struct dryrun_row_rec {
	uint64_t id;
	const char *path, *abs;
	uint64_t rfer, excl;
};
/* ... and the document; the text's closing sentences are the command's */
struct dryrun_rec {
	const char *source;		/* "image" or "live_snapshot" */
	struct rec_table subvolumes;	/* of struct dryrun_row_rec */
	uint64_t count, rfer, excl, would_free, data, meta, raw;
	const char *metadata_profile;
	uint64_t metadata_copies;
	const char *data_profile;
	uint64_t data_copies;
};
extern const struct rec_desc rec_dryrun_row, rec_dryrun;
extern const struct rec_doc rec_doc_dryrun;

/* qgroup headroom: one limit on the way up (a row) */
struct headroom_row_rec {
	char qgid[32];
	const char *qgroupid;		/* = qgid */
	uint64_t level;
	const char *type;		/* "exclusive" or "referenced" */
	uint64_t limit, used, left;
	bool binding;
	const char *marker;		/* text: "  <- binds first" or "" */
};
/* ... and the document; the text's closing sentences are the command's */
struct headroom_rec {
	const char *qgroupid;
	const char *numbers;		/* "recorded", "image", "live_snapshot" */
	struct rec_table limits;	/* of struct headroom_row_rec */
	const uint64_t *headroom;	/* NULL: no limit applies */
	const char *lift_command;
};
extern const struct rec_desc rec_headroom_row, rec_headroom;
extern const struct rec_doc rec_doc_headroom;

/* quota status: the groups of one level (a row) */
struct quota_level_rec {
	char label[32];
	const char *level_text;		/* = label, "Level N:" */
	uint64_t level, count;
};
/* ... and the document; text: after the "Quotas on" line when enabled */
struct quota_status_rec {
	const char *path;
	bool enabled;
	const char *mode_text, *mode;
	const char *inconsistent_text;
	bool inconsistent;
	const bool *override_limits;		/* NULL: unknown */
	const uint64_t *drop_threshold;		/* NULL: unknown */
	const bool *rescan_running;		/* NULL: unknown */
	const uint64_t *rescan_progress;	/* NULL: not running */
	uint64_t total;
	struct rec_table levels;		/* JSON, of struct quota_level_rec */
	struct rec_table level_lines;		/* text, the same */
	const char *rescan_text;
};
extern const struct rec_desc rec_quota_level, rec_quota_status;
extern const struct rec_doc rec_doc_quota_status;

/* qgroup show (JSON): the quota state, the numbers' source, one group (a row) */
struct qgroup_head_rec {
	bool enabled;
	const char *mode;		/* NULL when disabled */
	bool inconsistent, rescan_running;
	const char *source;		/* rec_qgroup_computed: "image" or "live_snapshot" */
};
extern const struct rec_desc rec_qgroup_quota, rec_qgroup_computed;

struct qgroup_row_rec {
	uint64_t qgroupid, level, id, rfer, excl;
	const uint64_t *max_rfer, *max_excl;	/* NULL: no limit */
	const char *path, *abs, *status;
	struct rec_u64s parents, children;
	uint64_t rfer_cmpr, excl_cmpr;
	const uint64_t *rfer_percent, *excl_percent;	/* NULL: no limit */
	bool full;
	uint64_t v[4];			/* what the pointers above point to */
};
extern const struct rec_desc rec_qgroup_row;
extern const struct rec_doc rec_doc_qgroup_show;

#endif
