/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The numbers of a send size (send-size.h), plain types only: the commands
 * print them.
 */
#ifndef VOLCTL_KERNEL_SHARED_SEND_TYPES_H
#define VOLCTL_KERNEL_SHARED_SEND_TYPES_H

#include <stdbool.h>
#include "format.h"

struct btrfs_send_size_proto {
	u64 total;		/* every byte of the stream */
	u64 data;		/* file data bytes (write payloads, encoded or not) */
	u64 commands;		/* number of commands, end included */
	u64 writes;		/* write and encoded_write commands */
	u64 clones;		/* clone commands (0: refused for now) */
};

struct btrfs_send_size {
	struct btrfs_send_size_proto v1;
	struct btrfs_send_size_proto v2c;	/* --proto 2 --compressed-data */
	u64 parent;		/* the parent sent against, 0 for a full send */
	bool unrelated;		/* the parent shares no origin with the subvolume */
};

#endif /* VOLCTL_KERNEL_SHARED_SEND_TYPES_H */
