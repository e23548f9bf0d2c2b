#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Generate ./configure (needs autoconf and pkg-config's pkg.m4).
set -e
cd "$(dirname "$0")"

aclocal --install -I /usr/share/aclocal >/dev/null 2>&1 || aclocal
autoconf
echo "now run ./configure"
