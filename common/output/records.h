/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records volctl prints: each one's value struct, filled by the command,
 * and its description (common/output/records.c; the text-only sentences in
 * common/output/records-text.c), the one place that names its text labels
 * and JSON keys.  Print them with common/output/record.h.
 */
#ifndef VOLCTL_COMMON_RECORDS_H
#define VOLCTL_COMMON_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/output/record.h"

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
	const char *shown;		/* text: path, else (-i) abs */
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

/* the sentences closing a dry run and a prune (text only): what the set frees */
struct set_freed_rec {
	const char *verb;		/* "Freed", "Would free" */
	uint64_t excl, rfer, count;
	uint64_t data, meta, raw;
	const char *profile, *data_profile;
	uint64_t copies;
};
extern const struct rec_desc rec_set_freed;

/* subvolume prune: one snapshot of the plan (a row) */
struct prune_row_rec {
	uint64_t id;
	const char *path, *abs;
	int64_t otime;
	const char *created;		/* text: otime in UTC */
	const char *action;		/* "keep", "delete"; a real run: "deleted", "failed" */
	const char *reason;		/* text: the reasons, comma separated */
	const char *const *reasons;	/* JSON: the same; NULL-terminated */
	const char *error;		/* "failed": why, else NULL */
	const char *shown;		/* text: abs, else path */
};
/* ... and the document; the text's sentences are the command's */
struct prune_rec {
	const char *subvolume;		/* SOURCE as given */
	uint64_t subvolume_id;
	const char *directory;		/* DIR, or NULL */
	bool dry_run;
	struct rec_table snapshots;	/* of struct prune_row_rec, newest first */
	uint64_t kept, deleted, failed;
	const uint64_t *free_target;	/* --free SIZE, NULL without */
	const bool *free_reached;	/* NULL without --free */
	const uint64_t *best_free;	/* --free not reached: what the best allowed set frees */
	struct rec_sub deleted_set;	/* rec_dryrun of what is (was) deleted */
	/* not in the JSON yet: */
	const char *refused;		/* a guard refused the run (all kept): which, or NULL */
	uint64_t gone;			/* of snapshots: deleted already by another process */
};
extern const struct rec_desc rec_prune_row, rec_prune;

/* subvolume prune, text only: the summary line over the plan's table */
struct prune_summary_rec {
	const char *subvolume;		/* SOURCE as given */
	uint64_t subvolume_id, kept, deleted, gone, refused;
	const char *deleted_word;	/* "to delete" (dry run), "deleted" */
	bool any_gone, any_refused;	/* the line goes on with the count */
};
extern const struct rec_desc rec_prune_summary;
extern const struct rec_doc rec_doc_prune;

/* subvolume space: one subvolume (a row) */
struct space_row_rec {
	uint64_t id;
	const char *path, *abs;
	bool snapshot;			/* it has a parent uuid */
	const uint64_t *snapshot_of;	/* NULL: no origin, or it is gone */
	uint64_t snapshots;		/* how many (direct) snapshots it has */
	uint64_t rfer, excl, used_by_snapshots, with_snapshots;
	const uint64_t *limit, *left;	/* NULL: no limit applies */
	const char *limit_qgroupid;	/* NULL: no limit applies */
	const char *limit_type;		/* "referenced" or "exclusive" */
	const char *bound_by;		/* text: "L/ID rfer|excl", NULL: "-" */
	const char *label;		/* text: the path, "<toplevel>" for 5 */
};
/* ... and the document (the text is the table and a note) */
struct space_rec {
	const char *source;		/* "image" or "live_snapshot" */
	bool quota_enabled;
	const char *limit_numbers;	/* "computed", "recorded"; NULL with quotas off */
	struct rec_table subvolumes;	/* of struct space_row_rec */
};
extern const struct rec_desc rec_space_row, rec_space;
extern const struct rec_doc rec_doc_space;

/* qgroup headroom: one limit on the way up (a row) */
struct headroom_row_rec {
	char qgid[32];
	const char *qgroupid;		/* = qgid */
	uint64_t level;
	const char *type;		/* "exclusive" or "referenced" */
	uint64_t limit, used;
	const uint64_t *reserved;	/* NULL: none known (offline) */
	uint64_t left;
	bool binding;
	const char *marker;		/* text: "  <- binds first" or "" */
};
/* ... and the document; the text's closing sentences are the command's */
struct headroom_rec {
	const char *qgroupid;
	const char *numbers;		/* "recorded", "image", "live_snapshot" */
	struct rec_table limits;	/* of struct headroom_row_rec */
	const uint64_t *headroom;	/* NULL: no limit applies */
	bool full;			/* less left than one write reserves */
	const char *lift_command;
	bool quota_enabled;		/* false: nothing is limited */
	uint64_t referenced, exclusive;	/* of the group it starts at */
	/* text only: the limit that binds first (when @limited) */
	bool limited, online;
	const char *lift;		/* the command, also when no limit binds */
	const char *bind_type;		/* "exclusive", "referenced" */
	uint64_t bind_qgroupid;
	uint64_t one_write;		/* the smallest write's reservation */
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
	const uint64_t *status_flags;		/* NULL: no STATUS item */
	struct rec_table status_faults;		/* JSON, of struct qstatus_fault_rec */
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

/*
 * ... and one group: a JSON object, a row of the text table (the columns
 * with a label; the optional ones shown for the QG_COL_* bits asked)
 */
enum {
	QG_COL_MAX_RFER = 1 << 0,	/* -r */
	QG_COL_MAX_EXCL = 1 << 1,	/* -e */
	QG_COL_PARENT = 1 << 2,		/* -p */
	QG_COL_CHILD = 1 << 3,		/* -c */
};
struct qgroup_row_rec {
	uint64_t qgroupid, level, id, rfer, excl;
	const uint64_t *max_rfer, *max_excl;	/* NULL: no limit */
	const char *path, *abs, *status;
	struct rec_u64s parents, children;
	uint64_t rfer_cmpr, excl_cmpr;
	const uint64_t *rfer_percent, *excl_percent;	/* NULL: no limit */
	bool full;
	const char *label;		/* text: the path or what the group is ("<toplevel>") */
	uint64_t v[4];			/* what the pointers above point to */
};
extern const struct rec_desc rec_qgroup_row;
extern const struct rec_doc rec_doc_qgroup_show;

/* qgroup show --tree: one line of the tree (libsmartcols; text only) */
struct qgroup_tree_rec {
	uint64_t qgroupid, rfer, excl;
	const char *rfer_limit, *excl_limit;	/* "used/limit" or "-" */
	const char *use;			/* "N%[ full]" or "-" */
	const char *label;			/* as the table's Path */
};
extern const struct rec_desc rec_qgroup_tree;

/* subvolume list (text): one subvolume; the columns shown for the SV_COL_* bits asked */
enum {
	SV_COL_ID = 1 << 0,
	SV_COL_GEN = 1 << 1,
	SV_COL_CGEN = 1 << 2,
	SV_COL_PARENT = 1 << 3,
	SV_COL_TOP = 1 << 4,
	SV_COL_OTIME = 1 << 5,
	SV_COL_PUUID = 1 << 6,
	SV_COL_RUUID = 1 << 7,
	SV_COL_UUID = 1 << 8,
	SV_COL_PATH = 1 << 9,
};
struct subvol_list_row_rec {
	uint64_t id, gen, cgen, parent, top_level;
	int64_t otime;
	const uint8_t *parent_uuid, *received_uuid, *uuid;
	const char *path;		/* "DELETED" when unreachable */
};
extern const struct rec_desc rec_subvol_list_row;

/* check: one deleted subvolume (a row) */
struct check_deleted_rec {
	uint64_t id;
	bool partly_dropped;
};
/* check: one group's numbers (a row; the text table of --show too) */
struct check_qgroup_rec {
	uint64_t qgroupid, level, id, rfer, excl, recorded_rfer, recorded_excl;
	bool consistent;
};
/* check: a relation whose member or parent does not exist (a row) */
struct check_orphan_rec {
	uint64_t member, parent;
};
/* check: one superblock copy that belongs to its device (a row) */
struct check_super_rec {
	const char *device;
	uint64_t mirror, bytenr;
	const uint64_t *generation;	/* NULL: not valid */
	bool valid;
	const char *finding;		/* "ok", "primary_bad", "newer_than_primary", ... */
	bool error;			/* the finding makes check fail */
	const char *problem;		/* why a copy is not valid, NULL if it is */
};
/* check: one free space tree finding (a row) */
struct check_fst_rec {
	const char *kind;
	const uint64_t *block_group, *block_group_length;	/* NULL: none (stale entries) */
	uint64_t start, length;
	const uint64_t *recorded, *counted;	/* extent_count findings only */
	const char *message;			/* the text line */
};
/* check, quota status: one fault of the QGROUP_STATUS item (a row) */
struct qstatus_fault_rec {
	const char *fault;		/* btrfs_qgroup_status_fault_name() */
	const char *message;
};
extern const struct rec_desc rec_qstatus_fault;

/* check: the report (JSON; the text is the command's sentences) */
struct check_rec {
	const char *image;
	struct rec_u64s missing_devices;
	struct rec_table superblocks;		/* of struct check_super_rec */
	uint64_t superblock_errors, superblock_warnings;
	const uint64_t *blocks_verified;	/* NULL with --qgroup-report */
	uint64_t fs_trees, deleted, partly_dropped, fs_tree_blocks, data_extents,
		 data_back_refs, root_sets, unresolved_refs, relocation_refs;
	struct rec_table deleted_subvolumes;	/* of struct check_deleted_rec */
	struct rec_sub quota;			/* rec_qgroup_quota */
	struct rec_table qgroups;		/* of struct check_qgroup_rec */
	struct rec_table orphan_relations;	/* of struct check_orphan_rec */
	struct rec_table quota_status_faults;	/* of struct qstatus_fault_rec */
	uint64_t differences;
	bool consistent;
	const char *fst_state;			/* checked, absent, not_valid, not_checked */
	uint64_t fst_block_groups, fst_extents, fst_bitmaps, fst_problem_count;
	struct rec_table fst_problems;		/* of struct check_fst_rec */
};
/* check --repair-qgroups: one group written (a row), and the report */
struct check_fix_rec {
	uint64_t qgroupid, recorded_rfer, recorded_excl, rfer, excl;
};
struct check_repair_rec {
	const char *image;
	bool written;
	uint64_t groups;
	bool inconsistent_cleared, rescan_cleared;
	struct rec_table repaired;		/* of struct check_fix_rec */
	uint64_t repaired_nr;			/* text: the count of @repaired */
};
/* check --repair-free-space: the report */
struct check_repair_fst_rec {
	const char *image;
	bool written;
	uint64_t dropped;			/* items deleted */
};
/* check, text only: the superblock and tree lines heading the report */
struct check_head_rec {
	uint64_t copies, devices, errors, warnings, walked_blocks;
	bool problems;				/* an error or a warning */
	bool trees;				/* the tree walk's line (not --qgroup-report) */
};
extern const struct rec_desc rec_check_head;

/* check, text only: one free space tree finding as a sentence (rec_text_string()) */
struct check_fst_text_rec {
	bool in_block_group;			/* not a stale entry: the block group first */
	uint64_t bg_start, bg_length, start, length, recorded, counted, type;
	const char *entry;			/* "info item", "free space extent"... */
	const char *unit;			/* "runs" (bitmaps), "extents" */
	const char *says;			/* "bitmaps", "extents" */
	struct rec_sub what;			/* one of the finding texts below, on this record */
};
extern const struct rec_desc rec_check_fst_text, rec_fst_stale_info, rec_fst_stale,
	rec_fst_no_info, rec_fst_bad_info, rec_fst_count, rec_fst_format, rec_fst_beyond,
	rec_fst_overlap, rec_fst_unmerged, rec_fst_unexpected, rec_fst_free_allocated,
	rec_fst_not_free;

/* check, text only: the free space tree's lines (one per finding, then the summary) */
struct check_fst_line_rec {
	const char *message;			/* rec_check_fst_text */
};
struct check_fst_sum_rec {
	bool absent;				/* no free space tree: the one line */
	bool more, stale;			/* findings not shown; stale entries among them */
	bool not_valid, problems, clean;	/* exactly one of them, unless absent */
	uint64_t more_nr, problem_nr, block_groups;
};
extern const struct rec_desc rec_check_fst_line, rec_check_fst_sum;

/* check, text only: the trees, back references and deleted subvolumes */
struct check_trees_text_rec {
	uint64_t roots, dead, partly_dropped, blocks, data_extents, unresolved, reloc;
	bool has_unresolved, has_reloc;
};
struct check_deleted_text_rec {
	uint64_t id, objectid, type, offset, level;
	bool partly_dropped;			/* cleaning stopped at a key */
};
/* check, text only: one qgroup whose counts differ, and the qgroups' summary line */
struct check_qdiff_rec {
	uint64_t qgroupid, rfer, excl, recorded_rfer, recorded_excl;
	int64_t rfer_diff, excl_diff;		/* computed - recorded */
};
struct check_qsum_rec {
	bool faults, off;			/* not compared: a status fault, quotas off */
	bool compared, differ;
	uint64_t differ_nr, nr;
};
extern const struct rec_desc rec_check_trees_text, rec_check_deleted_text, rec_check_qdiff,
	rec_check_qsum;

extern const struct rec_desc rec_check_super, rec_check_deleted, rec_check_qgroup, rec_check_orphan,
	rec_check_fst, rec_check_repair_fst, rec_check,
	rec_check_fix, rec_check_repair;
extern const struct rec_doc rec_doc_check;

/*
 * The write commands: what was done.  JSON only (the text keeps its lines,
 * printed by the commands); every field unlabelled.
 */

/* subvolume create (one of its rows) and subvolume snapshot: the subvolume made */
struct made_rec {
	uint64_t id;
	const char *path;		/* as the text line names it */
	const char *abs;		/* ops->absolute_path, NULL if unknown */
	const uint8_t *uuid;		/* 16 bytes, all zero if unknown */
	uint64_t parent;		/* the subvolume holding its entry; 0 if unknown */
	const char *qgroup;		/* its level-0 group "0/ID"; NULL with quotas off */
	struct rec_u64s inherit;	/* the -i groups it was added to */
	/* snapshot only */
	const char *source;		/* SOURCE as given */
	uint64_t source_id;
	const uint8_t *source_uuid;
	bool readonly;
};
/* subvolume diff: one change (a row), and the document */
struct diff_row_rec {
	const char *change;		/* "removed", "added", "modified", "renamed" */
	const char *path;		/* R: the old path */
	const char *new_path;		/* R: the new path, else NULL */
	const char *type;		/* "file", "directory", "symlink", ... */
	const char *const *what;	/* NULL-terminated: "content", "size", ... */
	int64_t ctime;			/* seconds */
	uint64_t ctime_nsec;
};
struct diff_rec {
	const char *old, *new;		/* as given */
	struct rec_table changes;	/* of struct diff_row_rec */
};
extern const struct rec_desc rec_diff_row, rec_diff;
extern const struct rec_doc rec_doc_diff;
/* subvolume send-size: per protocol, the bytes and the breakdown */
struct send_size_proto_rec {
	uint64_t total, data, commands, writes, clones;
};
struct send_size_rec {
	const char *subvolume;		/* as given */
	const char *parent;		/* -p as given, or the clone source picked; NULL: full */
	const char *const *clone_sources;	/* NULL-terminated: the -c as given */
	struct send_size_proto_rec v1, v2c;
};
extern const struct rec_desc rec_send_size;
extern const struct rec_doc rec_doc_send_size;

/* mkfs: what was written */
struct mkfs_rec {
	const char *path;
	uint64_t size;			/* filesystem bytes (total_bytes) */
	const uint8_t *uuid;
	uint64_t nodesize;
	const char *csum;
	const char *quota;		/* "full", "simple", NULL: off */
	const char *rootdir;		/* NULL: none */
	/* with a rootdir, else NULL */
	const uint64_t *inodes, *directories, *files, *symlinks, *special, *hard_links;
	const uint64_t *data_bytes, *inline_bytes;
	uint64_t subvolumes;		/* below the top level, snapshots included */
	const uint64_t *qgroups;	/* NULL: quotas off */
};
extern const struct rec_desc rec_mkfs;
extern const struct rec_doc rec_doc_mkfs;

struct create_rec {
	struct rec_table subvolumes;	/* of struct made_rec, in argument order */
};
extern const struct rec_desc rec_made, rec_create, rec_snapshot;
extern const struct rec_doc rec_doc_create, rec_doc_snapshot;

/* subvolume delete: one subvolume deleted (a row), and the document */
struct deleted_rec {
	uint64_t id;
	const char *path;		/* as the text line names it; NULL: by id, no path */
	bool commit;			/* committed right after ("commit" in the text) */
	const char *qgroup;		/* --delete-qgroup: "0/ID", else NULL */
	const char *qgroup_result;	/* "deleted", "removed_by_kernel", "quotas_disabled" */
};
struct delete_rec {
	struct rec_table subvolumes;	/* of struct deleted_rec, in the order deleted */
	const char *commit;		/* "none", "each", "after" */
	uint64_t failed;		/* arguments that failed */
	const uint64_t *freed;		/* offline: exclusive bytes of the set; NULL unknown */
};
extern const struct rec_desc rec_deleted, rec_delete;
extern const struct rec_doc rec_doc_delete;

/*
 * Text only: the line a subvolume write prints for each thing it did
 * (create, snapshot, delete, --delete-qgroup, sync), one description each
 */
struct write_line_rec {
	uint64_t id;
	const char *dir, *name;		/* create: the new subvolume's directory and name */
	bool dir_slash;			/* create: @dir ends with "/" (offline "/") */
	const char *source, *target;	/* snapshot */
	bool readonly;
	const char *mode;		/* delete: "commit", "no-commit" */
	const char *path;		/* delete: as given */
	bool by_id;			/* delete: no path shown, "subvolid=ID" */
	uint64_t qgroupid;		/* --delete-qgroup: 0/ID */
	uint64_t done, total;		/* sync: the count of gone, of waited for */
};
extern const struct rec_desc rec_line_created, rec_line_snapshot, rec_line_deleted,
	rec_line_qgroup_deleted, rec_line_qgroup_gone, rec_line_qgroup_off, rec_line_waiting,
	rec_line_gone;

/* Text only: a count in a sentence (qgroup show's "<N members>") */
struct count_rec {
	uint64_t n;
};
extern const struct rec_desc rec_members_label;

/* Messages with a count (text only, through rec_text_string()) */
struct argc_msg_rec {
	uint64_t expected, given;
};
extern const struct rec_desc rec_argc_exact_msg;
struct fst_other_msg_rec {
	const char *image;
	uint64_t other;			/* problems besides stale entries */
};
extern const struct rec_desc rec_fst_other_msg;

/* subvolume prune, a note: snapshots of the plan another process deleted first */
extern const struct rec_desc rec_prune_gone_note;

/* subvolume space, the note above the table */
struct space_note_rec {
	uint64_t n;			/* subvolumes */
	const char *source;		/* the image, or a snapshot of the mounted filesystem */
	const char *numbers;		/* the qgroup numbers the limits come from; NULL: quotas off */
	bool limits;
};
extern const struct rec_desc rec_space_note;

/* subvolume sync */
struct sync_rec {
	struct rec_u64s subvolumes;	/* the ids waited for */
	struct rec_u64s gone;		/* those that are gone, in the order they went */
	uint64_t failed;		/* waits that failed */
};
extern const struct rec_desc rec_sync;
extern const struct rec_doc rec_doc_sync;

/* subvolume set-default */
struct set_default_rec {
	uint64_t id;
	const char *path;		/* the path argument as given */
};
extern const struct rec_desc rec_set_default;
extern const struct rec_doc rec_doc_set_default;

/* qgroup create, destroy */
struct qgroup_done_rec {
	uint64_t qgroupid;
	const char *path;		/* the path argument as given */
};
/* qgroup assign, remove */
struct qgroup_relation_rec {
	uint64_t qgroupid;		/* <src> */
	uint64_t parent;		/* <dst> */
	const char *path;
	bool inconsistent;		/* the kernel marked the numbers inconsistent */
	bool rescan_started;
};
/* qgroup limit */
struct qgroup_limit_rec {
	uint64_t qgroupid;
	const char *path;
	const char *type;		/* "referenced" or "exclusive" */
	const uint64_t *limit;		/* bytes; NULL: none (the limit removed) */
	bool compressed;		/* -c */
};
/* qgroup clear-stale */
struct clear_stale_rec {
	const char *path;
	struct rec_u64s destroyed;	/* qgroup ids */
	struct rec_u64s skipped;	/* stale but kept: still being cleaned, squota holders */
	uint64_t failed;
};
extern const struct rec_desc rec_qgroup_done, rec_qgroup_relation, rec_qgroup_limit,
	rec_clear_stale;
extern const struct rec_doc rec_doc_qgroup_create, rec_doc_qgroup_destroy,
	rec_doc_qgroup_assign, rec_doc_qgroup_remove, rec_doc_qgroup_limit,
	rec_doc_qgroup_clear_stale;

/* quota enable, disable, rescan: the resulting quota_status object */
extern const struct rec_doc rec_doc_quota_enable, rec_doc_quota_disable, rec_doc_quota_rescan;

#endif
