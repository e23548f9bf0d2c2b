/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time offline writes record: SOURCE_DATE_EPOCH when it is set (the
 * reproducible-builds convention), else the real time.
 */
#ifndef VOLCTL_COMMON_UTIL_CLOCK_H
#define VOLCTL_COMMON_UTIL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/**
 * vc_source_date_epoch - SOURCE_DATE_EPOCH as seconds since 1970
 * Return: 1 set and valid (*@sec), 0 not set, -1 set but not a number of
 * seconds (the caller says so).
 */
int vc_source_date_epoch(int64_t *sec);

/** vc_clock_now - SOURCE_DATE_EPOCH when set and valid, else CLOCK_REALTIME */
void vc_clock_now(struct timespec *ts);

#endif /* VOLCTL_COMMON_UTIL_CLOCK_H */
