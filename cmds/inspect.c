// SPDX-License-Identifier: GPL-2.0-only
/* volctl inspect: dump superblocks and trees of an image. */
#include <stddef.h>
#include "cmds/commands.h"

static const struct cmd_struct *const inspect_commands[] = {
	NULL,
};

const struct cmd_group inspect_cmd_group = {
	.token = "inspect",
	.summary = "dump superblocks and trees of an image",
	.commands = inspect_commands,
};
