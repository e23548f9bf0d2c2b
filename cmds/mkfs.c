// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl mkfs: make a Btrfs filesystem on a file or device (top-level
 * command, the target is its own argument).  The work is done by
 * common/tool/offline-mkfs.c; here the options are parsed.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uuid/uuid.h>
#include "cmds/commands.h"
#include "common/output/records.h"
#include "common/util/clock.h"
#include "common/util/messages.h"
#include "common/tool/offline-mkfs.h"
#include "common/util/parse-utils.h"
#include "common/util/path-utils.h"
#include "kernel-shared/format.h"

static const char *const cmd_mkfs_usage[] = {
	"mkfs [options] <file>|<device>",
	NULL,
};

static const char *const cmd_mkfs_details[] = {
	"Make a Btrfs filesystem like mkfs.btrfs does by default: DUP metadata,",
	"single data, skinny metadata, no-holes, free space tree, on one device.",
	"A file that does not exist is created when -s is given.  A mounted",
	"target is refused, and an existing Btrfs is only overwritten with -f.",
	"With --rootdir DIR the tree DIR is copied in, without root (see",
	"volctl-mkfs(8)).  SOURCE_DATE_EPOCH, when set, is the time mkfs writes",
	"and the latest file time it keeps (later ones are clamped to it).",
	"",
	"Options:",
	OPTLINE("-s|--byte-count SIZE", "use SIZE bytes (10G, 512MiB, 1.5G: see volctl(8)); default: all"),
	OPTLINE("-n|--nodesize SIZE", "tree block size, 4K to 64K, default 16K"),
	OPTLINE("--csum crc32c|xxhash|sha256|blake2", "checksum algorithm, default crc32c"),
	OPTLINE("-m|--metadata single|dup", "metadata (and system) profile, default dup"),
	OPTLINE("-d|--data single", "data profile: single, the only one (accepted for mkfs.btrfs callers)"),
	OPTLINE("-L|--label LABEL", "filesystem label"),
	OPTLINE("-U|--uuid UUID", "filesystem UUID instead of a random one"),
	OPTLINE("--quota", "enable quotas (qgroup 0/5 and every --subvol)"),
	OPTLINE("--simple-quota", "enable simple quotas (squota) instead of --quota"),
	OPTLINE("-r|--rootdir DIR", "copy the tree DIR into the new filesystem"),
	OPTLINE("--subvol [TYPE:]PATH", "make PATH a subvolume (with --rootdir: the directory PATH of DIR); TYPE rw, ro, default or default-ro; repeatable"),
	OPTLINE("--shrink", "with --rootdir: the smallest image that holds the tree (a file is cut to it)"),
	OPTLINE("--snapshot SRC:DST[:ro]", "after the copy, snapshot subvolume SRC (/ the top level) as DST, parents made; repeatable"),
	OPTLINE("--qgroup ID:PATH[,PATH...]", "with quotas: qgroup ID (level above 0) holding those subvolumes; repeatable"),
	OPTLINE("--limit SIZE[:e]:PATH|ID", "with quotas: limit the referenced (:e exclusive) bytes of a subvolume or qgroup; refused before anything is written if the content exceeds it"),
	OPTLINE("--inode-flags FLAGS:PATH", "with --rootdir: nodatacow and/or nodatasum (comma-separated) on PATH and all below it; repeatable"),
	OPTLINE("--owner UID:GID", "with --rootdir: every inode owned by UID:GID"),
	OPTLINE("--uid-map FROM:TO:COUNT", "with --rootdir: map source uids FROM.. to TO.. (repeatable)"),
	OPTLINE("--gid-map FROM:TO:COUNT", "with --rootdir: the same for gids"),
	OPTLINE("--compress ALG[:LEVEL]", "with --rootdir: compress file data with zstd (level 1-15, default 3), lzo or zlib (1-9, default 3); data that does not shrink is stored plain"),
	OPTLINE("--default-subvol PATH", "make subvolume PATH (one of --subvol) the default"),
	OPTLINE("-f|--force", "overwrite an existing filesystem"),
	OPTLINE("-q|--quiet", "print nothing but errors (as volctl -q)"),
	OPTLINE("-K|--nodiscard", "accepted for mkfs.btrfs callers: volctl never discards the target"),
	NULL,
};

static const struct cmd_help mkfs_help = {
	.synopsis = cmd_mkfs_usage,
	.summary = "make a Btrfs filesystem",
	.details = cmd_mkfs_details,
};

enum { OPT_CSUM = 256, OPT_QUOTA, OPT_SIMPLE_QUOTA, OPT_SUBVOL, OPT_DEFAULT_SUBVOL, OPT_OWNER,
       OPT_UID_MAP, OPT_GID_MAP, OPT_SNAPSHOT, OPT_SHRINK, OPT_QGROUP, OPT_LIMIT,
       OPT_INODE_FLAGS, OPT_COMPRESS };

static int parse_csum(const char *s, u16 *out)
{
	static const struct { const char *name; u16 type; } names[] = {
		{ "crc32c", BTRFS_CSUM_TYPE_CRC32 }, { "xxhash", BTRFS_CSUM_TYPE_XXHASH },
		{ "xxhash64", BTRFS_CSUM_TYPE_XXHASH }, { "sha256", BTRFS_CSUM_TYPE_SHA256 },
		{ "blake2", BTRFS_CSUM_TYPE_BLAKE2 }, { "blake2b", BTRFS_CSUM_TYPE_BLAKE2 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(s, names[i].name)) {
			*out = names[i].type;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * A --subvol or --default-subvol PATH as a clean absolute path ("a//b/" ->
 * "/a/b", a fresh string), or NULL with *@why set: empty, the top level,
 * a ".." or invalid component.
 */
static char *subvol_path(const char *arg, const char **why)
{
	char *clean, *abs;
	const char *p;

	*why = NULL;
	if (!arg[0]) {
		*why = "empty path";
		return NULL;
	}
	clean = path_clean(arg);
	if (!clean)
		return NULL;
	abs = path_join2("/", clean[0] == '/' ? clean + 1 : clean);
	free(clean);
	if (!abs)
		return NULL;
	if (!strcmp(abs, "/") || !strcmp(abs, "/.")) {
		*why = "the top-level subvolume exists already";
		goto bad;
	}
	for (p = abs + 1; *p; ) {
		size_t n = strcspn(p, "/");
		char name[512];

		snprintf(name, sizeof(name), "%.*s", (int)(n < 300 ? n : 300), p);
		*why = path_name_invalid(name);
		if (*why)
			goto bad;
		p += n + (p[n] == '/');
	}
	return abs;
bad:
	free(abs);
	return NULL;
}

/* What the options fill besides struct vc_mkfs_opts */
struct mkfs_args {
	char **subvols;
	bool *ro;
	char *def;
	unsigned char fsid[16];
	struct vc_id_map *uid_map, *gid_map;
	size_t nr_uid_map, nr_gid_map;
	struct vc_mkfs_snapshot *snaps;
	char **snap_paths;		/* the strings snaps point at */
	size_t nr_snaps;
	struct vc_mkfs_qgroup *qgroups;
	size_t nr_qgroups;
	struct vc_mkfs_limit *limits;
	size_t nr_limits;
	struct vc_inode_flags *iflags;
	size_t nr_iflags;
	bool quiet;
	char **strs;			/* every path the two above point at */
	size_t nr_strs, strs_cap;
};

static char *keep(struct mkfs_args *m, char *p)
{
	if (!p)
		return NULL;
	if (m->nr_strs == m->strs_cap) {
		size_t n = m->strs_cap ? 2 * m->strs_cap : 16;
		char **q = realloc(m->strs, n * sizeof(*q));

		if (!q) {
			free(p);
			return NULL;
		}
		m->strs = q;
		m->strs_cap = n;
	}
	m->strs[m->nr_strs++] = p;
	return p;
}

/* --qgroup ID:PATH[,PATH...] */
static int parse_qgroup(const struct vc_ctx *ctx, struct mkfs_args *m)
{
	const char *colon = strchr(optarg, ':'), *why = NULL;
	struct vc_mkfs_qgroup *g;
	const char **paths;
	char *id, *list, *save = NULL;
	size_t nr = 0;

	id = colon ? strndup(optarg, (size_t)(colon - optarg)) : NULL;
	g = realloc(m->qgroups, (m->nr_qgroups + 1) * sizeof(*g));
	if (!g) {
		free(id);
		return VC_EXIT_FAILURE;
	}
	m->qgroups = g;
	g = &m->qgroups[m->nr_qgroups];
	if (!id || parse_qgroupid_strict(id, &g->qgroupid) || !btrfs_qgroup_level(g->qgroupid)) {
		free(id);
		return cmd_usage_error(ctx, "invalid --qgroup '%s': want LEVEL/ID:PATH[,PATH...], LEVEL above 0",
				       optarg);
	}
	free(id);
	list = keep(m, strdup(colon + 1));
	paths = list ? calloc(strlen(list) / 2 + 2, sizeof(*paths)) : NULL;
	if (!paths || !keep(m, (char *)paths))
		return VC_EXIT_FAILURE;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		paths[nr] = keep(m, subvol_path(t, &why));
		if (!paths[nr])
			return why ? cmd_usage_error(ctx, "--qgroup '%s': %s: %s", optarg, t, why) :
				VC_EXIT_FAILURE;
		nr++;
	}
	if (!nr)
		return cmd_usage_error(ctx, "invalid --qgroup '%s': no subvolume named", optarg);
	g->paths = paths;
	g->nr_paths = nr;
	m->nr_qgroups++;
	return 0;
}

/* --inode-flags FLAGS:PATH, FLAGS nodatacow and/or nodatasum (btrfs-progs 6.19) */
static int parse_iflags(const struct vc_ctx *ctx, struct mkfs_args *m)
{
	const char *colon = strchr(optarg, ':'), *why = NULL;
	struct vc_inode_flags *f;
	char *list, *save = NULL;
	bool bad;

	f = realloc(m->iflags, (m->nr_iflags + 1) * sizeof(*f));
	if (!f)
		return VC_EXIT_FAILURE;
	m->iflags = f;
	f = &m->iflags[m->nr_iflags];
	memset(f, 0, sizeof(*f));
	list = colon ? strndup(optarg, (size_t)(colon - optarg)) : NULL;
	bad = !list;
	for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && !bad;
	     t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "nodatacow"))
			f->flags |= BTRFS_INODE_NODATACOW | BTRFS_INODE_NODATASUM;
		else if (!strcmp(t, "nodatasum"))
			f->flags |= BTRFS_INODE_NODATASUM;
		else
			bad = true;
	}
	free(list);
	if (bad || !f->flags || !colon[1])
		return cmd_usage_error(ctx, "invalid --inode-flags '%s': want nodatacow,nodatasum:PATH",
				       optarg);
	f->path = keep(m, subvol_path(colon + 1, &why));
	if (!f->path)
		return why ? cmd_usage_error(ctx, "--inode-flags '%s': %s", optarg, why) :
			VC_EXIT_FAILURE;
	m->nr_iflags++;
	return 0;
}

/* --limit SIZE[:e]:PATH|LEVEL/ID */
static int parse_limit(const struct vc_ctx *ctx, struct mkfs_args *m)
{
	const char *colon = strchr(optarg, ':'), *target, *why = NULL;
	struct vc_mkfs_limit *l;
	char *size;
	int bad;

	l = realloc(m->limits, (m->nr_limits + 1) * sizeof(*l));
	if (!l)
		return VC_EXIT_FAILURE;
	m->limits = l;
	l = &m->limits[m->nr_limits];
	memset(l, 0, sizeof(*l));
	l->arg = optarg;
	size = colon ? strndup(optarg, (size_t)(colon - optarg)) : NULL;
	bad = !size || parse_size(size, false, &l->bytes, NULL);
	free(size);
	if (bad || !colon[1])
		return cmd_usage_error(ctx, "invalid --limit '%s': want SIZE[:e]:PATH or SIZE[:e]:LEVEL/ID",
				       optarg);
	target = colon + 1;
	if (!strncmp(target, "e:", 2)) {
		l->exclusive = true;
		target += 2;
	}
	/* digits/digits is a qgroup; a path that looks like one is written with a leading / */
	if (!parse_qgroupid_strict(target, &l->qgroupid)) {
		m->nr_limits++;
		return 0;
	}
	l->path = keep(m, subvol_path(target, &why));
	if (!l->path)
		return why ? cmd_usage_error(ctx, "--limit '%s': %s", optarg, why) : VC_EXIT_FAILURE;
	m->nr_limits++;
	return 0;
}

/* "rw:", "ro:", "default:", "default-ro:" in front of a --subvol path (btrfs-progs 6.19) */
static const char *subvol_type(const char *arg, bool *ro, bool *def)
{
	static const struct { const char *p; bool ro, def; } types[] = {
		{ "rw:", false, false }, { "ro:", true, false },
		{ "default:", false, true }, { "default-ro:", true, true },
	};

	*ro = *def = false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i].p);

		if (!strncmp(arg, types[i].p, n)) {
			*ro = types[i].ro;
			*def = types[i].def;
			return arg + n;
		}
	}
	return arg;
}

static int parse_u32(const char *s, char **end, uint32_t *out)
{
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_owner(const char *s, uint32_t *uid, uint32_t *gid)
{
	char *end;

	if (parse_u32(s, &end, uid) || *end != ':' || parse_u32(end + 1, &end, gid) || *end)
		return -EINVAL;
	return 0;
}

static int parse_map(const char *s, struct vc_id_map **maps, size_t *nr)
{
	struct vc_id_map m, *p;
	char *end;

	if (parse_u32(s, &end, &m.from) || *end != ':' || parse_u32(end + 1, &end, &m.to) ||
	    *end != ':' || parse_u32(end + 1, &end, &m.count) || *end || !m.count ||
	    m.from + (uint64_t)m.count - 1 > UINT32_MAX || m.to + (uint64_t)m.count - 1 > UINT32_MAX)
		return -EINVAL;
	p = realloc(*maps, (*nr + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	p[(*nr)++] = m;
	*maps = p;
	return 0;
}

static int parse_subvol(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o,
			struct mkfs_args *m)
{
	const char *why, *arg = optarg;
	bool ro = false, def = false;
	char *p;

	if (c == OPT_SUBVOL)
		arg = subvol_type(optarg, &ro, &def);
	p = subvol_path(arg, &why);
	if (!p && !why)
		return VC_EXIT_FAILURE;
	if (!p)
		return cmd_usage_error(ctx, "--%s '%s': %s", c == OPT_SUBVOL ? "subvol" :
				       "default-subvol", optarg, why);
	if (c == OPT_SUBVOL) {
		m->ro[o->nr_subvols] = ro;
		m->subvols[o->nr_subvols++] = p;
		if (!def)
			return 0;
		p = strdup(p);
		if (!p)
			return VC_EXIT_FAILURE;
	}
	free(m->def);
	m->def = p;
	return 0;
}

/* --snapshot SRC:DST[:ro] */
static int parse_snapshot(const struct vc_ctx *ctx, struct mkfs_args *m)
{
	const char *colon = strchr(optarg, ':'), *why = NULL;
	char *src = NULL, *dst = NULL, *d;
	bool ro = false;
	size_t n;

	if (!colon)
		return cmd_usage_error(ctx, "invalid --snapshot '%s': want SRC:DST[:ro]", optarg);
	d = strdup(colon + 1);
	if (!d)
		return VC_EXIT_FAILURE;
	n = strlen(d);
	if (n > 3 && !strcmp(d + n - 3, ":ro")) {
		d[n - 3] = 0;
		ro = true;
	}
	src = colon == optarg ? NULL : strndup(optarg, (size_t)(colon - optarg));
	if (src && strcmp(src, "/")) {
		char *p = subvol_path(src, &why);

		free(src);
		src = p;
	} else if (!src) {
		why = "empty source";
	}
	if (!why)
		dst = subvol_path(d, &why);
	free(d);
	if (!src || !dst) {
		free(src);
		free(dst);
		if (!why)
			return VC_EXIT_FAILURE;
		return cmd_usage_error(ctx, "--snapshot '%s': %s", optarg, why);
	}
	m->snap_paths[2 * m->nr_snaps] = src;
	m->snap_paths[2 * m->nr_snaps + 1] = dst;
	m->snaps[m->nr_snaps++] = (struct vc_mkfs_snapshot){ src, dst, ro };
	return 0;
}

/* -m single|dup, -d single: the profiles one device supports (as mkfs.btrfs names them) */
static int parse_profile(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o)
{
	static const char *const multi[] = { "raid0", "raid1", "raid1c3", "raid1c4", "raid10",
					     "raid5", "raid6" };
	bool single = !strcasecmp(optarg, "single");

	if (single || (c == 'm' && !strcasecmp(optarg, "dup"))) {
		if (c == 'm')
			o->meta_single = single;
		return 0;
	}
	for (size_t i = 0; i < sizeof(multi) / sizeof(multi[0]); i++) {
		if (!strcasecmp(optarg, multi[i]) || (c == 'd' && !strcasecmp(optarg, "dup")))
			return cmd_usage_error(ctx, "%s profile '%s': %s",
					       c == 'm' ? "metadata" : "data", optarg,
					       c == 'm' ? "one device supports single and dup" :
					       "volctl makes single data only");
	}
	return cmd_usage_error(ctx, "unknown %s profile '%s': use %s", c == 'm' ? "metadata" : "data",
			       optarg, c == 'm' ? "single or dup" : "single");
}

static int mkfs_parse_layout(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o,
			     struct mkfs_args *m);

/* One mkfs option into @o and @m */
static int mkfs_parse_opt(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o,
			  struct mkfs_args *m)
{
	uint64_t v;
	int bad;

	switch (c) {
	case 's':
		bad = parse_size(optarg, false, &v, NULL);
		if (bad || !v)
			return cmd_usage_error(ctx, "invalid size '%s': %s", optarg,
					       parse_size_strerror(bad, "want a size above 0 such "
								   "as 256M or 1G"));
		o->size = v;
		return 0;
	case 'n':
		if (parse_size(optarg, false, &v, NULL) || v < 4096 || v > 65536 ||
		    (v & (v - 1)))
			return cmd_usage_error(ctx, "invalid nodesize '%s': a power of two from 4K to 64K",
					       optarg);
		o->nodesize = (uint32_t)v;
		return 0;
	case 'L':
		if (strlen(optarg) >= BTRFS_LABEL_SIZE)
			return cmd_usage_error(ctx, "label too long: at most %d bytes",
					       BTRFS_LABEL_SIZE - 1);
		o->label = optarg;
		return 0;
	case 'U':
		if (uuid_parse(optarg, m->fsid))
			return cmd_usage_error(ctx, "invalid uuid '%s'", optarg);
		o->fsid = m->fsid;
		return 0;
	default:
		return mkfs_parse_layout(ctx, c, o, m);
	}
}

/* The other options: the tree, the layout, quotas, force */
static int mkfs_parse_layout(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o,
			     struct mkfs_args *m)
{
	int bad;

	switch (c) {
	case 'r':
		o->rootdir = optarg;
		return 0;
	case OPT_OWNER:
		if (parse_owner(optarg, &o->owner_uid, &o->owner_gid))
			return cmd_usage_error(ctx, "invalid --owner '%s': want UID:GID", optarg);
		o->owner_set = true;
		return 0;
	case OPT_UID_MAP:
	case OPT_GID_MAP:
		bad = c == OPT_UID_MAP ? parse_map(optarg, &m->uid_map, &m->nr_uid_map) :
			parse_map(optarg, &m->gid_map, &m->nr_gid_map);
		if (bad == -ENOMEM)
			return VC_EXIT_FAILURE;
		if (bad)
			return cmd_usage_error(ctx, "invalid --%s '%s': want FROM:TO:COUNT, COUNT above 0",
					       c == OPT_UID_MAP ? "uid-map" : "gid-map", optarg);
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'q':
		m->quiet = true;
		return 0;
	case 'K':
		return 0;	/* nothing is discarded anyway */
	case 'm':
	case 'd':
		return parse_profile(ctx, c, o);
	case OPT_COMPRESS:
		o->compress = optarg;
		return 0;
	case OPT_CSUM:
		if (parse_csum(optarg, &o->csum_type))
			return cmd_usage_error(ctx, "unknown checksum '%s': use crc32c, xxhash, sha256 or blake2",
					       optarg);
		return 0;
	case OPT_QUOTA:
		o->quota = true;
		return 0;
	case OPT_SIMPLE_QUOTA:
		o->simple_quota = true;
		return 0;
	case OPT_SUBVOL:
	case OPT_DEFAULT_SUBVOL:
		return parse_subvol(ctx, c, o, m);
	case OPT_SNAPSHOT:
		return parse_snapshot(ctx, m);
	case OPT_SHRINK:
		o->shrink = true;
		return 0;
	case OPT_QGROUP:
		return parse_qgroup(ctx, m);
	case OPT_LIMIT:
		return parse_limit(ctx, m);
	case OPT_INODE_FLAGS:
		return parse_iflags(ctx, m);
	default:
		return VC_EXIT_USAGE;
	}
}

static const char *csum_name(u16 type)
{
	switch (type) {
	case BTRFS_CSUM_TYPE_XXHASH: return "xxhash64";
	case BTRFS_CSUM_TYPE_SHA256: return "sha256";
	case BTRFS_CSUM_TYPE_BLAKE2: return "blake2b";
	default: return "crc32c";
	}
}

static void print_json(const struct vc_ctx *ctx, const struct vc_mkfs_opts *o,
		       const struct vc_mkfs_result *res, const struct vc_rootdir_stats *st)
{
	const bool dir = o->rootdir != NULL;
	struct mkfs_rec r = {
		.path = o->path, .size = res->total_bytes, .uuid = res->fsid,
		.nodesize = o->nodesize ? o->nodesize : 16384, .csum = csum_name(o->csum_type),
		.quota = !res->quota ? NULL : o->simple_quota ? "simple" : "full",
		.rootdir = o->rootdir,
		.inodes = dir ? &st->inodes : NULL, .directories = dir ? &st->dirs : NULL,
		.files = dir ? &st->files : NULL, .symlinks = dir ? &st->symlinks : NULL,
		.special = dir ? &st->specials : NULL, .hard_links = dir ? &st->hardlinks : NULL,
		.data_bytes = dir ? &st->data_bytes : NULL,
		.inline_bytes = dir ? &st->inline_bytes : NULL,
		.subvolumes = res->subvolumes, .qgroups = res->quota ? &res->qgroups : NULL,
	};

	cmd_print_doc(ctx, &rec_doc_mkfs, &rec_mkfs, &r);
}

static void skipped_mount(void *priv, const char *path)
{
	(void)priv;
	warning("%s: a mount point, not copied", path);
}

/* SOURCE_DATE_EPOCH, the reproducible-builds convention: seconds since 1970 */
static int source_date_epoch(const struct vc_ctx *ctx, struct vc_mkfs_opts *o)
{
	int64_t sec;
	int ret = vc_source_date_epoch(&sec);

	if (ret < 0) {
		cmd_usage_error(ctx, "invalid SOURCE_DATE_EPOCH '%s': want seconds since 1970",
				getenv("SOURCE_DATE_EPOCH"));
		return -1;
	}
	o->epoch_set = ret == 1;
	o->epoch = ret == 1 ? sec : 0;
	return 0;
}

static const struct option mkfs_longopts[] = {
	{ "byte-count", required_argument, NULL, 's' },
	{ "nodesize", required_argument, NULL, 'n' },
	{ "label", required_argument, NULL, 'L' },
	{ "uuid", required_argument, NULL, 'U' },
	{ "force", no_argument, NULL, 'f' },
	{ "csum", required_argument, NULL, OPT_CSUM },
	{ "metadata", required_argument, NULL, 'm' },
	{ "data", required_argument, NULL, 'd' },
	{ "checksum", required_argument, NULL, OPT_CSUM },
	{ "quota", no_argument, NULL, OPT_QUOTA },
	{ "simple-quota", no_argument, NULL, OPT_SIMPLE_QUOTA },
	{ "subvol", required_argument, NULL, OPT_SUBVOL },
	{ "default-subvol", required_argument, NULL, OPT_DEFAULT_SUBVOL },
	{ "rootdir", required_argument, NULL, 'r' },
	{ "owner", required_argument, NULL, OPT_OWNER },
	{ "uid-map", required_argument, NULL, OPT_UID_MAP },
	{ "gid-map", required_argument, NULL, OPT_GID_MAP },
	{ "snapshot", required_argument, NULL, OPT_SNAPSHOT },
	{ "shrink", no_argument, NULL, OPT_SHRINK },
	{ "qgroup", required_argument, NULL, OPT_QGROUP },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "inode-flags", required_argument, NULL, OPT_INODE_FLAGS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "nodiscard", no_argument, NULL, 'K' },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ NULL, 0, NULL, 0 },
};

static void mkfs_args_release(struct vc_mkfs_opts *o, struct mkfs_args *m)
{
	for (size_t i = 0; m->subvols && i < o->nr_subvols; i++)
		free(m->subvols[i]);
	free(m->subvols);
	free(m->ro);
	free(m->def);
	free(m->uid_map);
	free(m->gid_map);
	for (size_t i = 0; m->snap_paths && i < 2 * m->nr_snaps; i++)
		free(m->snap_paths[i]);
	free(m->snap_paths);
	free(m->snaps);
	for (size_t i = 0; i < m->nr_strs; i++)
		free(m->strs[i]);
	free(m->strs);
	free(m->qgroups);
	free(m->limits);
	free(m->iflags);
}

/* The options that need others, then everything parsed into @o; 0 or an exit code */
static int mkfs_finish_opts(const struct vc_ctx *ctx, struct vc_mkfs_opts *o,
			    struct mkfs_args *m)
{
	if (!o->rootdir && (o->owner_set || m->nr_uid_map || m->nr_gid_map || o->shrink ||
			    m->nr_iflags))
		return cmd_usage_error(ctx, "--owner, --uid-map, --gid-map, --shrink and --inode-flags need --rootdir");
	if ((m->nr_qgroups || m->nr_limits) && !o->quota && !o->simple_quota)
		return cmd_usage_error(ctx, "--qgroup and --limit need --quota or --simple-quota");
	if (source_date_epoch(ctx, o))
		return VC_EXIT_USAGE;
	o->wait_ms = ctx->cfg->lock_wait_ms;
	o->subvols = (const char *const *)m->subvols;
	o->subvol_ro = m->ro;
	o->snapshots = m->snaps;
	o->nr_snapshots = m->nr_snaps;
	o->qgroups = m->qgroups;
	o->nr_qgroups = m->nr_qgroups;
	o->limits = m->limits;
	o->nr_limits = m->nr_limits;
	o->iflags = m->iflags;
	o->nr_iflags = m->nr_iflags;
	o->default_subvol = m->def;
	o->uid_map = m->uid_map;
	o->nr_uid_map = m->nr_uid_map;
	o->gid_map = m->gid_map;
	o->nr_gid_map = m->nr_gid_map;
	o->skipped = skipped_mount;
	return 0;
}

static void print_text(const struct vc_ctx *ctx, const struct vc_mkfs_opts *o,
		       const struct vc_rootdir_stats *st)
{
	pr_out(ctx->cfg, "Created a Btrfs filesystem on '%s'\n", o->path);
	if (o->rootdir)
		pr_out(ctx->cfg, "Copied %s: %llu inodes (%llu directories, %llu files, %llu symlinks, %llu special), %llu hard links, %llu bytes of data, %llu inline\n",
		       o->rootdir, (unsigned long long)st->inodes, (unsigned long long)st->dirs,
		       (unsigned long long)st->files, (unsigned long long)st->symlinks,
		       (unsigned long long)st->specials, (unsigned long long)st->hardlinks,
		       (unsigned long long)st->data_bytes, (unsigned long long)st->inline_bytes);
}

static int cmd_mkfs(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
		    char **argv)
{
	struct vc_mkfs_opts o = { 0 };
	struct vc_rootdir_stats stats = { 0 };
	struct vc_mkfs_result res = { 0 };
	struct mkfs_args m = { 0 };
	char err[1024] = "";
	int c, ret = VC_EXIT_FAILURE;

	(void)cmd;
	m.subvols = calloc((size_t)argc, sizeof(*m.subvols));
	m.ro = calloc((size_t)argc, sizeof(*m.ro));
	m.snaps = calloc((size_t)argc, sizeof(*m.snaps));
	m.snap_paths = calloc(2 * (size_t)argc, sizeof(*m.snap_paths));
	if (!m.subvols || !m.ro || !m.snaps || !m.snap_paths)
		goto out;
	while ((c = cmd_getopt(ctx, argc, argv, "s:n:L:U:fr:qKm:d:", mkfs_longopts)) != -1) {
		ret = mkfs_parse_opt(ctx, c, &o, &m);
		if (ret)
			goto out;
	}
	ret = VC_EXIT_USAGE;
	if (cmd_check_argc_exact(ctx, argc - optind, 1))
		goto out;
	ret = mkfs_finish_opts(ctx, &o, &m);
	if (ret)
		goto out;
	o.path = argv[optind];
	o.stats = &stats;
	o.result = ctx->cfg->format == VC_FORMAT_JSON ? &res : NULL;
	ret = VC_EXIT_USAGE;
	if (vc_mkfs_check_layout(&o, err, sizeof(err)) < 0) {
		cmd_usage_error(ctx, "%s", err);
		goto out;
	}
	ret = VC_EXIT_FAILURE;
	if (vc_mkfs(&o, err, sizeof(err)) < 0) {
		error("%s", err);
		goto out;
	}
	if (ctx->cfg->format == VC_FORMAT_JSON)
		print_json(ctx, &o, &res, &stats);
	if (!m.quiet)
		print_text(ctx, &o, &stats);
	ret = VC_EXIT_OK;
out:
	mkfs_args_release(&o, &m);
	return ret;
}

const struct cmd_struct cmd_struct_mkfs = {
	.token = "mkfs",
	.fn = cmd_mkfs,
	.help = &mkfs_help,
	.flags = CMD_IMAGE_ARG | CMD_WRITES | CMD_FORMAT_JSON,
};
