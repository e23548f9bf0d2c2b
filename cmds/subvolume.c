// SPDX-License-Identifier: GPL-2.0-only
/* volctl subvolume: manage subvolumes and snapshots. */
#include <stddef.h>
#include "cmds/commands.h"

static const struct cmd_struct *const subvolume_commands[] = {
	NULL,
};

const struct cmd_group subvolume_cmd_group = {
	.token = "subvolume",
	.summary = "manage subvolumes and snapshots",
	.commands = subvolume_commands,
};
