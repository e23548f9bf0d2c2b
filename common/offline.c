// SPDX-License-Identifier: GPL-2.0-only
/* The offline backend: kernel-shared/ on an unmounted image. */
#include "common/backend.h"

const struct vc_backend_ops vc_offline_ops = {
	.name = "offline",
};
