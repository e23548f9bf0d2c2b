// SPDX-License-Identifier: GPL-2.0-only
/*
 * Readable dumps of superblocks, tree blocks and items for `volctl inspect`.
 *
 * Everything goes through the small writer at the top, which renders each
 * call as text ("name value", indented) or JSON, so both formats always
 * carry the same fields.  Item bodies are decoded with the decoders of
 * kernel-shared/items.h only; a body that fails to decode, or whose type we
 * do not know, is shown as hex together with the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include "common/offline-dump.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/errmsg.h"
#include "kernel-shared/extent-buffer.h"
#include "kernel-shared/items.h"
#include "kernel-shared/super.h"
#include "kernel-shared/volumes.h"

/* ------------------------------------------------------------------ */
/* The writer                                                          */
/* ------------------------------------------------------------------ */

void vc_dump_init(struct vc_dump *d, FILE *out, bool json)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->json = json;
	if (json)
		json_document_open(&d->jw, out);
}

void vc_dump_finish(struct vc_dump *d)
{
	if (d->json)
		json_document_close(&d->jw);
}

static void text_indent(struct vc_dump *d)
{
	fprintf(d->out, "%*s", d->level * 2, "");
}

static void push(struct vc_dump *d, bool indent)
{
	if (d->depth < (int)(sizeof(d->indented) / sizeof(d->indented[0])))
		d->indented[d->depth] = indent;
	d->depth++;
	if (indent)
		d->level++;
}

static void pop(struct vc_dump *d)
{
	if (d->depth <= 0)
		return;
	d->depth--;
	if (d->depth < (int)(sizeof(d->indented) / sizeof(d->indented[0])) &&
	    d->indented[d->depth])
		d->level--;
}

/* Text: a titled container prints its title and indents its members. */
void vc_dump_open(struct vc_dump *d, const char *name, const char *title)
{
	if (d->json) {
		json_object_open(&d->jw, name);
		return;
	}
	if (title) {
		text_indent(d);
		fprintf(d->out, "%s\n", title);
	}
	push(d, title != NULL);
}

void vc_dump_close(struct vc_dump *d)
{
	if (d->json)
		json_object_close(&d->jw);
	else
		pop(d);
}

void vc_dump_list_open(struct vc_dump *d, const char *name, const char *title)
{
	if (d->json) {
		json_array_open(&d->jw, name);
		return;
	}
	if (title) {
		text_indent(d);
		fprintf(d->out, "%s\n", title);
	}
	push(d, title != NULL);
}

void vc_dump_list_close(struct vc_dump *d)
{
	if (d->json)
		json_array_close(&d->jw);
	else
		pop(d);
}

void vc_dump_u64_json(struct vc_dump *d, const char *name, u64 v)
{
	if (d->json)
		json_u64(&d->jw, name, v);
}

void vc_dump_u64(struct vc_dump *d, const char *name, u64 v)
{
	if (d->json) {
		json_u64(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %" PRIu64 "\n", name, v);
}

void vc_dump_hex(struct vc_dump *d, const char *name, u64 v)
{
	if (d->json) {
		json_u64(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s 0x%" PRIx64 "\n", name, v);
}

void vc_dump_str(struct vc_dump *d, const char *name, const char *s)
{
	if (d->json) {
		json_str(&d->jw, name, s);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %s\n", name, s ? s : "-");
}

void vc_dump_bool(struct vc_dump *d, const char *name, bool v)
{
	if (d->json) {
		json_bool(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %s\n", name, v ? "yes" : "no");
}

void vc_dump_uuid(struct vc_dump *d, const char *name, const u8 *uuid)
{
	char buf[37];

	uuid_unparse(uuid, buf);
	vc_dump_str(d, name, buf);
}

static const char *objectid_str(u64 id, char *buf, size_t size)
{
	/* special objectids near the top of the range read better signed */
	if (id >= (u64)-255)
		snprintf(buf, size, "%" PRId64, (s64)id);
	else
		snprintf(buf, size, "%" PRIu64, id);
	return buf;
}

static const char *type_str(u8 type, char *buf, size_t size)
{
	const char *n = btrfs_item_type_name(type);

	if (n)
		return n;
	snprintf(buf, size, "%u", type);
	return buf;
}

void vc_dump_key(struct vc_dump *d, const char *name, const struct btrfs_key *key)
{
	char ob[32], tb[32];

	if (d->json) {
		json_object_open(&d->jw, name);
		json_u64(&d->jw, "objectid", key->objectid);
		json_u64(&d->jw, "type", key->type);
		json_str(&d->jw, "type_name", btrfs_item_type_name(key->type));
		json_u64(&d->jw, "offset", key->offset);
		json_object_close(&d->jw);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s (%s %s %" PRIu64 ")\n", name, objectid_str(key->objectid, ob, sizeof(ob)),
		type_str(key->type, tb, sizeof(tb)), key->offset);
}

void vc_dump_bytes(struct vc_dump *d, const char *name, const u8 *p, u32 len)
{
	if (d->json) {
		/* JSON: one lowercase hex string */
		char *s = malloc((size_t)len * 2 + 1);

		if (!s) {
			json_null(&d->jw, name);
			return;
		}
		for (u32 i = 0; i < len; i++)
			sprintf(s + 2 * i, "%02x", p[i]);
		s[2 * len] = '\0';
		json_str(&d->jw, name, s);
		free(s);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s (%u bytes)\n", name, len);
	for (u32 off = 0; off < len; off += 16) {
		text_indent(d);
		fprintf(d->out, "  %04x:", off);
		for (u32 i = off; i < off + 16 && i < len; i++)
			fprintf(d->out, " %02x", p[i]);
		fputc('\n', d->out);
	}
}

/* A csum field: the meaningful bytes of the algorithm, as hex */
static void dump_csum(struct vc_dump *d, const char *name, const u8 *csum, u16 csum_type)
{
	int size = btrfs_csum_size(csum_type);
	char s[2 * BTRFS_CSUM_SIZE + 1];

	if (size <= 0 || size > BTRFS_CSUM_SIZE)
		size = BTRFS_CSUM_SIZE;
	for (int i = 0; i < size; i++)
		sprintf(s + 2 * i, "%02x", csum[i]);
	s[2 * size] = '\0';
	vc_dump_str(d, name, s);
}

/* ------------------------------------------------------------------ */
/* Flags                                                               */
/* ------------------------------------------------------------------ */

struct flag_name {
	u64 bit;
	const char *name;
};

typedef const char *(*flag_name_fn)(u64 bit);

static const char *table_lookup(const struct flag_name *t, u64 bit)
{
	for (; t->name; t++)
		if (t->bit == bit)
			return t->name;
	return NULL;
}

/*
 * Text: "name 0x341 (A|B|C)"; JSON: "name": 833, "name_names": ["A", ...].
 * Unknown bits show as "0x<bit>".
 */
static void dump_flags(struct vc_dump *d, const char *name, u64 v, const struct flag_name *t,
		       flag_name_fn fn)
{
	char jname[64];
	bool first = true;

	if (d->json) {
		json_u64(&d->jw, name, v);
		snprintf(jname, sizeof(jname), "%s_names", name);
		json_array_open(&d->jw, jname);
	} else {
		text_indent(d);
		fprintf(d->out, "%s 0x%" PRIx64 " (", name, v);
	}
	for (int b = 0; b < 64; b++) {
		u64 bit = 1ULL << b;
		const char *n;
		char unk[24];

		if (!(v & bit))
			continue;
		n = t ? table_lookup(t, bit) : fn(bit);
		if (!n) {
			snprintf(unk, sizeof(unk), "0x%" PRIx64, bit);
			n = unk;
		}
		if (d->json)
			json_str(&d->jw, NULL, n);
		else
			fprintf(d->out, "%s%s", first ? "" : "|", n);
		first = false;
	}
	if (d->json)
		json_array_close(&d->jw);
	else
		fprintf(d->out, "%s)\n", first ? "none" : "");
}

static const struct flag_name super_flags[] = {
	{ BTRFS_SUPER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_SUPER_FLAG_ERROR, "ERROR" },
	{ BTRFS_SUPER_FLAG_SEEDING, "SEEDING" },
	{ BTRFS_SUPER_FLAG_METADUMP, "METADUMP" },
	{ BTRFS_SUPER_FLAG_METADUMP_V2, "METADUMP_V2" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID, "CHANGING_FSID" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID_V2, "CHANGING_FSID_V2" },
	{ BTRFS_SUPER_FLAG_CHANGING_BG_TREE, "CHANGING_BG_TREE" },
	{ BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM, "CHANGING_DATA_CSUM" },
	{ BTRFS_SUPER_FLAG_CHANGING_META_CSUM, "CHANGING_META_CSUM" },
	{ 0, NULL },
};

static const struct flag_name no_flags[] = {
	{ 0, NULL },
};

static const struct flag_name header_flags[] = {
	{ BTRFS_HEADER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_HEADER_FLAG_RELOC, "RELOC" },
	{ 0, NULL },
};

static const struct flag_name bg_flags[] = {
	{ BTRFS_BLOCK_GROUP_DATA, "DATA" },
	{ BTRFS_BLOCK_GROUP_SYSTEM, "SYSTEM" },
	{ BTRFS_BLOCK_GROUP_METADATA, "METADATA" },
	{ BTRFS_BLOCK_GROUP_RAID0, "RAID0" },
	{ BTRFS_BLOCK_GROUP_RAID1, "RAID1" },
	{ BTRFS_BLOCK_GROUP_DUP, "DUP" },
	{ BTRFS_BLOCK_GROUP_RAID10, "RAID10" },
	{ BTRFS_BLOCK_GROUP_RAID5, "RAID5" },
	{ BTRFS_BLOCK_GROUP_RAID6, "RAID6" },
	{ BTRFS_BLOCK_GROUP_RAID1C3, "RAID1C3" },
	{ BTRFS_BLOCK_GROUP_RAID1C4, "RAID1C4" },
	{ 0, NULL },
};

static const struct flag_name extent_flags[] = {
	{ BTRFS_EXTENT_FLAG_DATA, "DATA" },
	{ BTRFS_EXTENT_FLAG_TREE_BLOCK, "TREE_BLOCK" },
	{ BTRFS_BLOCK_FLAG_FULL_BACKREF, "FULL_BACKREF" },
	{ 0, NULL },
};

static const struct flag_name root_flags[] = {
	{ BTRFS_ROOT_SUBVOL_RDONLY, "RDONLY" },
	{ BTRFS_ROOT_SUBVOL_DEAD, "DEAD" },
	{ 0, NULL },
};

static const struct flag_name inode_flags[] = {
	{ BTRFS_INODE_NODATASUM, "NODATASUM" },
	{ BTRFS_INODE_NODATACOW, "NODATACOW" },
	{ BTRFS_INODE_READONLY, "READONLY" },
	{ BTRFS_INODE_NOCOMPRESS, "NOCOMPRESS" },
	{ BTRFS_INODE_PREALLOC, "PREALLOC" },
	{ BTRFS_INODE_SYNC, "SYNC" },
	{ BTRFS_INODE_IMMUTABLE, "IMMUTABLE" },
	{ BTRFS_INODE_APPEND, "APPEND" },
	{ BTRFS_INODE_NODUMP, "NODUMP" },
	{ BTRFS_INODE_NOATIME, "NOATIME" },
	{ BTRFS_INODE_DIRSYNC, "DIRSYNC" },
	{ BTRFS_INODE_COMPRESS, "COMPRESS" },
	{ BTRFS_INODE_ROOT_ITEM_INIT, "ROOT_ITEM_INIT" },
	{ 0, NULL },
};

static const struct flag_name qgroup_status_flags[] = {
	{ BTRFS_QGROUP_STATUS_FLAG_ON, "ON" },
	{ BTRFS_QGROUP_STATUS_FLAG_RESCAN, "RESCAN" },
	{ BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT, "INCONSISTENT" },
	{ BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE, "SIMPLE_MODE" },
	{ 0, NULL },
};

static const struct flag_name qgroup_limit_flags[] = {
	{ BTRFS_QGROUP_LIMIT_MAX_RFER, "MAX_RFER" },
	{ BTRFS_QGROUP_LIMIT_MAX_EXCL, "MAX_EXCL" },
	{ BTRFS_QGROUP_LIMIT_RSV_RFER, "RSV_RFER" },
	{ BTRFS_QGROUP_LIMIT_RSV_EXCL, "RSV_EXCL" },
	{ BTRFS_QGROUP_LIMIT_RFER_CMPR, "RFER_CMPR" },
	{ BTRFS_QGROUP_LIMIT_EXCL_CMPR, "EXCL_CMPR" },
	{ 0, NULL },
};

/* ------------------------------------------------------------------ */
/* Superblock                                                          */
/* ------------------------------------------------------------------ */

static void dump_dev_item(struct vc_dump *d, const char *name, const void *data, u32 len)
{
	struct btrfs_dev_item_rec r;

	if (btrfs_decode_dev_item(data, len, &r)) {
		vc_dump_bytes(d, name, data, len);
		return;
	}
	vc_dump_open(d, name, name);
	vc_dump_u64(d, "devid", r.devid);
	vc_dump_u64(d, "total_bytes", r.total_bytes);
	vc_dump_u64(d, "bytes_used", r.bytes_used);
	vc_dump_u64(d, "io_align", r.io_align);
	vc_dump_u64(d, "io_width", r.io_width);
	vc_dump_u64(d, "sector_size", r.sector_size);
	vc_dump_u64(d, "type", r.type);
	vc_dump_u64(d, "generation", r.generation);
	vc_dump_u64(d, "start_offset", r.start_offset);
	vc_dump_u64(d, "dev_group", r.dev_group);
	vc_dump_u64(d, "seek_speed", r.seek_speed);
	vc_dump_u64(d, "bandwidth", r.bandwidth);
	vc_dump_uuid(d, "uuid", r.uuid);
	vc_dump_uuid(d, "fsid", r.fsid);
	vc_dump_close(d);
}

static void dump_chunk_body(struct vc_dump *d, const struct btrfs_chunk_rec *c)
{
	char title[64];

	vc_dump_u64(d, "length", c->length);
	vc_dump_u64(d, "owner", c->owner);
	vc_dump_u64(d, "stripe_len", c->stripe_len);
	dump_flags(d, "type", c->type, bg_flags, NULL);
	vc_dump_u64(d, "io_align", c->io_align);
	vc_dump_u64(d, "io_width", c->io_width);
	vc_dump_u64(d, "sector_size", c->sector_size);
	vc_dump_u64(d, "num_stripes", c->num_stripes);
	vc_dump_u64(d, "sub_stripes", c->sub_stripes);
	vc_dump_list_open(d, "stripes", NULL);
	for (u16 i = 0; i < c->num_stripes; i++) {
		struct btrfs_stripe_rec s;

		if (btrfs_chunk_rec_stripe(c, i, &s))
			break;
		snprintf(title, sizeof(title), "stripe %u", i);
		vc_dump_open(d, NULL, title);
		vc_dump_u64(d, "devid", s.devid);
		vc_dump_u64(d, "offset", s.offset);
		vc_dump_uuid(d, "dev_uuid", s.dev_uuid);
		vc_dump_close(d);
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
	vc_dump_list_open(d, "sys_chunk_array", "sys_chunk_array");
	while (pos + sizeof(struct btrfs_disk_key) <= size) {
		struct btrfs_chunk_rec c;
		struct btrfs_key key;

		btrfs_disk_key_to_cpu(&key, (const struct btrfs_disk_key *)(p + pos));
		pos += sizeof(struct btrfs_disk_key);
		vc_dump_open(d, NULL, "chunk");
		vc_dump_key(d, "key", &key);
		if (key.type != BTRFS_CHUNK_ITEM_KEY ||
		    btrfs_decode_chunk(p + pos, size - pos, &c)) {
			vc_dump_str(d, "error", "invalid chunk entry");
			vc_dump_bytes(d, "data", p + pos, size - pos);
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
	char title[32];

	vc_dump_list_open(d, "backup_roots", "backup_roots");
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = btrfs_super_backup(sb, i);

		snprintf(title, sizeof(title), "backup %d", i);
		vc_dump_open(d, NULL, title);
		vc_dump_u64(d, "slot", i);
		vc_dump_u64(d, "tree_root", btrfs_backup_tree_root(b));
		vc_dump_u64(d, "tree_root_gen", btrfs_backup_tree_root_gen(b));
		vc_dump_u64(d, "tree_root_level", btrfs_backup_tree_root_level(b));
		vc_dump_u64(d, "chunk_root", btrfs_backup_chunk_root(b));
		vc_dump_u64(d, "chunk_root_gen", btrfs_backup_chunk_root_gen(b));
		vc_dump_u64(d, "chunk_root_level", btrfs_backup_chunk_root_level(b));
		vc_dump_u64(d, "extent_root", btrfs_backup_extent_root(b));
		vc_dump_u64(d, "extent_root_gen", btrfs_backup_extent_root_gen(b));
		vc_dump_u64(d, "extent_root_level", btrfs_backup_extent_root_level(b));
		vc_dump_u64(d, "fs_root", btrfs_backup_fs_root(b));
		vc_dump_u64(d, "fs_root_gen", btrfs_backup_fs_root_gen(b));
		vc_dump_u64(d, "fs_root_level", btrfs_backup_fs_root_level(b));
		vc_dump_u64(d, "dev_root", btrfs_backup_dev_root(b));
		vc_dump_u64(d, "dev_root_gen", btrfs_backup_dev_root_gen(b));
		vc_dump_u64(d, "dev_root_level", btrfs_backup_dev_root_level(b));
		vc_dump_u64(d, "csum_root", btrfs_backup_csum_root(b));
		vc_dump_u64(d, "csum_root_gen", btrfs_backup_csum_root_gen(b));
		vc_dump_u64(d, "csum_root_level", btrfs_backup_csum_root_level(b));
		vc_dump_u64(d, "total_bytes", btrfs_backup_total_bytes(b));
		vc_dump_u64(d, "bytes_used", btrfs_backup_bytes_used(b));
		vc_dump_u64(d, "num_devices", btrfs_backup_num_devices(b));
		vc_dump_close(d);
	}
	vc_dump_list_close(d);
}

static const char *magic_str(u64 magic, char *buf)
{
	for (int i = 0; i < 8; i++) {
		char c = (char)(magic >> (8 * i));

		buf[i] = (c >= 0x20 && c < 0x7f) ? c : '.';
	}
	buf[8] = '\0';
	return buf;
}

void vc_dump_super(struct vc_dump *d, const struct btrfs_super_block *sb, int mirror,
		   u64 bytenr, const char *dev_name)
{
	u16 csum_type = btrfs_super_csum_type(sb);
	char title[512], label[BTRFS_LABEL_SIZE + 1], magic[9];
	char msg[BTRFS_ERRMSG_SIZE] = "";
	int csum_ret;

	snprintf(title, sizeof(title), "superblock %d at %" PRIu64 " of %s", mirror, bytenr,
		 dev_name);
	vc_dump_open(d, NULL, title);
	vc_dump_str(d, "device", dev_name);
	vc_dump_u64(d, "mirror", mirror);
	vc_dump_u64(d, "offset", bytenr);
	vc_dump_u64(d, "csum_type", csum_type);
	vc_dump_str(d, "csum_type_name", btrfs_csum_name(csum_type) ?: "unknown");
	dump_csum(d, "csum", sb->csum, csum_type);
	csum_ret = btrfs_super_csum_verify(sb);
	vc_dump_str(d, "csum_status", csum_ret == 0 ? "match" :
		    csum_ret == -EOPNOTSUPP ? "unknown csum type" : "mismatch");
	if (btrfs_super_validate(sb, bytenr, msg))
		vc_dump_str(d, "problem", msg[0] ? msg : "invalid");
	vc_dump_u64(d, "bytenr", btrfs_super_bytenr(sb));
	dump_flags(d, "flags", btrfs_super_flags(sb), super_flags, NULL);
	vc_dump_hex(d, "magic", btrfs_super_magic(sb));
	vc_dump_str(d, "magic_text", magic_str(btrfs_super_magic(sb), magic));
	vc_dump_uuid(d, "fsid", sb->fsid);
	vc_dump_uuid(d, "metadata_uuid", sb->metadata_uuid);
	memcpy(label, sb->label, BTRFS_LABEL_SIZE);
	label[BTRFS_LABEL_SIZE] = '\0';
	vc_dump_str(d, "label", label);
	vc_dump_u64(d, "generation", btrfs_super_generation(sb));
	vc_dump_u64(d, "root", btrfs_super_root(sb));
	vc_dump_u64(d, "root_level", btrfs_super_root_level(sb));
	vc_dump_u64(d, "chunk_root", btrfs_super_chunk_root(sb));
	vc_dump_u64(d, "chunk_root_level", btrfs_super_chunk_root_level(sb));
	vc_dump_u64(d, "chunk_root_generation", btrfs_super_chunk_root_generation(sb));
	vc_dump_u64(d, "log_root", btrfs_super_log_root(sb));
	vc_dump_u64(d, "log_root_level", btrfs_super_log_root_level(sb));
	vc_dump_u64(d, "log_root_transid", btrfs_super_unused_log_root_transid(sb));
	vc_dump_u64(d, "total_bytes", btrfs_super_total_bytes(sb));
	vc_dump_u64(d, "bytes_used", btrfs_super_bytes_used(sb));
	vc_dump_u64(d, "root_dir_objectid", btrfs_super_root_dir_objectid(sb));
	vc_dump_u64(d, "num_devices", btrfs_super_num_devices(sb));
	vc_dump_u64(d, "sectorsize", btrfs_super_sectorsize(sb));
	vc_dump_u64(d, "nodesize", btrfs_super_nodesize(sb));
	vc_dump_u64(d, "leafsize", btrfs_super_unused_leafsize(sb));
	vc_dump_u64(d, "stripesize", btrfs_super_stripesize(sb));
	vc_dump_u64(d, "sys_chunk_array_size", btrfs_super_sys_chunk_array_size(sb));
	dump_flags(d, "compat_flags", btrfs_super_compat_flags(sb), no_flags, NULL);
	dump_flags(d, "compat_ro_flags", btrfs_super_compat_ro_flags(sb), NULL,
		   btrfs_compat_ro_name);
	dump_flags(d, "incompat_flags", btrfs_super_incompat_flags(sb), NULL,
		   btrfs_incompat_name);
	vc_dump_u64(d, "cache_generation", btrfs_super_cache_generation(sb));
	vc_dump_u64(d, "uuid_tree_generation", btrfs_super_uuid_tree_generation(sb));
	vc_dump_u64(d, "nr_global_roots", btrfs_super_nr_global_roots(sb));
	vc_dump_u64(d, "remap_root", btrfs_super_remap_root(sb));
	vc_dump_u64(d, "remap_root_generation", btrfs_super_remap_root_generation(sb));
	vc_dump_u64(d, "remap_root_level", btrfs_super_remap_root_level(sb));
	dump_dev_item(d, "dev_item", &sb->dev_item, sizeof(sb->dev_item));
	dump_sys_chunk_array(d, sb);
	dump_backup_roots(d, sb);
	vc_dump_close(d);
}

/* ------------------------------------------------------------------ */
/* Item bodies                                                         */
/* ------------------------------------------------------------------ */

static void dump_time(struct vc_dump *d, const char *name, const struct btrfs_time *t)
{
	char buf[64];

	if (d->json) {
		json_object_open(&d->jw, name);
		json_s64(&d->jw, "sec", t->sec);
		json_u64(&d->jw, "nsec", t->nsec);
		json_object_close(&d->jw);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64 ".%09u", t->sec, t->nsec);
	vc_dump_str(d, name, buf);
}

static void dump_inode_rec(struct vc_dump *d, const struct btrfs_inode_rec *r)
{
	char mode[16];

	vc_dump_u64(d, "generation", r->generation);
	vc_dump_u64(d, "transid", r->transid);
	vc_dump_u64(d, "size", r->size);
	vc_dump_u64(d, "nbytes", r->nbytes);
	vc_dump_u64(d, "block_group", r->block_group);
	vc_dump_u64(d, "nlink", r->nlink);
	vc_dump_u64(d, "uid", r->uid);
	vc_dump_u64(d, "gid", r->gid);
	if (d->json) {
		vc_dump_u64(d, "mode", r->mode);
	} else {
		snprintf(mode, sizeof(mode), "0%o", r->mode);
		vc_dump_str(d, "mode", mode);
	}
	vc_dump_u64(d, "rdev", r->rdev);
	dump_flags(d, "flags", r->flags, inode_flags, NULL);
	vc_dump_u64(d, "sequence", r->sequence);
	dump_time(d, "atime", &r->atime);
	dump_time(d, "ctime", &r->ctime);
	dump_time(d, "mtime", &r->mtime);
	dump_time(d, "otime", &r->otime);
}

/* Each decoder returns 0, or <0 when the body does not decode. */

static int dump_inode_item(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_inode_rec r;
	int ret = btrfs_decode_inode_item(data, len, &r);

	if (!ret)
		dump_inode_rec(d, &r);
	return ret;
}

static int dump_inode_refs(struct vc_dump *d, const u8 *data, u32 len, bool ext)
{
	u32 pos = 0;
	int ret;

	vc_dump_list_open(d, "refs", NULL);
	for (;;) {
		if (ext) {
			struct btrfs_inode_extref_rec r;

			ret = btrfs_inode_extref_next(data, len, &pos, &r);
			if (ret)
				break;
			vc_dump_open(d, NULL, "extref");
			vc_dump_u64(d, "parent", r.parent);
			vc_dump_u64(d, "index", r.index);
			vc_dump_str(d, "name", r.name);
			vc_dump_close(d);
		} else {
			struct btrfs_inode_ref_rec r;

			ret = btrfs_inode_ref_next(data, len, &pos, &r);
			if (ret)
				break;
			vc_dump_open(d, NULL, "ref");
			vc_dump_u64(d, "index", r.index);
			vc_dump_str(d, "name", r.name);
			vc_dump_close(d);
		}
	}
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_dir_items(struct vc_dump *d, const u8 *data, u32 len, bool xattr)
{
	struct btrfs_dir_item_rec r;
	u32 pos = 0;
	int ret;

	vc_dump_list_open(d, "entries", NULL);
	while ((ret = btrfs_dir_item_next(data, len, &pos, &r)) == 0) {
		vc_dump_open(d, NULL, xattr ? "xattr" : "entry");
		vc_dump_key(d, "location", &r.location);
		vc_dump_u64(d, "type", r.type);
		vc_dump_u64(d, "transid", r.transid);
		vc_dump_str(d, "name", r.name);
		vc_dump_u64(d, "data_len", r.data_len);
		if (r.data_len)
			vc_dump_bytes(d, "data", r.data, r.data_len);
		vc_dump_close(d);
	}
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_root_item(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_root_rec r;
	int ret = btrfs_decode_root_item(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "generation", r.generation);
	vc_dump_u64(d, "root_dirid", r.root_dirid);
	vc_dump_u64(d, "bytenr", r.bytenr);
	vc_dump_u64(d, "level", r.level);
	vc_dump_u64(d, "byte_limit", r.byte_limit);
	vc_dump_u64(d, "bytes_used", r.bytes_used);
	vc_dump_u64(d, "last_snapshot", r.last_snapshot);
	dump_flags(d, "flags", r.flags, root_flags, NULL);
	vc_dump_u64(d, "refs", r.refs);
	vc_dump_key(d, "drop_progress", &r.drop_progress);
	vc_dump_u64(d, "drop_level", r.drop_level);
	vc_dump_u64(d, "generation_v2", r.generation_v2);
	vc_dump_bool(d, "has_v2", r.has_v2);
	if (r.has_v2) {
		vc_dump_uuid(d, "uuid", r.uuid);
		vc_dump_uuid(d, "parent_uuid", r.parent_uuid);
		vc_dump_uuid(d, "received_uuid", r.received_uuid);
		vc_dump_u64(d, "ctransid", r.ctransid);
		vc_dump_u64(d, "otransid", r.otransid);
		vc_dump_u64(d, "stransid", r.stransid);
		vc_dump_u64(d, "rtransid", r.rtransid);
		dump_time(d, "ctime", &r.ctime);
		dump_time(d, "otime", &r.otime);
		dump_time(d, "stime", &r.stime);
		dump_time(d, "rtime", &r.rtime);
	}
	vc_dump_open(d, "inode", "inode");
	dump_inode_rec(d, &r.inode);
	vc_dump_close(d);
	return 0;
}

static int dump_root_ref(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_root_ref_rec r;
	int ret = btrfs_decode_root_ref(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "dirid", r.dirid);
	vc_dump_u64(d, "sequence", r.sequence);
	vc_dump_str(d, "name", r.name);
	return 0;
}

static int dump_chunk_item(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_chunk_rec c;
	int ret = btrfs_decode_chunk(data, len, &c);

	if (!ret)
		dump_chunk_body(d, &c);
	return ret;
}

static int dump_dev_item_body(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_dev_item_rec r;
	int ret = btrfs_decode_dev_item(data, len, &r);

	if (ret)
		return ret;
	dump_dev_item(d, "dev_item", data, len);
	return 0;
}

static int dump_block_group(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_block_group_rec r;
	int ret = btrfs_decode_block_group(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "used", r.used);
	vc_dump_u64(d, "chunk_objectid", r.chunk_objectid);
	dump_flags(d, "flags", r.flags, bg_flags, NULL);
	return 0;
}

static int dump_dev_extent(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_dev_extent_rec r;
	int ret = btrfs_decode_dev_extent(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "chunk_tree", r.chunk_tree);
	vc_dump_u64(d, "chunk_objectid", r.chunk_objectid);
	vc_dump_u64(d, "chunk_offset", r.chunk_offset);
	vc_dump_u64(d, "length", r.length);
	vc_dump_uuid(d, "chunk_tree_uuid", r.chunk_tree_uuid);
	return 0;
}

static int dump_free_space_info(struct vc_dump *d, const u8 *data, u32 len)
{
	struct btrfs_free_space_info_rec r;
	int ret = btrfs_decode_free_space_info(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "extent_count", r.extent_count);
	vc_dump_hex(d, "flags", r.flags);
	vc_dump_bool(d, "using_bitmaps", r.flags & BTRFS_FREE_SPACE_USING_BITMAPS);
	return 0;
}

static void dump_ref(struct vc_dump *d, const struct btrfs_extent_ref_rec *r)
{
	char tb[32];

	vc_dump_open(d, NULL, type_str(r->type, tb, sizeof(tb)));
	if (d->json)
		vc_dump_str(d, "type", type_str(r->type, tb, sizeof(tb)));
	switch (r->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		vc_dump_u64(d, "root", r->root);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		vc_dump_u64(d, "parent", r->parent);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		vc_dump_u64(d, "root", r->root);
		vc_dump_u64(d, "objectid", r->objectid);
		vc_dump_u64(d, "offset", r->offset);
		vc_dump_u64(d, "count", r->count);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		vc_dump_u64(d, "parent", r->parent);
		vc_dump_u64(d, "count", r->count);
		break;
	}
	vc_dump_close(d);
}

static int dump_extent_item(struct vc_dump *d, u8 type, const u8 *data, u32 len)
{
	struct btrfs_extent_ref_rec ref;
	struct btrfs_extent_rec r;
	u32 pos;
	int ret = btrfs_decode_extent_item(data, len, type, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "refs", r.refs);
	vc_dump_u64(d, "generation", r.generation);
	dump_flags(d, "flags", r.flags, extent_flags, NULL);
	if (r.has_tree_block_info) {
		vc_dump_key(d, "tree_block_key", &r.tree_block_key);
		vc_dump_u64(d, "tree_block_level", r.tree_block_level);
	}
	pos = r.inline_start;
	vc_dump_list_open(d, "inline_refs", NULL);
	while ((ret = btrfs_extent_inline_ref_next(data, len, &pos, &ref)) == 0)
		dump_ref(d, &ref);
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_keyed_ref(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	struct btrfs_extent_ref_rec r;
	int ret = btrfs_decode_keyed_ref(key, data, len, &r);

	if (ret)
		return ret;
	switch (r.type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		vc_dump_u64(d, "root", r.root);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		vc_dump_u64(d, "parent", r.parent);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		vc_dump_u64(d, "root", r.root);
		vc_dump_u64(d, "objectid", r.objectid);
		vc_dump_u64(d, "offset", r.offset);
		vc_dump_u64(d, "count", r.count);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		vc_dump_u64(d, "parent", r.parent);
		vc_dump_u64(d, "count", r.count);
		break;
	}
	return 0;
}

static int dump_file_extent(struct vc_dump *d, const u8 *data, u32 len)
{
	static const char *const types[] = { "inline", "regular", "prealloc" };
	struct btrfs_file_extent_rec r;
	int ret = btrfs_decode_file_extent(data, len, &r);

	if (ret)
		return ret;
	vc_dump_u64(d, "generation", r.generation);
	vc_dump_u64(d, "type", r.type);
	vc_dump_str(d, "type_name", r.type < 3 ? types[r.type] : "unknown");
	vc_dump_u64(d, "ram_bytes", r.ram_bytes);
	vc_dump_u64(d, "compression", r.compression);
	vc_dump_u64(d, "encryption", r.encryption);
	vc_dump_u64(d, "other_encoding", r.other_encoding);
	if (r.type == BTRFS_FILE_EXTENT_INLINE) {
		vc_dump_u64(d, "inline_len", r.inline_len);
		return 0;
	}
	vc_dump_u64(d, "disk_bytenr", r.disk_bytenr);
	vc_dump_u64(d, "disk_num_bytes", r.disk_num_bytes);
	vc_dump_u64(d, "offset", r.offset);
	vc_dump_u64(d, "num_bytes", r.num_bytes);
	return 0;
}

static int dump_uuid_item(struct vc_dump *d, const u8 *data, u32 len)
{
	u32 pos = 0;
	u64 id;
	int ret;

	vc_dump_list_open(d, "subvol_ids", NULL);
	while ((ret = btrfs_uuid_item_next(data, len, &pos, &id)) == 0) {
		if (d->json)
			json_u64(&d->jw, NULL, id);
		else
			vc_dump_u64(d, "subvol_id", id);
	}
	vc_dump_list_close(d);
	return ret < 0 ? ret : 0;
}

static int dump_qgroup_item(struct vc_dump *d, u8 type, const u8 *data, u32 len)
{
	int ret;

	if (type == BTRFS_QGROUP_STATUS_KEY) {
		struct btrfs_qgroup_status_rec r;

		ret = btrfs_decode_qgroup_status(data, len, &r);
		if (ret)
			return ret;
		vc_dump_u64(d, "version", r.version);
		vc_dump_u64(d, "generation", r.generation);
		dump_flags(d, "flags", r.flags, qgroup_status_flags, NULL);
		vc_dump_u64(d, "rescan", r.rescan);
		if (r.has_enable_gen)
			vc_dump_u64(d, "enable_gen", r.enable_gen);
	} else if (type == BTRFS_QGROUP_INFO_KEY) {
		struct btrfs_qgroup_info_rec r;

		ret = btrfs_decode_qgroup_info(data, len, &r);
		if (ret)
			return ret;
		vc_dump_u64(d, "generation", r.generation);
		vc_dump_u64(d, "referenced", r.rfer);
		vc_dump_u64(d, "referenced_compressed", r.rfer_cmpr);
		vc_dump_u64(d, "exclusive", r.excl);
		vc_dump_u64(d, "exclusive_compressed", r.excl_cmpr);
	} else {
		struct btrfs_qgroup_limit_rec r;

		ret = btrfs_decode_qgroup_limit(data, len, &r);
		if (ret)
			return ret;
		dump_flags(d, "flags", r.flags, qgroup_limit_flags, NULL);
		vc_dump_u64(d, "max_referenced", r.max_rfer);
		vc_dump_u64(d, "max_exclusive", r.max_excl);
		vc_dump_u64(d, "rsv_referenced", r.rsv_rfer);
		vc_dump_u64(d, "rsv_exclusive", r.rsv_excl);
	}
	return 0;
}

static int dump_dev_stats(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	static const char *const names[] = {
		"write_errs", "read_errs", "flush_errs", "corruption_errs", "generation_errs",
	};

	if (key->objectid != BTRFS_DEV_STATS_OBJECTID)
		return -EOPNOTSUPP;
	for (u32 i = 0; i < 5 && (i + 1) * 8 <= len; i++)
		vc_dump_u64(d, names[i], get_le64(data + i * 8));
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

static int dump_body(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY:
		return dump_inode_item(d, data, len);
	case BTRFS_INODE_REF_KEY:
		return dump_inode_refs(d, data, len, false);
	case BTRFS_INODE_EXTREF_KEY:
		return dump_inode_refs(d, data, len, true);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
		return dump_dir_items(d, data, len, false);
	case BTRFS_XATTR_ITEM_KEY:
		return dump_dir_items(d, data, len, true);
	case BTRFS_ROOT_ITEM_KEY:
		return dump_root_item(d, data, len);
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		return dump_root_ref(d, data, len);
	case BTRFS_CHUNK_ITEM_KEY:
		return dump_chunk_item(d, data, len);
	case BTRFS_DEV_ITEM_KEY:
		return dump_dev_item_body(d, data, len);
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return dump_block_group(d, data, len);
	case BTRFS_DEV_EXTENT_KEY:
		return dump_dev_extent(d, data, len);
	case BTRFS_FREE_SPACE_INFO_KEY:
		return dump_free_space_info(d, data, len);
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
	case BTRFS_QGROUP_STATUS_KEY:
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		return dump_qgroup_item(d, key->type, data, len);
	case BTRFS_PERSISTENT_ITEM_KEY:
		return dump_dev_stats(d, key, data, len);
	case BTRFS_EXTENT_CSUM_KEY: {
		int cs = btrfs_csum_size(d->csum_type);

		if (cs <= 0 || len % cs)
			return -EUCLEAN;
		vc_dump_u64(d, "csums", len / cs);
		return 0;
	}
	}
	if (empty_body_type(key->type))
		return len ? -EUCLEAN : 0;
	return -EOPNOTSUPP;
}

void vc_dump_item(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len)
{
	int ret;

	/*
	 * JSON objects cannot be rolled back, so decode errors are noted after
	 * whatever fields were written; the raw bytes always follow them.
	 */
	vc_dump_open(d, "body", NULL);
	ret = dump_body(d, key, data, len);
	if (ret == -EOPNOTSUPP) {
		vc_dump_bytes(d, "data", data, len);
	} else if (ret) {
		vc_dump_str(d, "error", "item body does not decode");
		vc_dump_bytes(d, "data", data, len);
	}
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
	char title[512], ob[32], tb[32];
	struct btrfs_key key;

	snprintf(title, sizeof(title), "%s %" PRIu64 " level %u items %u generation %" PRIu64
		 " owner %s%s%s%s", level ? "node" : "leaf", eb->start, level, nr,
		 btrfs_eb_generation(eb), objectid_str(btrfs_eb_owner(eb), ob, sizeof(ob)),
		 tree ? " (" : "", tree ? tree : "", tree ? ")" : "");
	vc_dump_open(d, NULL, title);
	vc_dump_u64_json(d, "bytenr", eb->start);
	vc_dump_u64_json(d, "level", level);
	vc_dump_u64_json(d, "nritems", nr);
	vc_dump_u64_json(d, "generation", btrfs_eb_generation(eb));
	vc_dump_u64_json(d, "owner", btrfs_eb_owner(eb));
	dump_flags(d, "flags", btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK, header_flags, NULL);
	vc_dump_u64(d, "backref_rev", btrfs_header_backref_rev(h));
	vc_dump_uuid(d, "fsid", h->fsid);
	vc_dump_uuid(d, "chunk_tree_uuid", h->chunk_tree_uuid);
	dump_csum(d, "csum", h->csum, d->csum_type);
	if (level) {
		vc_dump_list_open(d, "ptrs", NULL);
		for (u32 i = 0; i < nr; i++) {
			btrfs_eb_node_key(eb, i, &key);
			snprintf(title, sizeof(title), "ptr %u key (%s %s %" PRIu64 ") block %" PRIu64
				 " gen %" PRIu64, i, objectid_str(key.objectid, ob, sizeof(ob)),
				 type_str(key.type, tb, sizeof(tb)), key.offset,
				 btrfs_eb_node_blockptr(eb, i), btrfs_eb_node_ptr_generation(eb, i));
			vc_dump_open(d, NULL, title);
			if (d->json) {
				vc_dump_u64(d, "slot", i);
				vc_dump_key(d, "key", &key);
				vc_dump_u64(d, "blockptr", btrfs_eb_node_blockptr(eb, i));
				vc_dump_u64(d, "generation", btrfs_eb_node_ptr_generation(eb, i));
			}
			vc_dump_close(d);
		}
		vc_dump_list_close(d);
	} else {
		u32 free_start = nr * (u32)sizeof(struct btrfs_item);
		u32 data_start = nr ? btrfs_item_offset(btrfs_eb_item(eb, nr - 1)) :
			btrfs_leaf_data_size(eb->len);

		vc_dump_u64(d, "free_space", data_start > free_start ? data_start - free_start : 0);
		vc_dump_list_open(d, "items", NULL);
		for (u32 i = 0; i < nr; i++) {
			u32 off = btrfs_item_offset(btrfs_eb_item(eb, i));
			u32 size = btrfs_eb_item_size(eb, i);

			btrfs_eb_item_key(eb, i, &key);
			snprintf(title, sizeof(title), "item %u key (%s %s %" PRIu64 ") itemoff %u"
				 " itemsize %u", i, objectid_str(key.objectid, ob, sizeof(ob)),
				 type_str(key.type, tb, sizeof(tb)), key.offset, off, size);
			vc_dump_open(d, NULL, title);
			if (d->json) {
				vc_dump_u64(d, "slot", i);
				vc_dump_key(d, "key", &key);
				vc_dump_u64(d, "offset", off);
				vc_dump_u64(d, "size", size);
			}
			vc_dump_item(d, &key, btrfs_eb_item_data(eb, i), size);
			vc_dump_close(d);
		}
		vc_dump_list_close(d);
	}
	vc_dump_close(d);
}
