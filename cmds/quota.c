// SPDX-License-Identifier: GPL-2.0-only
/* volctl quota: enable, disable and rescan quota accounting. */
#include <stddef.h>
#include "cmds/commands.h"

static const struct cmd_struct *const quota_commands[] = {
	NULL,
};

const struct cmd_group quota_cmd_group = {
	.token = "quota",
	.summary = "enable, disable and rescan quota accounting",
	.commands = quota_commands,
};
