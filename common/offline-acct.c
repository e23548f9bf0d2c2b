// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offline backend's accounting source: the image the backend already has
 * open.  Nothing changes under it, so it is never "live".
 */
#include <errno.h>
#include "common/backend.h"
#include "common/offline.h"

/*
 * The head of common/offline.c's struct vc_fs: the backend keeps its opened
 * image right after the common base (the writer only appends after it).
 */
struct offline_fs_head {
	struct vc_fs_base base;
	struct vc_image img;
};

int offline_acct_open(struct vc_fs *fs, struct vc_acct_src *src)
{
	struct offline_fs_head *head = (struct offline_fs_head *)fs;

	src->bfs = head->img.bfs;
	src->live = false;
	src->priv = NULL;
	return src->bfs ? 0 : -EBADF;
}

void offline_acct_close(struct vc_fs *fs, struct vc_acct_src *src)
{
	src->bfs = NULL;
}
