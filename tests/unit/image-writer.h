/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests that write: open one image for writing through the image
 * handle (common/image/image.h), as a write command does.
 */
#ifndef VOLCTL_TESTS_UNIT_IMAGE_WRITER_H
#define VOLCTL_TESTS_UNIT_IMAGE_WRITER_H

#include <stdio.h>
#include "common/image/image.h"

static inline int vc_test_open_writer(const char *path, struct vc_image *img, char *err,
				      size_t errlen)
{
	int ret = vc_image_open(img, &(struct vc_image_args){ .paths = &path, .nr_paths = 1,
				.mirror = -1, .mode = VC_IMAGE_WRITE });

	if (ret < 0)
		snprintf(err, errlen, "%s", img->err);
	return ret;
}

#endif
