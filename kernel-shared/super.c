// SPDX-License-Identifier: GPL-2.0-only
/*
 * Superblock copies: read, verify, choose (see super.h).
 *
 * Nothing read from disk is trusted before btrfs_super_read_mirror() has
 * checked magic, checksum and every field later code uses as a size, an
 * alignment or a loop bound: sectorsize, nodesize, stripesize, the root
 * levels, sys_chunk_array_size and num_devices.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "csum.h"
#include "errmsg.h"
#include "super.h"

static bool is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

int btrfs_super_csum_verify(const struct btrfs_super_block *sb)
{
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	u16 type = btrfs_super_csum_type(sb);
	int size = btrfs_csum_size(type);

	if (size < 0)
		return -EOPNOTSUPP;
	btrfs_csum_data(type, (const u8 *)sb + BTRFS_CSUM_SIZE,
			BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, csum);
	if (memcmp(csum, btrfs_super_csum(sb), (size_t)size))
		return -EUCLEAN;
	return 0;
}

int btrfs_super_csum_update(struct btrfs_super_block *sb)
{
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	int ret;

	ret = btrfs_csum_data(btrfs_super_csum_type(sb), (const u8 *)sb + BTRFS_CSUM_SIZE,
			      BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, csum);
	if (ret < 0)
		return ret;
	btrfs_set_super_csum(sb, csum);
	return 0;
}

int btrfs_super_validate(const struct btrfs_super_block *sb, u64 bytenr, char *errmsg)
{
	u32 sectorsize = btrfs_super_sectorsize(sb);
	u32 nodesize = btrfs_super_nodesize(sb);
	u32 stripesize = btrfs_super_stripesize(sb);
	u32 sys_size = btrfs_super_sys_chunk_array_size(sb);
	const u8 *meta_fsid;

#define BAD(...) do { btrfs_errmsg_set(errmsg, __VA_ARGS__); return -EUCLEAN; } while (0)
	if (btrfs_super_magic(sb) != BTRFS_MAGIC)
		BAD("superblock at %llu: bad magic", (unsigned long long)bytenr);
	if (btrfs_super_bytenr(sb) != bytenr)
		BAD("superblock at %llu: bytenr field says %llu", (unsigned long long)bytenr,
		    (unsigned long long)btrfs_super_bytenr(sb));
	if (btrfs_csum_size(btrfs_super_csum_type(sb)) < 0)
		BAD("superblock at %llu: unknown checksum type %u", (unsigned long long)bytenr,
		    btrfs_super_csum_type(sb));
	if (!is_pow2(sectorsize) || sectorsize < 4096 || sectorsize > 65536)
		BAD("superblock: invalid sectorsize %u", sectorsize);
	if (!is_pow2(nodesize) || nodesize < sectorsize ||
	    nodesize < BTRFS_MIN_METADATA_BLOCKSIZE || nodesize > BTRFS_MAX_METADATA_BLOCKSIZE)
		BAD("superblock: invalid nodesize %u", nodesize);
	if (!is_pow2(stripesize) || stripesize > 65536)
		BAD("superblock: invalid stripesize %u", stripesize);
	if (!btrfs_super_root(sb) || btrfs_super_root(sb) % sectorsize)
		BAD("superblock: root tree bytenr %llu not aligned",
		    (unsigned long long)btrfs_super_root(sb));
	if (!btrfs_super_chunk_root(sb) || btrfs_super_chunk_root(sb) % sectorsize)
		BAD("superblock: chunk tree bytenr %llu not aligned",
		    (unsigned long long)btrfs_super_chunk_root(sb));
	if (btrfs_super_root_level(sb) >= BTRFS_MAX_LEVEL)
		BAD("superblock: root tree level %u too high", btrfs_super_root_level(sb));
	if (btrfs_super_chunk_root_level(sb) >= BTRFS_MAX_LEVEL)
		BAD("superblock: chunk tree level %u too high", btrfs_super_chunk_root_level(sb));
	if (sys_size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE ||
	    sys_size < sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(1))
		BAD("superblock: invalid sys_chunk_array_size %u", sys_size);
	if (!btrfs_super_num_devices(sb) || btrfs_super_num_devices(sb) > 65536)
		BAD("superblock: invalid num_devices %llu",
		    (unsigned long long)btrfs_super_num_devices(sb));
	if (!btrfs_super_generation(sb))
		BAD("superblock: generation is 0");
	if (!btrfs_super_total_bytes(sb))
		BAD("superblock: total_bytes is 0");
	meta_fsid = (btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_METADATA_UUID) ?
		    btrfs_super_metadata_uuid(sb) : btrfs_super_fsid(sb);
	if (memcmp(btrfs_dev_item_fsid(btrfs_super_dev_item(sb)), meta_fsid, BTRFS_FSID_SIZE))
		BAD("superblock: dev_item fsid does not match the filesystem");
	if (!btrfs_dev_item_devid(btrfs_super_dev_item(sb)))
		BAD("superblock: dev_item devid is 0");
#undef BAD
	return 0;
}

struct feature_name {
	u64 bit;
	const char *name;
};

static const struct feature_name incompat_names[] = {
	{ BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF, "mixed-backref" },
	{ BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL, "default-subvol" },
	{ BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, "mixed-groups" },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO, "compress-lzo" },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD, "compress-zstd" },
	{ BTRFS_FEATURE_INCOMPAT_BIG_METADATA, "big-metadata" },
	{ BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF, "extended-iref" },
	{ BTRFS_FEATURE_INCOMPAT_RAID56, "raid56" },
	{ BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA, "skinny-metadata" },
	{ BTRFS_FEATURE_INCOMPAT_NO_HOLES, "no-holes" },
	{ BTRFS_FEATURE_INCOMPAT_METADATA_UUID, "metadata-uuid" },
	{ BTRFS_FEATURE_INCOMPAT_RAID1C34, "raid1c34" },
	{ BTRFS_FEATURE_INCOMPAT_ZONED, "zoned" },
	{ BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2, "extent-tree-v2" },
	{ BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE, "raid-stripe-tree" },
	{ BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA, "simple-quota" },
	{ BTRFS_FEATURE_INCOMPAT_REMAP_TREE, "remap-tree" },
};

static const struct feature_name compat_ro_names[] = {
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE, "free-space-tree" },
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID, "free-space-tree-valid" },
	{ BTRFS_FEATURE_COMPAT_RO_VERITY, "verity" },
	{ BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, "block-group-tree" },
};

static const char *feature_lookup(const struct feature_name *t, size_t n, u64 bit)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].bit == bit)
			return t[i].name;
	return NULL;
}

const char *btrfs_incompat_name(u64 bit)
{
	return feature_lookup(incompat_names, sizeof(incompat_names) / sizeof(incompat_names[0]),
			      bit);
}

const char *btrfs_compat_ro_name(u64 bit)
{
	return feature_lookup(compat_ro_names,
			      sizeof(compat_ro_names) / sizeof(compat_ro_names[0]), bit);
}

static u64 lowest_bit(u64 v)
{
	return v & (~v + 1);
}

int btrfs_super_check_features(const struct btrfs_super_block *sb, bool writable, char *errmsg)
{
	u64 incompat = btrfs_super_incompat_flags(sb);
	u64 compat_ro = btrfs_super_compat_ro_flags(sb);
	u64 supp = writable ? BTRFS_WRITE_INCOMPAT_SUPP : BTRFS_READ_INCOMPAT_SUPP;
	u64 bad = incompat & ~supp;
	const char *name;

	if (bad) {
		u64 bit = lowest_bit(bad);

		name = btrfs_incompat_name(bit);
		if (name)
			btrfs_errmsg_set(errmsg, "incompat feature %s not supported%s", name,
					 writable ? " for writing" : "");
		else
			btrfs_errmsg_set(errmsg, "unknown incompat feature bit 0x%llx",
					 (unsigned long long)bit);
		return -EOPNOTSUPP;
	}
	if (writable && (compat_ro & ~BTRFS_WRITE_COMPAT_RO_SUPP)) {
		u64 bit = lowest_bit(compat_ro & ~BTRFS_WRITE_COMPAT_RO_SUPP);

		btrfs_errmsg_set(errmsg, "unknown compat_ro feature bit 0x%llx: read-only",
				 (unsigned long long)bit);
		return -EOPNOTSUPP;
	}
	if (writable && (btrfs_super_flags(sb) & (BTRFS_SUPER_FLAG_CHANGING_FSID |
						   BTRFS_SUPER_FLAG_CHANGING_FSID_V2 |
						   BTRFS_SUPER_FLAG_CHANGING_BG_TREE |
						   BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM |
						   BTRFS_SUPER_FLAG_CHANGING_META_CSUM |
						   BTRFS_SUPER_FLAG_METADUMP |
						   BTRFS_SUPER_FLAG_METADUMP_V2 |
						   BTRFS_SUPER_FLAG_SEEDING))) {
		btrfs_errmsg_set(errmsg, "superblock flags 0x%llx: interrupted conversion, seed or metadump image",
				 (unsigned long long)btrfs_super_flags(sb));
		return -EOPNOTSUPP;
	}
	return 0;
}

int btrfs_super_read_mirror(struct btrfs_io_dev *dev, int mirror, struct btrfs_super_block *sb,
			    char *errmsg)
{
	char why[BTRFS_ERRMSG_SIZE] = "";
	u64 off;
	int ret;

	if (mirror < 0 || mirror >= BTRFS_SUPER_MIRROR_MAX) {
		btrfs_errmsg_set(errmsg, "%s: superblock mirror %d does not exist", dev->name, mirror);
		return -EINVAL;
	}
	off = btrfs_sb_offset(mirror);
	if (off + BTRFS_SUPER_INFO_SIZE > dev->size) {
		btrfs_errmsg_set(errmsg, "%s: superblock mirror %d beyond the end of the device",
				 dev->name, mirror);
		return -ENOENT;
	}
	ret = btrfs_io_read(dev, sb, sizeof(*sb), off);
	if (ret < 0) {
		btrfs_errmsg_set(errmsg, "%s: cannot read superblock mirror %d", dev->name, mirror);
		return ret;
	}
	if (btrfs_super_magic(sb) != BTRFS_MAGIC) {
		if (btrfs_super_magic(sb) == BTRFS_MAGIC_TEMPORARY)
			btrfs_errmsg_set(errmsg, "%s: superblock mirror %d: unfinished mkfs",
					 dev->name, mirror);
		else
			btrfs_errmsg_set(errmsg, "%s: superblock mirror %d: bad magic, not a btrfs filesystem",
					 dev->name, mirror);
		return -EUCLEAN;
	}
	ret = btrfs_super_csum_verify(sb);
	if (ret == -EOPNOTSUPP) {
		btrfs_errmsg_set(errmsg, "%s: superblock mirror %d: unknown checksum type %u",
				 dev->name, mirror, btrfs_super_csum_type(sb));
		return -EUCLEAN;
	}
	if (ret < 0) {
		btrfs_errmsg_set(errmsg, "%s: superblock mirror %d: checksum mismatch", dev->name,
				 mirror);
		return ret;
	}
	ret = btrfs_super_validate(sb, off, why);
	if (ret < 0)
		btrfs_errmsg_set(errmsg, "%s: %s", dev->name, why);
	return ret;
}

int btrfs_super_read(struct btrfs_io_dev *dev, int mirror, struct btrfs_super_block *sb,
		     char *errmsg)
{
	return btrfs_super_read_mirror(dev, mirror, sb, errmsg);
}

/* Every byte but the checksum and the copy's own bytenr */
static bool same_contents(const struct btrfs_super_block *a, const struct btrfs_super_block *b)
{
	const u8 *pa = (const u8 *)a, *pb = (const u8 *)b;
	size_t bytenr = offsetof(struct btrfs_super_block, bytenr);

	return !memcmp(pa + BTRFS_CSUM_SIZE, pb + BTRFS_CSUM_SIZE, bytenr - BTRFS_CSUM_SIZE) &&
	       !memcmp(pa + bytenr + sizeof(a->bytenr), pb + bytenr + sizeof(a->bytenr),
		       BTRFS_SUPER_INFO_SIZE - bytenr - sizeof(a->bytenr));
}

static enum btrfs_super_finding compare_copy(const struct btrfs_super_copy *c,
					     const struct btrfs_super_block *sb,
					     const struct btrfs_super_copy *p,
					     const struct btrfs_super_block *psb)
{
	if (!c->valid)
		return BTRFS_SUPER_MIRROR_BAD;
	if (c->generation > p->generation)
		return BTRFS_SUPER_NEWER;
	if (c->generation < p->generation)
		return BTRFS_SUPER_STALE;
	return same_contents(sb, psb) ? BTRFS_SUPER_FINE : BTRFS_SUPER_DIFFERS;
}

static bool all_zero(const void *buf, size_t len)
{
	const u8 *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

int btrfs_super_read_copies(struct btrfs_io_dev *dev, const struct btrfs_super_block *primary,
			    struct btrfs_super_copy *copies)
{
	struct btrfs_super_block sbs[BTRFS_SUPER_MIRROR_MAX];
	u64 limit = dev->size;
	int newest = -1, nr = 0;

	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		struct btrfs_super_copy *c = &copies[m];
		int ret;

		memset(c, 0, sizeof(*c));
		c->bytenr = btrfs_sb_offset(m);
		if (m == 0 && primary) {
			memcpy(&sbs[0], primary, sizeof(sbs[0]));
			ret = 0;
		} else {
			/* not zeros unless read as zeros */
			memset(&sbs[m], 0xff, sizeof(sbs[m]));
			ret = btrfs_super_read_mirror(dev, m, &sbs[m], c->msg);
		}
		/* a mirror of zeros was never written (btrfs-image -r leaves them so) */
		if (m > 0 && (ret == -ENOENT || (ret < 0 && all_zero(&sbs[m], sizeof(sbs[m]))))) {
			c->finding = BTRFS_SUPER_ABSENT;
			c->msg[0] = '\0';
			continue;
		}
		c->valid = ret == 0;
		if (!c->valid)
			continue;
		c->generation = btrfs_super_generation(&sbs[m]);
		if (newest < 0 || c->generation > copies[newest].generation)
			newest = m;
	}
	/* the kernel writes the copies that end before the device's total_bytes */
	if (copies[0].valid)
		newest = 0;
	if (newest >= 0)
		limit = btrfs_dev_item_total_bytes(btrfs_super_dev_item(&sbs[newest]));
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		struct btrfs_super_copy *c = &copies[m];

		if (m > 0 && (c->finding == BTRFS_SUPER_ABSENT ||
			      c->bytenr + BTRFS_SUPER_INFO_SIZE >= limit)) {
			c->finding = BTRFS_SUPER_ABSENT;
			continue;
		}
		nr++;
		if (m == 0)
			c->finding = c->valid ? BTRFS_SUPER_FINE : BTRFS_SUPER_PRIMARY_BAD;
		else if (copies[0].valid)
			c->finding = compare_copy(c, &sbs[m], &copies[0], &sbs[0]);
		else
			c->finding = BTRFS_SUPER_FINE;	/* the primary's finding says it all */
	}
	return nr;
}
