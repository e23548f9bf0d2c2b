// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptions of every record volctl prints: the one place that names
 * text labels and JSON keys (see common/output/record.h).  JSON keys are snake_case
 * and unset values null (Documentation/json-schema.md); the unit test
 * tests/unit/test-records.c holds every key declared here to that rule.
 */
#include "common/output/records.h"

/* ---- the subvolume object: list (JSON), show, get-default ---- */

#define S struct subvol_rec
static const struct rec_field subvol_fields[] = {
	REC_F(NULL, "id", REC_U64, S, id),
	REC_F("Name: \t\t\t", "name", REC_STR, S, name),
	REC_F(NULL, "path", REC_STR, S, path),
	REC_F(NULL, "absolute_path", REC_STR, S, abs),
	REC_F("UUID: \t\t\t", "uuid", REC_UUID, S, uuid),
	REC_F("Parent UUID: \t\t", "parent_uuid", REC_UUID, S, parent_uuid),
	REC_F("Received UUID: \t\t", "received_uuid", REC_UUID, S, received_uuid),
	REC_F("Creation time: \t\t", "otime", REC_TIME, S, otime),
	REC_F("Subvolume ID: \t\t", NULL, REC_U64, S, subvolid),
	REC_F("Generation: \t\t", "generation", REC_U64, S, generation),
	REC_F("Gen at creation: \t", "cgeneration", REC_U64, S, cgeneration),
	REC_F("Parent ID: \t\t", "parent", REC_U64_SET, S, parent),
	REC_F("Top level ID: \t\t", "top_level", REC_U64_SET, S, top_level),
	REC_F("Flags: \t\t\t", NULL, REC_STR, S, flags_text),
	REC_F(NULL, "flags", REC_STRS, S, flags),	/* the text has the Flags: line */
	REC_F("Send transid: \t\t", "stransid", REC_U64_SET, S, stransid),
	REC_F("Send time: \t\t", "stime", REC_TIME, S, stime),
	REC_F("Receive transid: \t", "rtransid", REC_U64_SET, S, rtransid),
	REC_F("Receive time: \t\t", "rtime", REC_TIME, S, rtime),
	REC_F(NULL, "ctransid", REC_U64, S, ctransid),
	REC_F(NULL, "ctime", REC_TIME, S, ctime),
	REC_F(NULL, "dirid", REC_U64_SET, S, dirid),
	REC_F(NULL, "snapshot", REC_BOOL, S, snapshot),
	REC_F(NULL, "deleted", REC_BOOL, S, deleted),
};
#undef S
const struct rec_desc rec_subvol = REC_DESC("subvolume", subvol_fields);
const struct rec_doc rec_doc_subvolume_list = { "subvolume_list", "subvolume-list" };
const struct rec_doc rec_doc_subvolume_show = { "subvolume_show", "subvolume-show" };
const struct rec_doc rec_doc_subvolume_get_default = {
	"subvolume_get_default", "subvolume-get-default"
};

static const struct rec_field subvol_snaps_fields[] = {
	REC_F("Snapshot(s):", NULL, REC_STR, struct subvol_snaps_rec, heading),
	REC_F("\t\t\t", "snapshots", REC_STRS, struct subvol_snaps_rec, paths),
};
const struct rec_desc rec_subvol_snaps = REC_DESC("subvolume snapshots", subvol_snaps_fields);

#define Q struct subvol_qgroup_rec
static const struct rec_field subvol_qgroup_fields[] = {
	REC_OBJ("qgroup"),
	REC_F("Quota group:\t\t", "qgroupid", REC_STR, Q, qgroupid),
	REC_OBJ("limit"),
	REC_F("  Limit referenced:\t", "referenced", REC_LIMIT, Q, max_rfer),
	REC_F("  Limit exclusive:\t", "exclusive", REC_LIMIT, Q, max_excl),
	REC_OBJ_END,
	REC_OBJ("usage"),
	REC_F("  Usage referenced:\t", "referenced", REC_SIZE, Q, rfer),
	REC_F("  Usage exclusive:\t", "exclusive", REC_SIZE, Q, excl),
	REC_OBJ_END,
	REC_OBJ_END,
};
/* no quota tree or no such group: "n/a" in text, no JSON object */
static const struct rec_field subvol_qgroup_none_fields[] = {
	REC_F("Quota group:\t\t", NULL, REC_STR, Q, qgroupid),
};
#undef Q
const struct rec_desc rec_subvol_qgroup = REC_DESC("subvolume qgroup", subvol_qgroup_fields);
const struct rec_desc rec_subvol_qgroup_none =
	REC_DESC("subvolume qgroup (none)", subvol_qgroup_none_fields);

/* ---- subvolume delete --dry-run ---- */

#define R struct dryrun_row_rec
static const struct rec_field dryrun_row_fields[] = {
	REC_COL("ID", "id", REC_U64, R, id, 8, REC_LEFT, 0),
	REC_COL(NULL, "path", REC_STR, R, path, 0, REC_LEFT, 0),
	REC_COL(NULL, "absolute_path", REC_STR, R, abs, 0, REC_LEFT, 0),
	REC_COL("Referenced", "referenced", REC_SIZE, R, rfer, 14, REC_RIGHT, 1),
	REC_COL("Exclusive", "exclusive", REC_SIZE, R, excl, 14, REC_RIGHT, 1),
	REC_COL("Path", NULL, REC_STR, R, shown, 0, REC_LEFT, 2),
};
#undef R
const struct rec_desc rec_dryrun_row = REC_DESC("dry run subvolume", dryrun_row_fields);

#define D struct dryrun_rec
static const struct rec_field dryrun_fields[] = {
	REC_F(NULL, "source", REC_STR, D, source),
	REC_F("", "subvolumes", REC_TABLE, D, subvolumes),
	REC_OBJ("set"),
	REC_F(NULL, "count", REC_U64, D, count),
	REC_F(NULL, "referenced", REC_U64, D, rfer),
	REC_F(NULL, "exclusive", REC_U64, D, excl),
	REC_F(NULL, "would_free", REC_U64, D, would_free),
	REC_F(NULL, "data", REC_U64, D, data),
	REC_F(NULL, "metadata", REC_U64, D, meta),
	REC_F(NULL, "raw", REC_U64, D, raw),
	REC_OBJ_END,
	REC_F(NULL, "metadata_profile", REC_STR, D, metadata_profile),
	REC_F(NULL, "metadata_copies", REC_U64, D, metadata_copies),
	REC_F(NULL, "data_profile", REC_STR, D, data_profile),
	REC_F(NULL, "data_copies", REC_U64, D, data_copies),
};
#undef D
const struct rec_desc rec_dryrun = REC_DESC("dry run", dryrun_fields);
const struct rec_doc rec_doc_dryrun = { "subvolume_delete_dry_run", NULL };

#define S struct set_freed_rec
static const struct rec_field set_freed_fields[] = {
	REC_TEXT("{} {} (exclusive bytes of the set of {} subvolume{|s}; referenced {})"),
	REC_V(REC_STR, S, verb), REC_V(REC_SIZE, S, excl), REC_V(REC_U64, S, count),
	REC_V(REC_SIZE, S, rfer),
	REC_TEXT("  data {}, metadata {} (tree blocks, each counted once)"),
	REC_V(REC_SIZE, S, data), REC_V(REC_SIZE, S, meta),
	REC_TEXT("Raw device space freed is larger by the metadata profile {} ({} cop{y|ies}, "
		 "data {}): {}"),
	REC_V(REC_STR, S, profile), REC_V(REC_U64, S, copies),
	REC_V(REC_STR, S, data_profile), REC_V(REC_SIZE, S, raw),
};
#undef S
const struct rec_desc rec_set_freed = REC_DESC("set freed", set_freed_fields);

/* ---- subvolume prune ---- */

#define P struct prune_row_rec
static const struct rec_field prune_row_fields[] = {
	REC_COL("ID", "id", REC_U64, P, id, 8, REC_LEFT, 0),
	REC_COL(NULL, "path", REC_STR, P, path, 0, REC_LEFT, 0),
	REC_COL(NULL, "absolute_path", REC_STR, P, abs, 0, REC_LEFT, 0),
	REC_COL(NULL, "otime", REC_TIME, P, otime, 0, REC_LEFT, 0),
	REC_COL("Created (UTC)", NULL, REC_STR, P, created, 19, REC_LEFT, 1),
	REC_COL("Action", "action", REC_STR, P, action, 7, REC_LEFT, 2),
	REC_COL("Reason", NULL, REC_STR, P, reason, 24, REC_LEFT, 2),
	REC_COL(NULL, "reasons", REC_STRS, P, reasons, 0, REC_LEFT, 0),
	REC_COL(NULL, "error", REC_STR, P, error, 0, REC_LEFT, 0),
	REC_COL("Path", NULL, REC_STR, P, shown, 0, REC_LEFT, 2),
};
#undef P
const struct rec_desc rec_prune_row = REC_DESC("prune snapshot", prune_row_fields);

#define P struct prune_rec
static const struct rec_field prune_fields[] = {
	REC_F(NULL, "subvolume", REC_STR, P, subvolume),
	REC_F(NULL, "subvolume_id", REC_U64, P, subvolume_id),
	REC_F(NULL, "directory", REC_STR, P, directory),
	REC_F(NULL, "dry_run", REC_BOOL, P, dry_run),
	REC_F("", "snapshots", REC_TABLE, P, snapshots),
	REC_F(NULL, "kept", REC_U64, P, kept),
	REC_F(NULL, "deleted", REC_U64, P, deleted),
	REC_F(NULL, "failed", REC_U64, P, failed),
	REC_F(NULL, "free_target", REC_U64_OPT, P, free_target),
	REC_F(NULL, "free_reached", REC_BOOL_OPT, P, free_reached),
	REC_F(NULL, "best_free", REC_U64_OPT, P, best_free),
	REC_OBJ("deleted_set"),
	REC_F(NULL, NULL, REC_SUB, P, deleted_set),
	REC_OBJ_END,
};
#undef P
const struct rec_desc rec_prune = REC_DESC("prune", prune_fields);
const struct rec_doc rec_doc_prune = { "subvolume_prune", NULL };

#define P struct prune_summary_rec
static const struct rec_field prune_summary_fields[] = {
	REC_TEXT_MORE("Snapshots of '{}' (subvolume {}), newest first: {} kept, {} {}"),
	REC_V(REC_STR, P, subvolume), REC_V(REC_U64, P, subvolume_id), REC_V(REC_U64, P, kept),
	REC_V(REC_U64, P, deleted), REC_V(REC_STR, P, deleted_word),
	REC_WHEN(P, any_gone),
	REC_TEXT_MORE(", {} already gone"), REC_V(REC_U64, P, gone),
	REC_WHEN_END,
	REC_WHEN(P, any_refused),
	REC_TEXT_MORE(", {} refused"), REC_V(REC_U64, P, refused),
	REC_WHEN_END,
	REC_TEXT(""),
};
#undef P
const struct rec_desc rec_prune_summary = REC_DESC("prune summary", prune_summary_fields);

/*
 * ---- subvolume space ----
 *
 * One subvolume (a row): text, an auto-width table of the labelled
 * columns, "Path" last; JSON, every key.
 */
#define R struct space_row_rec
#define SP_COL(label, key, kind, member, width) \
	REC_COLX(label, key, kind, R, member, width, REC_RIGHT, 2, REC_AUTO, 0)
static const struct rec_field space_row_fields[] = {
	REC_COLX("ID", "id", REC_U64, R, id, 2, REC_LEFT, 0, REC_AUTO, 0),
	REC_F(NULL, "path", REC_STR, R, path),
	REC_F(NULL, "absolute_path", REC_STR, R, abs),
	REC_F(NULL, "snapshot", REC_BOOL, R, snapshot),
	REC_F(NULL, "snapshot_of", REC_U64_OPT, R, snapshot_of),
	SP_COL("Snaps", "snapshots", REC_U64, snapshots, 5),
	SP_COL("Referenced", "referenced", REC_SIZE, rfer, 10),
	SP_COL("Exclusive", "exclusive", REC_SIZE, excl, 9),
	SP_COL("Used by snaps", "used_by_snapshots", REC_SIZE, used_by_snapshots, 13),
	SP_COL("With snaps", "exclusive_with_snapshots", REC_SIZE, with_snapshots, 10),
	SP_COL("Limit", "limit", REC_SIZE_OPT, limit, 5),
	SP_COL("Left", "left", REC_SIZE_OPT, left, 4),
	REC_F(NULL, "limit_qgroupid", REC_STR, R, limit_qgroupid),
	REC_F(NULL, "limit_type", REC_STR, R, limit_type),
	REC_COLX("Bound by", NULL, REC_STR, R, bound_by, 8, REC_LEFT, 2, REC_AUTO, 0),
	REC_COL("Path", NULL, REC_STR, R, label, 0, REC_LEFT, 2),
};
#undef SP_COL
#undef R
const struct rec_desc rec_space_row = REC_DESC_TABLE("subvolume space", space_row_fields, 0);

#define D struct space_rec
static const struct rec_field space_fields[] = {
	REC_F(NULL, "source", REC_STR, D, source),
	REC_F(NULL, "quota_enabled", REC_BOOL, D, quota_enabled),
	REC_F(NULL, "limit_numbers", REC_STR, D, limit_numbers),
	REC_F(NULL, "subvolumes", REC_TABLE, D, subvolumes),
};
#undef D
const struct rec_desc rec_space = REC_DESC("subvolume space document", space_fields);
const struct rec_doc rec_doc_space = { "subvolume_space", NULL };

/* ---- qgroup headroom ---- */

#define H struct headroom_row_rec
static const struct rec_field headroom_row_fields[] = {
	REC_COL("Qgroupid", "qgroupid", REC_STR, H, qgroupid, 12, REC_LEFT, 0),
	REC_COL(NULL, "level", REC_U64, H, level, 0, REC_LEFT, 0),
	REC_COL("Limit", "type", REC_STR, H, type, 10, REC_LEFT, 1),
	REC_COL(NULL, "limit", REC_U64, H, limit, 0, REC_LEFT, 0),
	REC_COL("Used", "used", REC_SIZE, H, used, 14, REC_RIGHT, 1),
	REC_COL("Reserved", "reserved", REC_U64_OPT, H, reserved, 14, REC_RIGHT, 1),
	REC_COL("Max", NULL, REC_SIZE, H, limit, 14, REC_RIGHT, 1),
	REC_COL("Left", "left", REC_SIZE, H, left, 14, REC_RIGHT, 1),
	REC_COL(NULL, "binding", REC_BOOL, H, binding, 0, REC_LEFT, 0),
	REC_COL("", NULL, REC_STR, H, marker, 0, REC_LEFT, 0),
};
#undef H
const struct rec_desc rec_headroom_row = REC_DESC("headroom limit", headroom_row_fields);

#define H struct headroom_rec
static const struct rec_field headroom_fields[] = {
	REC_F(NULL, "qgroupid", REC_STR, H, qgroupid),
	REC_F(NULL, "numbers", REC_STR, H, numbers),
	REC_F(NULL, "limits", REC_TABLE, H, limits),
	REC_F(NULL, "headroom", REC_U64_OPT, H, headroom),
	REC_F(NULL, "full", REC_BOOL, H, full),
	REC_F(NULL, "lift_command", REC_STR, H, lift_command),
	REC_F(NULL, "quota_enabled", REC_BOOL, H, quota_enabled),
	REC_F(NULL, "referenced", REC_U64, H, referenced),
	REC_F(NULL, "exclusive", REC_U64, H, exclusive),
	/* text */
	REC_UNLESS(H, quota_enabled),
	REC_TEXT("No limit applies: quotas are disabled, nothing is limited"),
	REC_TEXT("Used by {}: referenced {}, exclusive {}"),
	REC_V(REC_STR, H, qgroupid), REC_V(REC_SIZE, H, referenced), REC_V(REC_SIZE, H, exclusive),
	REC_TEXT("To set a limit: {}"), REC_V(REC_STR, H, lift),
	REC_WHEN_END,
	REC_WHEN(H, quota_enabled),
	REC_UNLESS(H, limited),
	REC_TEXT("No limit applies: the headroom is not limited by quotas"),
	REC_WHEN_END,
	REC_WHEN(H, limited),
	REC_F("", NULL, REC_TABLE, H, limits),
	REC_WHEN(H, full),
	REC_TEXT("Headroom: full: the {} limit of {} leaves {}, less than the smallest write "
		 "reserves ({}): writes are refused"),
	REC_V(REC_STR, H, bind_type), REC_V(REC_QGROUPID, H, bind_qgroupid),
	REC_V(REC_SIZE_OPT, H, headroom), REC_V(REC_SIZE, H, one_write),
	REC_WHEN_END,
	REC_UNLESS(H, full),
	REC_TEXT("Headroom: {} can still be written before the {} limit of {} binds"),
	REC_V(REC_SIZE_OPT, H, headroom), REC_V(REC_STR, H, bind_type),
	REC_V(REC_QGROUPID, H, bind_qgroupid),
	REC_WHEN_END,
	REC_WHEN(H, online),
	REC_TEXT("Reserved: the kernel's reservations for writes in flight count as used"),
	REC_WHEN_END,
	REC_UNLESS(H, online),
	REC_TEXT("Offline nothing is reserved: no write is in flight"),
	REC_WHEN_END,
	REC_TEXT("To lift it: {}"), REC_V(REC_STR, H, lift),
	REC_WHEN_END,
	REC_WHEN_END,
};
#undef H
const struct rec_desc rec_headroom = REC_DESC("headroom", headroom_fields);
const struct rec_doc rec_doc_headroom = { "qgroup_headroom", NULL };

/* ---- quota status: btrfs-progs' lines in its order, then volctl's ---- */

#define L struct quota_level_rec
static const struct rec_field quota_level_fields[] = {
	REC_COL("", NULL, REC_STR, L, level_text, 25, REC_LEFT, 2),
	REC_COL(NULL, "level", REC_U64, L, level, 0, REC_LEFT, 0),
	REC_COL("", "count", REC_U64, L, count, 0, REC_LEFT, 0),
};
#undef L
const struct rec_desc rec_quota_level = REC_DESC("quota level", quota_level_fields);

#define Q struct quota_status_rec
static const struct rec_field quota_status_fields[] = {
	REC_F(NULL, "path", REC_STR, Q, path),
	REC_F("Enabled:", "enabled", REC_BOOL, Q, enabled),
	REC_F("Mode:", NULL, REC_STR, Q, mode_text),
	REC_F(NULL, "mode", REC_STR, Q, mode),
	REC_F("Inconsistent:", NULL, REC_STR, Q, inconsistent_text),
	REC_F(NULL, "inconsistent", REC_BOOL, Q, inconsistent),
	REC_F("Override limits:", NULL, REC_BOOL_OPT, Q, override_limits),
	REC_F("Drop subtree threshold:", NULL, REC_U64_OPT, Q, drop_threshold),
	REC_F(NULL, "rescan_running", REC_BOOL_OPT, Q, rescan_running),
	REC_F(NULL, "rescan_progress", REC_U64_OPT, Q, rescan_progress),
	REC_F("Total count:", "total_count", REC_U64, Q, total),
	REC_F(NULL, "levels", REC_TABLE, Q, levels),
	REC_F("", NULL, REC_TABLE, Q, level_lines),
	REC_F(NULL, "override_limits", REC_BOOL_OPT, Q, override_limits),
	REC_F(NULL, "drop_subtree_threshold", REC_U64_OPT, Q, drop_threshold),
	REC_F("Rescan:", NULL, REC_STR, Q, rescan_text),
	REC_F(NULL, "status_flags", REC_U64_OPT, Q, status_flags),
	REC_F(NULL, "status_faults", REC_TABLE, Q, status_faults),
};
#undef Q
const struct rec_desc rec_quota_status = REC_DESC_TEXT("quota status", quota_status_fields, "  ", 25);
const struct rec_doc rec_doc_quota_status = { "quota_status", "quota-status" };

/* ---- qgroup show ---- */

#define H struct qgroup_head_rec
static const struct rec_field qgroup_quota_fields[] = {
	REC_OBJ("quota"),
	REC_F(NULL, "enabled", REC_BOOL, H, enabled),
	REC_F(NULL, "mode", REC_STR, H, mode),
	REC_F(NULL, "inconsistent", REC_BOOL, H, inconsistent),
	REC_F(NULL, "rescan_running", REC_BOOL, H, rescan_running),
	REC_OBJ_END,
};
static const struct rec_field qgroup_computed_fields[] = {
	REC_OBJ("computed"),
	REC_F(NULL, "source", REC_STR, H, source),
	REC_OBJ_END,
};
#undef H
const struct rec_desc rec_qgroup_quota = REC_DESC("qgroup show quota", qgroup_quota_fields);
const struct rec_desc rec_qgroup_computed =
	REC_DESC("qgroup show computed", qgroup_computed_fields);

/*
 * One group: JSON, every key; text, btrfs-progs' table of the labelled
 * columns, each as wide as its widest cell (at least the width given), a
 * space between, "Path" last, a rule of dashes under the header.
 */
#define G struct qgroup_row_rec
#define QG_COL(label, key, kind, member, width, align, show) \
	REC_COLX(label, key, kind, G, member, width, align, 1, REC_AUTO, show)
static const struct rec_field qgroup_row_fields[] = {
	REC_COLX("Qgroupid", "qgroupid", REC_QGROUPID, G, qgroupid, 9, REC_LEFT, 0, REC_AUTO, 0),
	REC_F(NULL, "level", REC_U64, G, level),
	REC_F(NULL, "id", REC_U64, G, id),
	QG_COL("Referenced", "referenced", REC_SIZE, rfer, 12, REC_RIGHT, 0),
	QG_COL("Exclusive", "exclusive", REC_SIZE, excl, 12, REC_RIGHT, 0),
	QG_COL("Max referenced", "max_referenced", REC_SIZE_OPT, max_rfer, 15, REC_RIGHT,
	       QG_COL_MAX_RFER),
	QG_COL("Max exclusive", "max_exclusive", REC_SIZE_OPT, max_excl, 14, REC_RIGHT,
	       QG_COL_MAX_EXCL),
	REC_F(NULL, "path", REC_STR, G, path),
	REC_F(NULL, "absolute_path", REC_STR, G, abs),
	REC_F(NULL, "status", REC_STR, G, status),
	QG_COL("Parent", "parents", REC_QGROUPIDS, parents, 8, REC_LEFT, QG_COL_PARENT),
	QG_COL("Child", "children", REC_QGROUPIDS, children, 5, REC_LEFT, QG_COL_CHILD),
	/* additions to the btrfs-progs set of keys */
	REC_F(NULL, "referenced_compressed", REC_U64, G, rfer_cmpr),
	REC_F(NULL, "exclusive_compressed", REC_U64, G, excl_cmpr),
	REC_F(NULL, "referenced_percent", REC_U64_OPT, G, rfer_percent),
	REC_F(NULL, "exclusive_percent", REC_U64_OPT, G, excl_percent),
	REC_F(NULL, "full", REC_BOOL, G, full),
	/* text only, last: three spaces before it, unpadded */
	REC_COL("Path", NULL, REC_STR, G, label, 0, REC_LEFT, 3),
};
#undef QG_COL
#undef G
const struct rec_desc rec_qgroup_row =
	REC_DESC_TABLE("qgroup", qgroup_row_fields, REC_TAB_RULE | REC_TAB_TAIL);
const struct rec_doc rec_doc_qgroup_show = { "qgroup_show", "qgroup-show" };

/*
 * qgroup show --tree, through libsmartcols: the columns are the labelled
 * fields, the first draws the tree; the width is libsmartcols' width hint,
 * in percent of the terminal.
 */
#define T struct qgroup_tree_rec
static const struct rec_field qgroup_tree_fields[] = {
	REC_COL("QGROUP", NULL, REC_QGROUPID, T, qgroupid, 20, REC_LEFT, 0),
	REC_COL("REFERENCED", NULL, REC_SIZE, T, rfer, 10, REC_RIGHT, 0),
	REC_COL("EXCLUSIVE", NULL, REC_SIZE, T, excl, 10, REC_RIGHT, 0),
	REC_COL("RFER-LIMIT", NULL, REC_STR, T, rfer_limit, 15, REC_RIGHT, 0),
	REC_COL("EXCL-LIMIT", NULL, REC_STR, T, excl_limit, 15, REC_RIGHT, 0),
	REC_COL("USE", NULL, REC_STR, T, use, 5, REC_RIGHT, 0),
	REC_COL("PATH", NULL, REC_STR, T, label, 30, REC_LEFT, 0),
};
#undef T
const struct rec_desc rec_qgroup_tree = REC_DESC("qgroup tree", qgroup_tree_fields);

/*
 * ---- subvolume list (text; JSON is the subvolume object) ----
 *
 * btrfs-progs' two layouts of the same columns: "<label> <value>" pairs
 * joined by spaces ("ID 256 gen 8 top level 5 path a"), or with -t a table
 * of tab-separated labels, a rule of dashes and the values, "top level"
 * followed by two tabs.  The uuids are padded to their width, "-" included.
 */
#define L struct subvol_list_row_rec
static const struct rec_field subvol_list_row_fields[] = {
	REC_COLX("ID", NULL, REC_U64, L, id, 0, REC_LEFT, 0, 0, SV_COL_ID),
	REC_COLX("gen", NULL, REC_U64, L, gen, 0, REC_LEFT, 0, 0, SV_COL_GEN),
	REC_COLX("cgen", NULL, REC_U64, L, cgen, 0, REC_LEFT, 0, 0, SV_COL_CGEN),
	REC_COLX("parent", NULL, REC_U64, L, parent, 0, REC_LEFT, 0, 0, SV_COL_PARENT),
	REC_COLX("top level", NULL, REC_U64, L, top_level, 0, REC_LEFT, 0, REC_TAB2, SV_COL_TOP),
	REC_COLX("otime", NULL, REC_TIME, L, otime, 0, REC_LEFT, 0, 0, SV_COL_OTIME),
	REC_COLX("parent_uuid", NULL, REC_UUID, L, parent_uuid, 36, REC_LEFT, 0, 0, SV_COL_PUUID),
	REC_COLX("received_uuid", NULL, REC_UUID, L, received_uuid, 36, REC_LEFT, 0, 0,
		 SV_COL_RUUID),
	REC_COLX("uuid", NULL, REC_UUID, L, uuid, 36, REC_LEFT, 0, 0, SV_COL_UUID),
	REC_COLX("path", NULL, REC_STR, L, path, 0, REC_LEFT, 0, 0, SV_COL_PATH),
};
#undef L
const struct rec_desc rec_subvol_list_row =
	REC_DESC_TABLE("subvolume list row", subvol_list_row_fields, REC_TAB_RULE);

/* ---- check ---- */

#define C struct check_super_rec
static const struct rec_field check_super_fields[] = {
	REC_F(NULL, "device", REC_STR, C, device),
	REC_F(NULL, "mirror", REC_U64, C, mirror),
	REC_F(NULL, "bytenr", REC_U64, C, bytenr),
	REC_F(NULL, "generation", REC_U64_OPT, C, generation),
	REC_F(NULL, "valid", REC_BOOL, C, valid),
	REC_F(NULL, "finding", REC_STR, C, finding),
	REC_F(NULL, "error", REC_BOOL, C, error),
	REC_F(NULL, "problem", REC_STR, C, problem),
};
#undef C
#define C struct check_head_rec
static const struct rec_field check_head_fields[] = {
	REC_TEXT_MORE("superblocks: {} cop{y|ies} on {} device{|s}, "),
	REC_V(REC_U64, C, copies), REC_V(REC_U64, C, devices),
	REC_UNLESS(C, problems),
	REC_TEXT("all agree with the primary"),
	REC_WHEN_END,
	REC_WHEN(C, problems),
	REC_TEXT("{} error{|s}, {} warning{|s}"),
	REC_V(REC_U64, C, errors), REC_V(REC_U64, C, warnings),
	REC_WHEN_END,
	REC_WHEN(C, trees),
	REC_TEXT("trees: {} blocks verified"), REC_V(REC_U64, C, walked_blocks),
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_head = REC_DESC("check head", check_head_fields);

const struct rec_desc rec_check_super = REC_DESC("check superblock copy", check_super_fields);

static const struct rec_field check_deleted_fields[] = {
	REC_F(NULL, "id", REC_U64, struct check_deleted_rec, id),
	REC_F(NULL, "partly_dropped", REC_BOOL, struct check_deleted_rec, partly_dropped),
};
const struct rec_desc rec_check_deleted = REC_DESC("check deleted subvolume", check_deleted_fields);

#define C struct check_qgroup_rec
static const struct rec_field check_qgroup_fields[] = {
	REC_COL("qgroupid", "qgroupid", REC_QGROUPID, C, qgroupid, 14, REC_LEFT, 0),
	REC_COL(NULL, "level", REC_U64, C, level, 0, REC_LEFT, 0),
	REC_COL(NULL, "id", REC_U64, C, id, 0, REC_LEFT, 0),
	REC_COL("rfer", "referenced", REC_U64, C, rfer, 14, REC_RIGHT, 1),
	REC_COL("excl", "exclusive", REC_U64, C, excl, 14, REC_RIGHT, 1),
	REC_COL("recorded rfer", "recorded_referenced", REC_U64, C, recorded_rfer, 14, REC_RIGHT, 1),
	REC_COL("recorded excl", "recorded_exclusive", REC_U64, C, recorded_excl, 14, REC_RIGHT, 1),
	REC_COL(NULL, "consistent", REC_BOOL, C, consistent, 0, REC_LEFT, 0),
};
#undef C
const struct rec_desc rec_check_qgroup = REC_DESC("check qgroup", check_qgroup_fields);

static const struct rec_field check_orphan_fields[] = {
	REC_F(NULL, "member", REC_QGROUPID, struct check_orphan_rec, member),
	REC_F(NULL, "parent", REC_QGROUPID, struct check_orphan_rec, parent),
};
const struct rec_desc rec_check_orphan = REC_DESC("check orphan relation", check_orphan_fields);

#define C struct check_fst_rec
static const struct rec_field check_fst_fields[] = {
	REC_F(NULL, "kind", REC_STR, C, kind),
	REC_F(NULL, "block_group", REC_U64_OPT, C, block_group),
	REC_F(NULL, "block_group_length", REC_U64_OPT, C, block_group_length),
	REC_F(NULL, "start", REC_U64, C, start),
	REC_F(NULL, "length", REC_U64, C, length),
	REC_F(NULL, "recorded", REC_U64_IF, C, recorded),
	REC_F(NULL, "counted", REC_U64_IF, C, counted),
	REC_F(NULL, "message", REC_STR, C, message),
};
#undef C
const struct rec_desc rec_check_fst = REC_DESC("check free space problem", check_fst_fields);

static const struct rec_field qstatus_fault_fields[] = {
	REC_F(NULL, "fault", REC_STR, struct qstatus_fault_rec, fault),
	REC_F(NULL, "message", REC_STR, struct qstatus_fault_rec, message),
};
const struct rec_desc rec_qstatus_fault = REC_DESC("quota status fault", qstatus_fault_fields);

#define C struct check_rec
static const struct rec_field check_fields[] = {
	REC_F(NULL, "image", REC_STR, C, image),
	REC_F(NULL, "missing_devices", REC_U64S, C, missing_devices),
	REC_F(NULL, "superblocks", REC_TABLE, C, superblocks),
	REC_F(NULL, "superblock_errors", REC_U64, C, superblock_errors),
	REC_F(NULL, "superblock_warnings", REC_U64, C, superblock_warnings),
	REC_OBJ("trees"),
	REC_F(NULL, "blocks_verified", REC_U64_IF, C, blocks_verified),
	REC_F(NULL, "fs_trees", REC_U64, C, fs_trees),
	REC_F(NULL, "deleted", REC_U64, C, deleted),
	REC_F(NULL, "partly_dropped", REC_U64, C, partly_dropped),
	REC_F(NULL, "fs_tree_blocks", REC_U64, C, fs_tree_blocks),
	REC_F(NULL, "data_extents", REC_U64, C, data_extents),
	REC_F(NULL, "data_back_refs", REC_U64, C, data_back_refs),
	REC_F(NULL, "root_sets", REC_U64, C, root_sets),
	REC_F(NULL, "unresolved_refs", REC_U64, C, unresolved_refs),
	REC_F(NULL, "relocation_refs", REC_U64, C, relocation_refs),
	REC_F(NULL, "deleted_subvolumes", REC_TABLE, C, deleted_subvolumes),
	REC_OBJ_END,
	REC_F(NULL, NULL, REC_SUB, C, quota),	/* the "quota" object of qgroup show */
	REC_F(NULL, "qgroups", REC_TABLE, C, qgroups),
	REC_F(NULL, "orphan_relations", REC_TABLE, C, orphan_relations),
	REC_F(NULL, "quota_status_faults", REC_TABLE, C, quota_status_faults),
	REC_F(NULL, "differences", REC_U64, C, differences),
	REC_F(NULL, "consistent", REC_BOOL, C, consistent),
	REC_OBJ("free_space"),
	REC_F(NULL, "state", REC_STR, C, fst_state),
	REC_F(NULL, "block_groups", REC_U64, C, fst_block_groups),
	REC_F(NULL, "extents", REC_U64, C, fst_extents),
	REC_F(NULL, "bitmaps", REC_U64, C, fst_bitmaps),
	REC_F(NULL, "problem_count", REC_U64, C, fst_problem_count),
	REC_F(NULL, "problems", REC_TABLE, C, fst_problems),
	REC_OBJ_END,
};
#undef C
const struct rec_desc rec_check = REC_DESC("check", check_fields);

#define C struct check_fix_rec
static const struct rec_field check_fix_fields[] = {
	REC_F(NULL, "qgroupid", REC_QGROUPID, C, qgroupid),
	REC_F(NULL, "recorded_referenced", REC_U64, C, recorded_rfer),
	REC_F(NULL, "recorded_exclusive", REC_U64, C, recorded_excl),
	REC_F(NULL, "referenced", REC_U64, C, rfer),
	REC_F(NULL, "exclusive", REC_U64, C, excl),
	REC_TEXT("qgroup {}: repaired"), REC_V(REC_QGROUPID, C, qgroupid),
	REC_TEXT("  referenced  recorded {}, written {}"), REC_V(REC_U64, C, recorded_rfer),
	REC_V(REC_U64, C, rfer),
	REC_TEXT("  exclusive   recorded {}, written {}"), REC_V(REC_U64, C, recorded_excl),
	REC_V(REC_U64, C, excl),
};
#undef C
const struct rec_desc rec_check_fix = REC_DESC("check repaired qgroup", check_fix_fields);

#define C struct check_repair_rec
static const struct rec_field check_repair_fields[] = {
	REC_F(NULL, "image", REC_STR, C, image),
	REC_OBJ("repair_qgroups"),
	REC_F(NULL, "written", REC_BOOL, C, written),
	REC_F(NULL, "groups", REC_U64, C, groups),
	REC_F(NULL, "inconsistent_cleared", REC_BOOL, C, inconsistent_cleared),
	REC_F(NULL, "rescan_cleared", REC_BOOL, C, rescan_cleared),
	REC_F(NULL, "repaired", REC_TABLE, C, repaired),
	REC_OBJ_END,
	/* text: the line after the groups' (rec_check_fix) */
	REC_UNLESS(C, written),
	REC_TEXT("qgroups: {} groups verified, all consistent, nothing written"),
	REC_V(REC_U64, C, groups),
	REC_WHEN_END,
	REC_WHEN(C, written),
	REC_TEXT_MORE("qgroups: {} of {} groups repaired"), REC_V(REC_U64, C, repaired_nr),
	REC_V(REC_U64, C, groups),
	REC_WHEN(C, inconsistent_cleared),
	REC_TEXT_MORE("; inconsistent"),
	REC_WHEN(C, rescan_cleared),
	REC_TEXT_MORE(" and rescan flags cleared"),
	REC_WHEN_END,
	REC_UNLESS(C, rescan_cleared),
	REC_TEXT_MORE(" flag cleared"),
	REC_WHEN_END,
	REC_WHEN_END,
	REC_UNLESS(C, inconsistent_cleared),
	REC_WHEN(C, rescan_cleared),
	REC_TEXT_MORE("; rescan flag cleared"),
	REC_WHEN_END,
	REC_WHEN_END,
	REC_TEXT(""),
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_repair = REC_DESC("check repair", check_repair_fields);
#define C struct check_repair_fst_rec
static const struct rec_field check_repair_fst_fields[] = {
	REC_F(NULL, "image", REC_STR, C, image),
	REC_OBJ("repair_free_space"),
	REC_F(NULL, "written", REC_BOOL, C, written),
	REC_F(NULL, "dropped", REC_U64, C, dropped),
	REC_OBJ_END,
	REC_WHEN(C, written),
	REC_TEXT("free space tree: {} items of block groups that do not exist deleted"),
	REC_V(REC_U64, C, dropped),
	REC_WHEN_END,
	REC_UNLESS(C, written),
	REC_TEXT("free space tree: no items of block groups that do not exist, nothing written"),
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_repair_fst = REC_DESC("check repair free space",
						      check_repair_fst_fields);
const struct rec_doc rec_doc_check = { "check", NULL };

/* ---- the write commands: what was done (JSON only) ---- */

#define M struct made_rec
#define MADE_FIELDS \
	REC_F(NULL, "id", REC_U64, M, id), \
	REC_F(NULL, "path", REC_STR, M, path), \
	REC_F(NULL, "absolute_path", REC_STR, M, abs), \
	REC_F(NULL, "uuid", REC_UUID, M, uuid), \
	REC_F(NULL, "parent", REC_U64_SET, M, parent)
#define MADE_QGROUPS \
	REC_F(NULL, "qgroup", REC_STR, M, qgroup), \
	REC_F(NULL, "inherit", REC_QGROUPIDS, M, inherit)
static const struct rec_field made_fields[] = {
	MADE_FIELDS,
	MADE_QGROUPS,
};
static const struct rec_field snapshot_fields[] = {
	MADE_FIELDS,
	REC_F(NULL, "source", REC_STR, M, source),
	REC_F(NULL, "source_id", REC_U64, M, source_id),
	REC_F(NULL, "source_uuid", REC_UUID, M, source_uuid),
	REC_F(NULL, "readonly", REC_BOOL, M, readonly),
	MADE_QGROUPS,
};
#undef MADE_QGROUPS
#undef MADE_FIELDS
#undef M
static const struct rec_field create_fields[] = {
	REC_F(NULL, "subvolumes", REC_TABLE, struct create_rec, subvolumes),
};
const struct rec_desc rec_made = REC_DESC("subvolume made", made_fields);
const struct rec_desc rec_create = REC_DESC("subvolume create", create_fields);
const struct rec_desc rec_snapshot = REC_DESC("subvolume snapshot", snapshot_fields);
const struct rec_doc rec_doc_create = { "subvolume_create", NULL };
const struct rec_doc rec_doc_snapshot = { "subvolume_snapshot", NULL };

#define W struct diff_row_rec
static const struct rec_field diff_row_fields[] = {
	REC_F(NULL, "change", REC_STR, W, change),
	REC_F(NULL, "path", REC_STR, W, path),
	REC_F(NULL, "new_path", REC_STR, W, new_path),
	REC_F(NULL, "type", REC_STR, W, type),
	REC_F(NULL, "what", REC_STRS, W, what),
	REC_F(NULL, "ctime", REC_TIME, W, ctime),
	REC_F(NULL, "ctime_nsec", REC_U64, W, ctime_nsec),
};
#undef W
static const struct rec_field diff_fields[] = {
	REC_F(NULL, "old", REC_STR, struct diff_rec, old),
	REC_F(NULL, "new", REC_STR, struct diff_rec, new),
	REC_F(NULL, "changes", REC_TABLE, struct diff_rec, changes),
};
const struct rec_desc rec_diff_row = REC_DESC("subvolume diff change", diff_row_fields);
const struct rec_desc rec_diff = REC_DESC("subvolume diff", diff_fields);
const struct rec_doc rec_doc_diff = { "subvolume_diff", NULL };

#define S struct send_size_rec
#define PROTO(p) \
	REC_OBJ(#p), \
	REC_F(NULL, "total", REC_U64, S, p.total), \
	REC_F(NULL, "data", REC_U64, S, p.data), \
	REC_F(NULL, "commands", REC_U64, S, p.commands), \
	REC_F(NULL, "writes", REC_U64, S, p.writes), \
	REC_F(NULL, "clones", REC_U64, S, p.clones), \
	REC_OBJ_END
static const struct rec_field send_size_fields[] = {
	REC_F(NULL, "subvolume", REC_STR, S, subvolume),
	REC_F(NULL, "parent", REC_STR, S, parent),
	REC_F(NULL, "clone_sources", REC_STRS, S, clone_sources),
	PROTO(v1),
	PROTO(v2c),
};
#undef PROTO
#undef S
const struct rec_desc rec_send_size = REC_DESC("subvolume send-size", send_size_fields);
const struct rec_doc rec_doc_send_size = { "subvolume_send_size", NULL };

#define K struct mkfs_rec
static const struct rec_field mkfs_fields[] = {
	REC_F(NULL, "path", REC_STR, K, path),
	REC_F(NULL, "size", REC_U64, K, size),
	REC_F(NULL, "uuid", REC_UUID, K, uuid),
	REC_F(NULL, "nodesize", REC_U64, K, nodesize),
	REC_F(NULL, "csum", REC_STR, K, csum),
	REC_F(NULL, "quota", REC_STR, K, quota),
	REC_F(NULL, "rootdir", REC_STR, K, rootdir),
	REC_F(NULL, "inodes", REC_U64_OPT, K, inodes),
	REC_F(NULL, "directories", REC_U64_OPT, K, directories),
	REC_F(NULL, "files", REC_U64_OPT, K, files),
	REC_F(NULL, "symlinks", REC_U64_OPT, K, symlinks),
	REC_F(NULL, "special", REC_U64_OPT, K, special),
	REC_F(NULL, "hard_links", REC_U64_OPT, K, hard_links),
	REC_F(NULL, "data_bytes", REC_U64_OPT, K, data_bytes),
	REC_F(NULL, "inline_bytes", REC_U64_OPT, K, inline_bytes),
	REC_F(NULL, "subvolumes", REC_U64, K, subvolumes),
	REC_F(NULL, "qgroups", REC_U64_OPT, K, qgroups),
};
#undef K
const struct rec_desc rec_mkfs = REC_DESC("mkfs", mkfs_fields);
const struct rec_doc rec_doc_mkfs = { "mkfs", NULL };

#define D struct deleted_rec
static const struct rec_field deleted_fields[] = {
	REC_F(NULL, "id", REC_U64, D, id),
	REC_F(NULL, "path", REC_STR, D, path),
	REC_F(NULL, "commit", REC_BOOL, D, commit),
	REC_F(NULL, "qgroup", REC_STR, D, qgroup),
	REC_F(NULL, "qgroup_result", REC_STR, D, qgroup_result),
};
#undef D
static const struct rec_field delete_fields[] = {
	REC_F(NULL, "subvolumes", REC_TABLE, struct delete_rec, subvolumes),
	REC_F(NULL, "commit", REC_STR, struct delete_rec, commit),
	REC_F(NULL, "failed", REC_U64, struct delete_rec, failed),
	REC_F(NULL, "freed", REC_U64_OPT, struct delete_rec, freed),
};
const struct rec_desc rec_deleted = REC_DESC("subvolume deleted", deleted_fields);
const struct rec_desc rec_delete = REC_DESC("subvolume delete", delete_fields);
const struct rec_doc rec_doc_delete = { "subvolume_delete", NULL };

static const struct rec_field sync_fields[] = {
	REC_F(NULL, "subvolumes", REC_U64S, struct sync_rec, subvolumes),
	REC_F(NULL, "gone", REC_U64S, struct sync_rec, gone),
	REC_F(NULL, "failed", REC_U64, struct sync_rec, failed),
};
const struct rec_desc rec_sync = REC_DESC("subvolume sync", sync_fields);
const struct rec_doc rec_doc_sync = { "subvolume_sync", NULL };

static const struct rec_field set_default_fields[] = {
	REC_F(NULL, "id", REC_U64, struct set_default_rec, id),
	REC_F(NULL, "path", REC_STR, struct set_default_rec, path),
};
const struct rec_desc rec_set_default = REC_DESC("subvolume set-default", set_default_fields);
const struct rec_doc rec_doc_set_default = { "subvolume_set_default", NULL };

static const struct rec_field qgroup_done_fields[] = {
	REC_F(NULL, "qgroupid", REC_QGROUPID, struct qgroup_done_rec, qgroupid),
	REC_F(NULL, "path", REC_STR, struct qgroup_done_rec, path),
};
#define R struct qgroup_relation_rec
static const struct rec_field qgroup_relation_fields[] = {
	REC_F(NULL, "qgroupid", REC_QGROUPID, R, qgroupid),
	REC_F(NULL, "parent", REC_QGROUPID, R, parent),
	REC_F(NULL, "path", REC_STR, R, path),
	REC_F(NULL, "inconsistent", REC_BOOL, R, inconsistent),
	REC_F(NULL, "rescan_started", REC_BOOL, R, rescan_started),
};
#undef R
#define L struct qgroup_limit_rec
static const struct rec_field qgroup_limit_fields[] = {
	REC_F(NULL, "qgroupid", REC_QGROUPID, L, qgroupid),
	REC_F(NULL, "path", REC_STR, L, path),
	REC_F(NULL, "type", REC_STR, L, type),
	REC_F(NULL, "limit", REC_U64_OPT, L, limit),
	REC_F(NULL, "compressed", REC_BOOL, L, compressed),
};
#undef L
#define C struct clear_stale_rec
static const struct rec_field clear_stale_fields[] = {
	REC_F(NULL, "path", REC_STR, C, path),
	REC_F(NULL, "destroyed", REC_QGROUPIDS, C, destroyed),
	REC_F(NULL, "skipped", REC_QGROUPIDS, C, skipped),
	REC_F(NULL, "failed", REC_U64, C, failed),
};
#undef C
const struct rec_desc rec_qgroup_done = REC_DESC("qgroup create/destroy", qgroup_done_fields);
const struct rec_desc rec_qgroup_relation = REC_DESC("qgroup relation", qgroup_relation_fields);
const struct rec_desc rec_qgroup_limit = REC_DESC("qgroup limit", qgroup_limit_fields);
const struct rec_desc rec_clear_stale = REC_DESC("qgroup clear-stale", clear_stale_fields);
const struct rec_doc rec_doc_qgroup_create = { "qgroup_create", NULL };
const struct rec_doc rec_doc_qgroup_destroy = { "qgroup_destroy", NULL };
const struct rec_doc rec_doc_qgroup_assign = { "qgroup_assign", NULL };
const struct rec_doc rec_doc_qgroup_remove = { "qgroup_remove", NULL };
const struct rec_doc rec_doc_qgroup_limit = { "qgroup_limit", NULL };
const struct rec_doc rec_doc_qgroup_clear_stale = { "qgroup_clear_stale", NULL };

/* the rec_quota_status object after the change */
const struct rec_doc rec_doc_quota_enable = { "quota_enable", NULL };
const struct rec_doc rec_doc_quota_disable = { "quota_disable", NULL };
const struct rec_doc rec_doc_quota_rescan = { "quota_rescan", NULL };

/* ---- the registry, for the naming check ---- */

const struct rec_desc *const rec_all[] = {
	&rec_subvol,
	&rec_subvol_snaps,
	&rec_subvol_qgroup,
	&rec_subvol_qgroup_none,
	&rec_dryrun_row,
	&rec_dryrun,
	&rec_prune_row,
	&rec_prune,
	&rec_prune_summary,
	&rec_space_row,
	&rec_space,
	&rec_headroom_row,
	&rec_headroom,
	&rec_set_freed,
	&rec_quota_level,
	&rec_quota_status,
	&rec_qgroup_quota,
	&rec_qgroup_computed,
	&rec_qgroup_row,
	&rec_qgroup_tree,
	&rec_subvol_list_row,
	&rec_check_super,
	&rec_check_head,
	&rec_check_fst_text,
	&rec_fst_stale_info,
	&rec_fst_stale,
	&rec_fst_no_info,
	&rec_fst_bad_info,
	&rec_fst_count,
	&rec_fst_format,
	&rec_fst_beyond,
	&rec_fst_overlap,
	&rec_fst_unmerged,
	&rec_fst_unexpected,
	&rec_fst_free_allocated,
	&rec_fst_not_free,
	&rec_check_fst_line,
	&rec_check_fst_sum,
	&rec_check_trees_text,
	&rec_check_deleted_text,
	&rec_check_qdiff,
	&rec_check_qsum,
	&rec_line_created,
	&rec_line_snapshot,
	&rec_line_deleted,
	&rec_line_qgroup_deleted,
	&rec_line_qgroup_gone,
	&rec_line_qgroup_off,
	&rec_line_waiting,
	&rec_line_gone,
	&rec_members_label,
	&rec_argc_exact_msg,
	&rec_fst_other_msg,
	&rec_prune_gone_note,
	&rec_space_note,
	&rec_check_deleted,
	&rec_check_qgroup,
	&rec_check_orphan,
	&rec_check_fst,
	&rec_qstatus_fault,
	&rec_check,
	&rec_check_fix,
	&rec_check_repair,
	&rec_check_repair_fst,
	&rec_made,
	&rec_create,
	&rec_mkfs,
	&rec_diff,
	&rec_diff_row,
	&rec_send_size,
	&rec_snapshot,
	&rec_deleted,
	&rec_delete,
	&rec_sync,
	&rec_set_default,
	&rec_qgroup_done,
	&rec_qgroup_relation,
	&rec_qgroup_limit,
	&rec_clear_stale,
	NULL
};

const struct rec_doc *const rec_all_docs[] = {
	&rec_doc_subvolume_list,
	&rec_doc_subvolume_show,
	&rec_doc_subvolume_get_default,
	&rec_doc_dryrun,
	&rec_doc_prune,
	&rec_doc_space,
	&rec_doc_headroom,
	&rec_doc_quota_status,
	&rec_doc_qgroup_show,
	&rec_doc_check,
	&rec_doc_create,
	&rec_doc_snapshot,
	&rec_doc_delete,
	&rec_doc_sync,
	&rec_doc_set_default,
	&rec_doc_qgroup_create,
	&rec_doc_qgroup_destroy,
	&rec_doc_qgroup_assign,
	&rec_doc_qgroup_remove,
	&rec_doc_qgroup_limit,
	&rec_doc_qgroup_clear_stale,
	&rec_doc_quota_enable,
	&rec_doc_quota_disable,
	&rec_doc_quota_rescan,
	NULL
};
