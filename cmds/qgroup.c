// SPDX-License-Identifier: GPL-2.0-only
/* volctl qgroup: manage quota groups. */
#include <stddef.h>
#include "cmds/commands.h"

static const struct cmd_struct *const qgroup_commands[] = {
	NULL,
};

const struct cmd_group qgroup_cmd_group = {
	.token = "qgroup",
	.summary = "manage quota groups",
	.commands = qgroup_commands,
};
