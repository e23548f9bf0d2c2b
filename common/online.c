// SPDX-License-Identifier: GPL-2.0-only
/* The online backend: Btrfs ioctls on a mounted filesystem. */
#include "common/backend.h"

const struct vc_backend_ops vc_online_ops = {
	.name = "online",
};
