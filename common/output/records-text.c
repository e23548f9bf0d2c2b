// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text-only records (common/output/record.h): sentences with values in
 * them, described once like the other records so that no command prints
 * free-form text with printf and every count agrees with its noun
 * ("{} device{|s}").  The check report's lines, the lines of the subvolume
 * writes, the notes of prune and space, and messages with a count.  Their
 * value structs are in common/output/records.h; none has a JSON key.
 */
#include <stddef.h>
#include "common/output/records.h"

/* ---- check: the free space tree, the trees, deleted subvolumes, qgroups ---- */

/* a free space tree finding: the block group (or the stale range) first, then what is wrong */
#define F struct check_fst_text_rec
static const struct rec_field check_fst_text_fields[] = {
	REC_WHEN(F, in_block_group),
	REC_TEXT_MORE("block group {} length {}: "), REC_V(REC_U64, F, bg_start),
	REC_V(REC_U64, F, bg_length),
	REC_WHEN_END,
	REC_F(NULL, NULL, REC_SUB, F, what),
};
const struct rec_desc rec_check_fst_text = REC_DESC("check free space text", check_fst_text_fields);
#define FST_TEXT(name, tmpl, ...)							\
	static const struct rec_field name##_fields[] = { REC_TEXT(tmpl), __VA_ARGS__ };	\
	const struct rec_desc name = REC_DESC(#name, name##_fields)
#define FV(member) REC_V(REC_U64, F, member)
#define FS(member) REC_V(REC_STR, F, member)
FST_TEXT(rec_fst_stale_info, "{} length {}: entries ({} items) for a block group that no longer "
	 "exists, left by mkfs", FV(start), FV(length), FV(counted));
FST_TEXT(rec_fst_stale, "{} {} length {}: lies in no block group", FS(entry), FV(start),
	 FV(length));
static const struct rec_field rec_fst_no_info_fields[] = { REC_TEXT("no free space info item") };
const struct rec_desc rec_fst_no_info = REC_DESC("rec_fst_no_info", rec_fst_no_info_fields);
FST_TEXT(rec_fst_bad_info, "info item {} length {} does not match the block group", FV(start),
	 FV(length));
FST_TEXT(rec_fst_count, "info item records {} free {}, counted {}", FV(recorded), FS(unit),
	 FV(counted));
FST_TEXT(rec_fst_format, "{} {} length {}, but the info item says {}", FS(entry), FV(start),
	 FV(length), FS(says));
FST_TEXT(rec_fst_beyond, "{} {} length {} ends beyond the block group", FS(entry), FV(start),
	 FV(length));
FST_TEXT(rec_fst_overlap, "{} {} length {} overlaps the previous entry", FS(entry), FV(start),
	 FV(length));
FST_TEXT(rec_fst_unmerged, "free space extent {} length {} is not merged with the previous one",
	 FV(start), FV(length));
FST_TEXT(rec_fst_unexpected, "unexpected item type {} at {}", FV(type), FV(start));
FST_TEXT(rec_fst_free_allocated, "{} length {} is free in the free space tree but allocated in "
	 "the extent tree", FV(start), FV(length));
FST_TEXT(rec_fst_not_free, "{} length {} is allocated by no extent item but not free in the "
	 "free space tree", FV(start), FV(length));
#undef FS
#undef FV
#undef FST_TEXT
#undef F

static const struct rec_field check_fst_line_fields[] = {
	REC_TEXT("free space tree: {}"), REC_V(REC_STR, struct check_fst_line_rec, message),
};
const struct rec_desc rec_check_fst_line = REC_DESC("check free space line", check_fst_line_fields);

#define F struct check_fst_sum_rec
static const struct rec_field check_fst_sum_fields[] = {
	REC_WHEN(F, absent),
	REC_TEXT("free space tree: not in use (space cache v1 or none), not checked"),
	REC_WHEN_END,
	REC_WHEN(F, more),
	REC_TEXT("free space tree: {} more problems not shown"), REC_V(REC_U64, F, more_nr),
	REC_WHEN_END,
	REC_WHEN(F, stale),
	REC_TEXT("free space tree: mkfs.btrfs 6.2 leaves entries of its temporary chunks; "
		 "btrfs check 6.19 rejects them, the kernel ignores them, and any volctl "
		 "offline write drops them"),
	REC_WHEN_END,
	REC_WHEN(F, not_valid),
	REC_TEXT("free space tree: not marked valid (the kernel rebuilds it at the next "
		 "read-write mount): {} problem{|s} ({} block groups verified), not counted as errors"),
	REC_V(REC_U64, F, problem_nr), REC_V(REC_U64, F, block_groups),
	REC_WHEN_END,
	REC_WHEN(F, problems),
	REC_TEXT("free space tree: {} problem{|s} ({} block groups verified)"),
	REC_V(REC_U64, F, problem_nr), REC_V(REC_U64, F, block_groups),
	REC_WHEN_END,
	REC_WHEN(F, clean),
	REC_TEXT("free space tree: {} block groups verified, matches the extent tree"),
	REC_V(REC_U64, F, block_groups),
	REC_WHEN_END,
};
#undef F
const struct rec_desc rec_check_fst_sum =
	REC_DESC("check free space summary", check_fst_sum_fields);

#define C struct check_trees_text_rec
static const struct rec_field check_trees_text_fields[] = {
	REC_TEXT("fs trees: {} ({} deleted, not yet cleaned; {} partly dropped), {} blocks, "
		 "{} data extents"),
	REC_V(REC_U64, C, roots), REC_V(REC_U64, C, dead), REC_V(REC_U64, C, partly_dropped),
	REC_V(REC_U64, C, blocks), REC_V(REC_U64, C, data_extents),
	REC_WHEN(C, has_unresolved),
	REC_TEXT("back references: {} name a tree, leaf or inode with no matching file extent "
		 "item: the extent tree does not match the subvolume trees"),
	REC_V(REC_U64, C, unresolved),
	REC_WHEN_END,
	REC_WHEN(C, has_reloc),
	REC_TEXT("back references: {} belong to a relocation tree (a balance stopped half way), "
		 "counted in no qgroup"),
	REC_V(REC_U64, C, reloc),
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_trees_text = REC_DESC("check trees text", check_trees_text_fields);

#define C struct check_deleted_text_rec
static const struct rec_field check_deleted_text_fields[] = {
	REC_WHEN(C, partly_dropped),
	REC_TEXT("subvolume {}: deleted, cleaning stopped at key ({} {} {}) level {}"),
	REC_V(REC_U64, C, id), REC_V(REC_U64, C, objectid), REC_V(REC_U64, C, type),
	REC_V(REC_U64, C, offset), REC_V(REC_U64, C, level),
	REC_WHEN_END,
	REC_UNLESS(C, partly_dropped),
	REC_TEXT("subvolume {}: deleted, not yet cleaned"), REC_V(REC_U64, C, id),
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_deleted_text =
	REC_DESC("check deleted subvolume text", check_deleted_text_fields);

#define C struct check_qdiff_rec
static const struct rec_field check_qdiff_fields[] = {
	REC_TEXT("qgroup {}: counts differ"), REC_V(REC_QGROUPID, C, qgroupid),
	REC_TEXT("  referenced  recorded {}, computed {}, difference {}"),
	REC_V(REC_U64, C, recorded_rfer), REC_V(REC_U64, C, rfer), REC_V(REC_S64, C, rfer_diff),
	REC_TEXT("  exclusive   recorded {}, computed {}, difference {}"),
	REC_V(REC_U64, C, recorded_excl), REC_V(REC_U64, C, excl), REC_V(REC_S64, C, excl_diff),
};
#undef C
const struct rec_desc rec_check_qdiff = REC_DESC("check qgroup difference", check_qdiff_fields);

#define C struct check_qsum_rec
static const struct rec_field check_qsum_fields[] = {
	REC_WHEN(C, faults),
	REC_TEXT("qgroups: not compared: the quota status item is invalid"),
	REC_WHEN_END,
	REC_WHEN(C, off),
	REC_TEXT("qgroups: quotas are not enabled, nothing to check"),
	REC_WHEN_END,
	REC_WHEN(C, compared),
	REC_WHEN(C, differ),
	REC_TEXT("qgroups: {} of {} groups differ"), REC_V(REC_U64, C, differ_nr),
	REC_V(REC_U64, C, nr),
	REC_WHEN_END,
	REC_UNLESS(C, differ),
	REC_TEXT("qgroups: {} groups verified, all consistent"), REC_V(REC_U64, C, nr),
	REC_WHEN_END,
	REC_WHEN_END,
};
#undef C
const struct rec_desc rec_check_qsum = REC_DESC("check qgroups summary", check_qsum_fields);

/* ---- the lines of the subvolume writes (text only) ---- */

#define W struct write_line_rec
static const struct rec_field line_created_fields[] = {
	REC_TEXT_MORE("Create subvolume '{}"), REC_V(REC_STR, W, dir),
	REC_UNLESS(W, dir_slash),
	REC_TEXT_MORE("/"),
	REC_WHEN_END,
	REC_TEXT("{}'"), REC_V(REC_STR, W, name),
};
const struct rec_desc rec_line_created = REC_DESC("created line", line_created_fields);

static const struct rec_field line_snapshot_fields[] = {
	REC_TEXT_MORE("Create "),
	REC_WHEN(W, readonly),
	REC_TEXT_MORE("readonly "),
	REC_WHEN_END,
	REC_TEXT("snapshot of '{}' in '{}'"), REC_V(REC_STR, W, source), REC_V(REC_STR, W, target),
};
const struct rec_desc rec_line_snapshot = REC_DESC("snapshot line", line_snapshot_fields);

static const struct rec_field line_deleted_fields[] = {
	REC_TEXT_MORE("Delete subvolume {} ({}): "), REC_V(REC_U64, W, id), REC_V(REC_STR, W, mode),
	REC_UNLESS(W, by_id),
	REC_TEXT("'{}'"), REC_V(REC_STR, W, path),
	REC_WHEN_END,
	REC_WHEN(W, by_id),
	REC_TEXT("subvolid={}"), REC_V(REC_U64, W, id),
	REC_WHEN_END,
};
const struct rec_desc rec_line_deleted = REC_DESC("deleted line", line_deleted_fields);

static const struct rec_field line_qgroup_deleted_fields[] = {
	REC_TEXT("Delete qgroup {}"), REC_V(REC_QGROUPID, W, qgroupid),
};
const struct rec_desc rec_line_qgroup_deleted =
	REC_DESC("qgroup deleted line", line_qgroup_deleted_fields);
static const struct rec_field line_qgroup_gone_fields[] = {
	REC_TEXT("Qgroup {} already removed by the kernel"), REC_V(REC_QGROUPID, W, qgroupid),
};
const struct rec_desc rec_line_qgroup_gone = REC_DESC("qgroup gone line", line_qgroup_gone_fields);
static const struct rec_field line_qgroup_off_fields[] = {
	REC_TEXT("No qgroup {} to delete: quotas are disabled"), REC_V(REC_QGROUPID, W, qgroupid),
};
const struct rec_desc rec_line_qgroup_off = REC_DESC("qgroup off line", line_qgroup_off_fields);

static const struct rec_field line_waiting_fields[] = {
	REC_TEXT("Waiting for {} subvolume{|s}"), REC_V(REC_U64, W, total),
};
const struct rec_desc rec_line_waiting = REC_DESC("waiting line", line_waiting_fields);
static const struct rec_field line_gone_fields[] = {
	REC_TEXT("Subvolume id {} is gone ({}/{})"), REC_V(REC_U64, W, id), REC_V(REC_U64, W, done),
	REC_V(REC_U64, W, total),
};
const struct rec_desc rec_line_gone = REC_DESC("gone line", line_gone_fields);
#undef W

/* ---- counts in labels, notes and messages ---- */

static const struct rec_field members_label_fields[] = {
	REC_TEXT("<{} member{|s}>"), REC_V(REC_U64, struct count_rec, n),
};
const struct rec_desc rec_members_label = REC_DESC("members label", members_label_fields);

static const struct rec_field argc_exact_msg_fields[] = {
	REC_TEXT("exactly {} argument{|s} expected, {} given"),
	REC_V(REC_U64, struct argc_msg_rec, expected), REC_V(REC_U64, struct argc_msg_rec, given),
};
const struct rec_desc rec_argc_exact_msg = REC_DESC("argc exact message", argc_exact_msg_fields);

static const struct rec_field fst_other_msg_fields[] = {
	REC_TEXT("{}: free space tree: {} problem{|s} besides entries of block groups that do not "
		 "exist (see volctl check): a rebuild is not implemented, nothing written"),
	REC_V(REC_STR, struct fst_other_msg_rec, image),
	REC_V(REC_U64, struct fst_other_msg_rec, other),
};
const struct rec_desc rec_fst_other_msg =
	REC_DESC("free space other message", fst_other_msg_fields);

static const struct rec_field prune_gone_note_fields[] = {
	REC_TEXT("{} snapshot{|s} of the plan {was|were} deleted already (by another process, such "
		 "as an overlapping prune): done, not counted as freed"),
	REC_V(REC_U64, struct count_rec, n),
};
const struct rec_desc rec_prune_gone_note = REC_DESC("prune gone note", prune_gone_note_fields);

#define S struct space_note_rec
static const struct rec_field space_note_fields[] = {
	REC_TEXT_MORE("Space of {} subvolume{|s} computed from {} by the accounting engine (exact, "
		      "quotas not needed); "),
	REC_V(REC_U64, S, n), REC_V(REC_STR, S, source),
	REC_WHEN(S, limits),
	REC_TEXT("limits from the {} qgroup numbers"), REC_V(REC_STR, S, numbers),
	REC_WHEN_END,
	REC_UNLESS(S, limits),
	REC_TEXT("quotas are off: no limits"),
	REC_WHEN_END,
};
#undef S
const struct rec_desc rec_space_note = REC_DESC("space note", space_note_fields);
