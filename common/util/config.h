/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read-only run configuration.  main() fills it from the global options
 * once; everything else receives it as const.
 */
#ifndef VOLCTL_COMMON_CONFIG_H
#define VOLCTL_COMMON_CONFIG_H

#include <stdbool.h>

#define VC_MAX_IMAGES 16

enum vc_format {
	VC_FORMAT_TEXT,
	VC_FORMAT_JSON,
};

struct vc_config {
	enum vc_format format;
	bool json_v1;			/* --format json-v1: the version-1 documents (deprecated) */
	int verbose;			/* number of -v */
	bool quiet;			/* -q: no normal output, errors still shown */
	int nr_images;			/* --image FILE, repeatable: offline backend */
	const char *images[VC_MAX_IMAGES];
	int super_mirror;		/* --super N, -1: newest valid copy */
	long long lock_wait_ms;		/* --wait: 0 none, ms, VC_WAIT_FOREVER (storage.h) */
};

/* Exit codes: a contract, documented in every man page. */
enum {
	VC_EXIT_OK = 0,
	VC_EXIT_FAILURE = 1,
	VC_EXIT_USAGE = 2,
};

#endif
