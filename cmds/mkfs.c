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
	"",
	"Options:",
	OPTLINE("-s|--byte-count SIZE", "use SIZE bytes (10G, 512MiB, 1.5G: see volctl(8)); default: all"),
	OPTLINE("-n|--nodesize SIZE", "tree block size, 4K to 64K, default 16K"),
	OPTLINE("--csum crc32c|xxhash|sha256|blake2", "checksum algorithm, default crc32c"),
	OPTLINE("-L|--label LABEL", "filesystem label"),
	OPTLINE("-U|--uuid UUID", "filesystem UUID instead of a random one"),
	OPTLINE("--quota", "enable quotas (qgroup 0/5 and every --subvol)"),
	OPTLINE("--simple-quota", "enable simple quotas (squota) instead of --quota"),
	OPTLINE("--subvol PATH", "create subvolume PATH after the filesystem, repeatable"),
	OPTLINE("--default-subvol PATH", "make subvolume PATH (one of --subvol) the default"),
	OPTLINE("-f|--force", "overwrite an existing filesystem"),
	NULL,
};

static const struct cmd_help mkfs_help = {
	.synopsis = cmd_mkfs_usage,
	.summary = "make a Btrfs filesystem",
	.details = cmd_mkfs_details,
};

enum { OPT_CSUM = 256, OPT_QUOTA, OPT_SIMPLE_QUOTA, OPT_SUBVOL, OPT_DEFAULT_SUBVOL };

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

/* One mkfs option into @o (a --subvol into @subvols, --default-subvol into *@def). */
static int mkfs_parse_opt(const struct vc_ctx *ctx, int c, struct vc_mkfs_opts *o,
			  char **subvols, char **def, unsigned char *fsid)
{
	const char *why;
	uint64_t v;
	char *p;
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
		if (uuid_parse(optarg, fsid))
			return cmd_usage_error(ctx, "invalid uuid '%s'", optarg);
		o->fsid = fsid;
		return 0;
	case 'f':
		o->force = true;
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
		p = subvol_path(optarg, &why);
		if (!p && !why)
			return VC_EXIT_FAILURE;
		if (!p)
			return cmd_usage_error(ctx, "--%s '%s': %s", c == OPT_SUBVOL ? "subvol" :
					       "default-subvol", optarg, why);
		if (c == OPT_SUBVOL) {
			subvols[o->nr_subvols++] = p;
		} else {
			free(*def);
			*def = p;
		}
		return 0;
	default:
		return VC_EXIT_USAGE;
	}
}

static int cmd_mkfs(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
		    char **argv)
{
	static const struct option longopts[] = {
		{ "byte-count", required_argument, NULL, 's' },
		{ "nodesize", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'L' },
		{ "uuid", required_argument, NULL, 'U' },
		{ "force", no_argument, NULL, 'f' },
		{ "csum", required_argument, NULL, OPT_CSUM },
		{ "checksum", required_argument, NULL, OPT_CSUM },
		{ "quota", no_argument, NULL, OPT_QUOTA },
		{ "simple-quota", no_argument, NULL, OPT_SIMPLE_QUOTA },
		{ "subvol", required_argument, NULL, OPT_SUBVOL },
		{ "default-subvol", required_argument, NULL, OPT_DEFAULT_SUBVOL },
		{ NULL, 0, NULL, 0 },
	};
	struct vc_mkfs_opts o = { 0 };
	char **subvols = NULL;
	char *def = NULL;
	unsigned char fsid[16];
	char err[512] = "";
	int c, ret = VC_EXIT_USAGE;

	(void)cmd;
	subvols = calloc((size_t)argc, sizeof(*subvols));
	if (!subvols)
		return VC_EXIT_FAILURE;
	while ((c = cmd_getopt(ctx, argc, argv, "s:n:L:U:f", longopts)) != -1) {
		ret = mkfs_parse_opt(ctx, c, &o, subvols, &def, fsid);
		if (ret)
			goto out;
	}
	ret = VC_EXIT_USAGE;
	if (cmd_check_argc_exact(ctx, argc - optind, 1))
		goto out;
	o.path = argv[optind];
	o.wait_ms = ctx->cfg->lock_wait_ms;
	o.subvols = (const char *const *)subvols;
	o.default_subvol = def;
	if (vc_mkfs_check_layout(&o, err, sizeof(err)) < 0) {
		cmd_usage_error(ctx, "%s", err);
		goto out;
	}
	if (vc_mkfs(&o, err, sizeof(err)) < 0) {
		error("%s", err);
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	pr_out(ctx->cfg, "Created a Btrfs filesystem on '%s'\n", o.path);
	ret = VC_EXIT_OK;
out:
	for (size_t i = 0; i < o.nr_subvols; i++)
		free(subvols[i]);
	free(subvols);
	free(def);
	return ret;
}

const struct cmd_struct cmd_struct_mkfs = {
	.token = "mkfs",
	.fn = cmd_mkfs,
	.help = &mkfs_help,
	.flags = CMD_IMAGE_ARG | CMD_WRITES,
};
