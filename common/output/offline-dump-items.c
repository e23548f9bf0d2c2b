// SPDX-License-Identifier: GPL-2.0-only
/*
 * Readable dumps of superblocks, tree blocks and items for `volctl inspect`.
 *
 * What is printed is described once, in common/output/records-inspect.c: this
 * file decodes (with the decoders of kernel-shared/items.h only), picks the
 * description and hands the record to vc_dump_rec() of the writer
 * (offline-dump.c); it names no field itself.  A body that fails to decode,
 * or whose type we do not know, is shown as hex together with the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/output/offline-dump.h"
#include "common/output/records-inspect.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/errmsg.h"
#include "kernel-shared/extent-buffer.h"
#include "kernel-shared/items.h"
#include "kernel-shared/super.h"
#include "kernel-shared/volumes.h"

/* ------------------------------------------------------------------ */
/* Superblock                                                          */
/* ------------------------------------------------------------------ */

static void dump_chunk_body(struct vc_dump *d, const struct btrfs_chunk_rec *c)
{
	vc_dump_rec(d, &vc_dump_chunk, c);
	vc_dump_list_begin(d, &vc_dump_stripes);
	for (u16 i = 0; i < c->num_stripes; i++) {
		struct btrfs_stripe_rec s;

		if (btrfs_chunk_rec_stripe(c, i, &s))
			break;
		vc_dump_elem(d, &vc_dump_stripes, i, &s);
	}
	vc_dump_list_close(d);
}

static void dump_sys_chunk_array(struct vc_dump *d, const struct btrfs_super_block *sb)
{
	u32 size = btrfs_super_sys_chunk_array_size(sb);
	const u8 *p = sb->sys_chunk_array;
	u32 pos = 0;

	if (size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE)
		size = BTRFS_SYSTEM_CHUNK_ARRAY_SIZE;
	vc_dump_list_begin(d, &vc_dump_sys_chunks);
	while (pos + sizeof(struct btrfs_disk_key) <= size) {
		struct vc_dump_sys_chunk_rec r;
		struct btrfs_chunk_rec c;

		btrfs_disk_key_to_cpu(&r.key, (const struct btrfs_disk_key *)(p + pos));
		pos += sizeof(struct btrfs_disk_key);
		vc_dump_elem_open(d, &vc_dump_sys_chunks, 0);
		vc_dump_rec(d, &vc_dump_sys_chunk_key, &r);
		if (r.key.type != BTRFS_CHUNK_ITEM_KEY ||
		    btrfs_decode_chunk(p + pos, size - pos, &c)) {
			r.raw.data = p + pos;
			r.raw.len = size - pos;
			vc_dump_rec(d, &vc_dump_sys_chunk_bad, &r);
			vc_dump_close(d);
			break;
		}
		dump_chunk_body(d, &c);
		vc_dump_close(d);
		pos += c.item_size;
	}
	vc_dump_list_close(d);
}

static void dump_backup_roots(struct vc_dump *d, const struct btrfs_super_block *sb)
{
	vc_dump_list_begin(d, &vc_dump_backup_roots);
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		struct vc_dump_backup_rec r = { .slot = i, .b = *btrfs_super_backup(sb, i) };

		vc_dump_elem(d, &vc_dump_backup_roots, i, &r);
	}
	vc_dump_list_close(d);
}

/* The dev item of a superblock or a DEV_ITEM: an object, or hex if it does not decode */
static void dump_dev_item(struct vc_dump *d, const void *data, u32 len)
{
	struct btrfs_dev_item_rec r;
	struct vc_dump_raw raw = { data, len };

	if (btrfs_decode_dev_item(data, len, &r))
		vc_dump_rec(d, &vc_dump_dev_item_raw, &raw);
	else
		vc_dump_rec(d, &vc_dump_dev_item_obj, &r);
}

void vc_dump_super(struct vc_dump *d, const struct btrfs_super_block *sb, int mirror,
		   u64 bytenr, const char *dev_name)
{
	struct vc_dump_super_rec r = {
		.device = dev_name, .mirror = mirror, .offset = bytenr,
		.csum_type = btrfs_super_csum_type(sb),
		.csum_alg = btrfs_super_csum_type(sb),
	};
	char title[512];
	char msg[BTRFS_ERRMSG_SIZE] = "";
	int csum_ret;

	r.csum_type_name = btrfs_csum_name(r.csum_alg) ?: "unknown";
	memcpy(r.csum, sb->csum, sizeof(r.csum));
	csum_ret = btrfs_super_csum_verify(sb);
	r.csum_status = csum_ret == 0 ? "match" :
			csum_ret == -EOPNOTSUPP ? "unknown csum type" : "mismatch";
	if (btrfs_super_validate(sb, bytenr, msg))
		r.problem = msg[0] ? msg : "invalid";
	snprintf(title, sizeof(title), "superblock %d at %" PRIu64 " of %s", mirror, bytenr,
		 dev_name);
	vc_dump_open(d, NULL, title);
	vc_dump_rec(d, &vc_dump_super_head, &r);
	vc_dump_rec(d, &vc_dump_super_sb, sb);
	dump_dev_item(d, &sb->dev_item, sizeof(sb->dev_item));
	dump_sys_chunk_array(d, sb);
	dump_backup_roots(d, sb);
	vc_dump_close(d);
}

/* ------------------------------------------------------------------ */
/* Item bodies                                                         */
/* ------------------------------------------------------------------ */

/* Each decoder returns 0, or <0 when the body does not decode. */

static int dump_inode_refs(struct vc_dump *d, const u8 *data, u32 len, bool ext)
{
	u32 pos = 0;
	int ret;

	vc_dump_list_begin(d, ext ? &vc_dump_inode_extrefs : &vc_dump_inode_refs);
	for (;;) {
		if (ext) {
			struct btrfs_inode_extref_rec r;

			ret = btrfs_inode_extref_next(data, len, &pos, &r);
			if (ret)
				break;
			vc_dump_elem(d, &vc_dump_inode_extrefs, 0, &r);
		} else {
			struct btrfs_inode_ref_rec r;

			ret = btrfs_inode_ref_next(data, len, &pos, &r);
			if (ret)
				break;
			vc_dump_elem(d, &vc_dump_inode_refs, 0, &r);
		}
	}
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_dir_items(struct vc_dump *d, const u8 *data, u32 len, bool xattr)
{
	const struct vc_dump_list *l = xattr ? &vc_dump_xattrs : &vc_dump_dir_entries;
	struct btrfs_dir_item_rec r;
	u32 pos = 0;
	int ret;

	vc_dump_list_begin(d, l);
	while ((ret = btrfs_dir_item_next(data, len, &pos, &r)) == 0)
		vc_dump_elem(d, l, 0, &r);
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_extent_item(struct vc_dump *d, u8 type, const u8 *data, u32 len)
{
	struct btrfs_extent_ref_rec ref;
	struct btrfs_extent_rec r;
	char tb[32];
	u32 pos;
	int ret = btrfs_decode_extent_item(data, len, type, &r);

	if (ret)
		return ret;
	vc_dump_rec(d, &vc_dump_extent_item, &r);
	pos = r.inline_start;
	vc_dump_list_begin(d, &vc_dump_inline_refs);
	while ((ret = btrfs_extent_inline_ref_next(data, len, &pos, &ref)) == 0) {
		const struct rec_desc *rd = vc_dump_ref_desc(ref.type);

		/* titled by its type in text */
		vc_dump_open(d, NULL, vc_dump_type_str(ref.type, tb, sizeof(tb)));
		vc_dump_rec(d, &vc_dump_inline_ref, &ref);
		if (rd)
			vc_dump_rec(d, rd, &ref);
		vc_dump_close(d);
	}
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_keyed_ref(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	struct btrfs_extent_ref_rec r;
	const struct rec_desc *rd;
	int ret = btrfs_decode_keyed_ref(key, data, len, &r);

	if (ret)
		return ret;
	rd = vc_dump_ref_desc(r.type);
	if (rd)
		vc_dump_rec(d, rd, &r);
	return 0;
}

static int dump_file_extent(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_file_extent_rec r;
	int ret = btrfs_decode_file_extent(data, len, &r);

	if (ret)
		return ret;
	vc_dump_rec(d, &vc_dump_file_extent, &r);
	vc_dump_rec(d, r.type == BTRFS_FILE_EXTENT_INLINE ? &vc_dump_file_extent_inline :
		    &vc_dump_file_extent_regular, &r);
	return 0;
}

static int dump_uuid_item(struct vc_dump *d, const u8 *data, u32 len)
{
	u32 pos = 0;
	u64 id;
	int ret;

	vc_dump_list_begin(d, &vc_dump_uuid_subvols);
	while ((ret = btrfs_uuid_item_next(data, len, &pos, &id)) == 0)
		vc_dump_bare(d, &vc_dump_uuid_subvols, id);
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_dev_stats(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	struct vc_dump_dev_stats_rec r;
	size_t n = 0;

	if (key->objectid != BTRFS_DEV_STATS_OBJECTID)
		return -EOPNOTSUPP;
	for (; n < 5 && (n + 1) * 8 <= len; n++)
		r.v[n] = get_le64(data + n * 8);
	vc_dump_rec_part(d, &vc_dump_dev_stats, &r, n);
	return 0;
}

/* Items whose body is empty by definition */
static bool empty_body_type(u8 type)
{
	switch (type) {
	case BTRFS_ORPHAN_ITEM_KEY:
	case BTRFS_QGROUP_RELATION_KEY:
	case BTRFS_FREE_SPACE_EXTENT_KEY:
		return true;
	}
	return false;
}

/* Decode into @rec with @decode and print it with @desc */
#define DUMP_DECODED(d, desc, type, decode, data, len) ({			\
	type dr_rec;								\
	int dr_ret = decode(data, len, &dr_rec);					\
									\
	if (!dr_ret)								\
		vc_dump_rec(d, desc, &dr_rec);					\
	dr_ret;									\
})

/* An item whose whole body one decoder reads into one described record; 1: not such an item */
static int dump_decoded_body(struct vc_dump *d, u8 type, const u8 *data, u32 len)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
		return DUMP_DECODED(d, &vc_dump_inode, struct btrfs_inode_rec,
				    btrfs_decode_inode_item, data, len);
	case BTRFS_ROOT_ITEM_KEY:
		return DUMP_DECODED(d, &vc_dump_root_item, struct btrfs_root_rec,
				    btrfs_decode_root_item, data, len);
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		return DUMP_DECODED(d, &vc_dump_root_ref, struct btrfs_root_ref_rec,
				    btrfs_decode_root_ref, data, len);
	case BTRFS_DEV_ITEM_KEY:
		return DUMP_DECODED(d, &vc_dump_dev_item_obj, struct btrfs_dev_item_rec,
				    btrfs_decode_dev_item, data, len);
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return DUMP_DECODED(d, &vc_dump_block_group, struct btrfs_block_group_rec,
				    btrfs_decode_block_group, data, len);
	case BTRFS_DEV_EXTENT_KEY:
		return DUMP_DECODED(d, &vc_dump_dev_extent, struct btrfs_dev_extent_rec,
				    btrfs_decode_dev_extent, data, len);
	case BTRFS_FREE_SPACE_INFO_KEY:
		return DUMP_DECODED(d, &vc_dump_free_space_info, struct btrfs_free_space_info_rec,
				    btrfs_decode_free_space_info, data, len);
	case BTRFS_QGROUP_STATUS_KEY:
		return DUMP_DECODED(d, &vc_dump_qgroup_status, struct btrfs_qgroup_status_rec,
				    btrfs_decode_qgroup_status, data, len);
	case BTRFS_QGROUP_INFO_KEY:
		return DUMP_DECODED(d, &vc_dump_qgroup_info, struct btrfs_qgroup_info_rec,
				    btrfs_decode_qgroup_info, data, len);
	case BTRFS_QGROUP_LIMIT_KEY:
		return DUMP_DECODED(d, &vc_dump_qgroup_limit, struct btrfs_qgroup_limit_rec,
				    btrfs_decode_qgroup_limit, data, len);
	}
	return 1;
}

/* The checksums of an EXTENT_CSUM item: their count */
static int dump_csum_body(struct vc_dump *d, u32 len)
{
	int cs = btrfs_csum_size(d->csum_type);
	struct vc_dump_csums_rec r;

	if (cs <= 0 || len % cs)
		return -EUCLEAN;
	r.csums = len / cs;
	vc_dump_rec(d, &vc_dump_csums, &r);
	return 0;
}

static int dump_body(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	struct btrfs_chunk_rec c;
	int ret = dump_decoded_body(d, key->type, data, len);

	if (ret <= 0)
		return ret;
	switch (key->type) {
	case BTRFS_INODE_REF_KEY:
		return dump_inode_refs(d, data, len, false);
	case BTRFS_INODE_EXTREF_KEY:
		return dump_inode_refs(d, data, len, true);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
		return dump_dir_items(d, data, len, false);
	case BTRFS_XATTR_ITEM_KEY:
		return dump_dir_items(d, data, len, true);
	case BTRFS_CHUNK_ITEM_KEY:
		ret = btrfs_decode_chunk(data, len, &c);
		if (!ret)
			dump_chunk_body(d, &c);
		return ret;
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		return dump_extent_item(d, key->type, data, len);
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		return dump_keyed_ref(d, key, data, len);
	case BTRFS_EXTENT_DATA_KEY:
		return dump_file_extent(d, data, len);
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		return dump_uuid_item(d, data, len);
	case BTRFS_PERSISTENT_ITEM_KEY:
		return dump_dev_stats(d, key, data, len);
	case BTRFS_EXTENT_CSUM_KEY:
		return dump_csum_body(d, len);
	}
	if (empty_body_type(key->type))
		return len ? -EUCLEAN : 0;
	return -EOPNOTSUPP;
}

void vc_dump_item(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	struct vc_dump_raw raw = { data, len };
	int ret;

	/*
	 * JSON objects cannot be rolled back, so decode errors are noted after
	 * whatever fields were written; the raw bytes always follow them.
	 */
	vc_dump_list_begin(d, &vc_dump_body);
	ret = dump_body(d, key, data, len);
	if (ret == -EOPNOTSUPP)
		vc_dump_rec(d, &vc_dump_body_raw, &raw);
	else if (ret)
		vc_dump_rec(d, &vc_dump_body_bad, &raw);
	vc_dump_close(d);
}

/* ------------------------------------------------------------------ */
/* Blocks                                                              */
/* ------------------------------------------------------------------ */

void vc_dump_block(struct vc_dump *d, const struct extent_buffer *eb)
{
	const struct btrfs_header *h = btrfs_eb_header(eb);
	u32 nr = btrfs_eb_nritems(eb);
	u8 level = btrfs_eb_level(eb);
	const char *tree = btrfs_tree_name(btrfs_eb_owner(eb));
	struct vc_dump_header_rec hr = {
		.bytenr = eb->start, .level = level, .nritems = nr,
		.generation = btrfs_eb_generation(eb), .owner = btrfs_eb_owner(eb),
		.flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK,
		.backref_rev = btrfs_header_backref_rev(h), .csum_type = d->csum_type,
		.leaf = !level,
	};
	char title[512], ob[32], tb[32];
	struct vc_dump_slot_rec sr;

	memcpy(hr.fsid, h->fsid, sizeof(hr.fsid));
	memcpy(hr.chunk_tree_uuid, h->chunk_tree_uuid, sizeof(hr.chunk_tree_uuid));
	memcpy(hr.csum, h->csum, sizeof(hr.csum));
	if (!level) {
		u32 free_start = nr * (u32)sizeof(struct btrfs_item);
		u32 data_start = nr ? btrfs_item_offset(btrfs_eb_item(eb, nr - 1)) :
			btrfs_leaf_data_size(eb->len);

		hr.free_space = data_start > free_start ? data_start - free_start : 0;
	}
	snprintf(title, sizeof(title), "%s %" PRIu64 " level %u items %u generation %" PRIu64
		 " owner %s%s%s%s", level ? "node" : "leaf", eb->start, level, nr,
		 btrfs_eb_generation(eb), vc_dump_objectid_str(btrfs_eb_owner(eb), ob, sizeof(ob)),
		 tree ? " (" : "", tree ? tree : "", tree ? ")" : "");
	vc_dump_open(d, NULL, title);
	vc_dump_rec(d, &vc_dump_header, &hr);
	if (level) {
		vc_dump_list_begin(d, &vc_dump_ptrs);
		for (u32 i = 0; i < nr; i++) {
			memset(&sr, 0, sizeof(sr));
			sr.slot = i;
			btrfs_eb_node_key(eb, i, &sr.key);
			sr.blockptr = btrfs_eb_node_blockptr(eb, i);
			sr.generation = btrfs_eb_node_ptr_generation(eb, i);
			snprintf(title, sizeof(title), "ptr %u key (%s %s %" PRIu64 ") block %" PRIu64
				 " gen %" PRIu64, i, vc_dump_objectid_str(sr.key.objectid, ob, sizeof(ob)),
				 vc_dump_type_str(sr.key.type, tb, sizeof(tb)), sr.key.offset,
				 sr.blockptr, sr.generation);
			vc_dump_open(d, NULL, title);
			vc_dump_rec(d, &vc_dump_ptr, &sr);
			vc_dump_close(d);
		}
		vc_dump_list_close(d);
	} else {
		vc_dump_list_begin(d, &vc_dump_items);
		for (u32 i = 0; i < nr; i++) {
			memset(&sr, 0, sizeof(sr));
			sr.slot = i;
			btrfs_eb_item_key(eb, i, &sr.key);
			sr.offset = btrfs_item_offset(btrfs_eb_item(eb, i));
			sr.size = btrfs_eb_item_size(eb, i);
			snprintf(title, sizeof(title), "item %u key (%s %s %" PRIu64 ") itemoff %u"
				 " itemsize %u", i, vc_dump_objectid_str(sr.key.objectid, ob, sizeof(ob)),
				 vc_dump_type_str(sr.key.type, tb, sizeof(tb)), sr.key.offset,
				 (u32)sr.offset, (u32)sr.size);
			vc_dump_open(d, NULL, title);
			vc_dump_rec(d, &vc_dump_leaf_item, &sr);
			vc_dump_item(d, &sr.key, btrfs_eb_item_data(eb, i), (u32)sr.size);
			vc_dump_close(d);
		}
		vc_dump_list_close(d);
	}
	vc_dump_close(d);
}
