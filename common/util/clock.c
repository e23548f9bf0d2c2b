// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time offline writes record (see clock.h).
 */
#include <errno.h>
#include <stdlib.h>
#include "common/util/clock.h"

int vc_source_date_epoch(int64_t *sec)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || *s < '0' || *s > '9')
		return -1;
	*sec = v;
	return 1;
}

void vc_clock_now(struct timespec *ts)
{
	int64_t sec;

	if (vc_source_date_epoch(&sec) == 1) {
		ts->tv_sec = (time_t)sec;
		ts->tv_nsec = 0;
		return;
	}
	clock_gettime(CLOCK_REALTIME, ts);
}
