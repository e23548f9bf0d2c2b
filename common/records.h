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

/* A JSON document's top-level member: its name, and the version-1 name (or NULL) */
struct rec_doc {
	const char *key;
	const char *v1_key;	/* printed after it, with version-1 values, for one release */
};

/*
 * JSON: how many times a document prints its member (the version-1 name
 * second), and the name in pass @pass.  Text has one pass.
 */
static inline int rec_doc_passes(const struct kvout *kv, const struct rec_doc *doc)
{
	return kv->json && doc->v1_key ? 2 : 1;
}

static inline const char *rec_doc_key(const struct rec_doc *doc, int pass)
{
	return pass ? doc->v1_key : doc->key;
}

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

#endif
