// SPDX-License-Identifier: GPL-2.0-only
/*
 * powercut: rebuild the devices of a recorded offline write at every point
 * a power cut could leave them (tests/mounted/powercut.bats).
 *
 * Input is the log a test build of volctl writes with VOLCTL_WRITE_LOG
 * (common/image/test-io.h): every device write (member, offset, data) and every
 * flush, in the order issued.  The model is a disk with a volatile write
 * cache, one per member: a flush of a member makes its earlier writes
 * durable; a write not yet flushed may or may not have reached the medium
 * when the power goes, independently of the others (lost or reordered).
 * Each write is taken as atomic (no torn sectors); the landed writes of
 * a cut are applied in issue order (the test checks that no two unflushed
 * writes overlap, where that order would matter).
 *
 *   powercut plan [--full] [--seed N] LOG
 *	print the cut points, one a line:  ID KIND SET DESCRIPTION
 *	(tab separated).  SET is the writes (numbered from 0 in log order)
 *	that reached the medium, as ranges "0-11,13", "-" for none.  KIND:
 *	  prefix  the writes up to some event, all landed: after each write
 *	          and each flush (a cut with an empty cache)
 *	  commit  a prefix that ends with the flush after a commit's primary
 *	          superblock(s): a state the command committed
 *	  subset  the point just before a flush (or the end of the log), with
 *	          only some of the writes since each member's last flush landed
 *	Subsets of n unflushed writes: every one while 2^n is small (n <= 3,
 *	or n <= 8 with --full); otherwise the extremes (none, all), all but
 *	the first (the reorder that a flush after the first write prevents:
 *	mkfs zeroing the old primary), the last write alone (the superblock,
 *	where the flush before it is missing) and 2 sets drawn from a
 *	generator seeded by the point and --seed; with
 *	--full also every set with one write lost, every single write alone,
 *	every suffix of the issue order, and 32 drawn sets.  A set that an
 *	earlier point already gave is printed once.
 *
 *   powercut apply LOG SET BASE OUT [BASE OUT...]
 *	OUT (one pair a member, in member order; a copy of BASE made by the
 *	caller) gets back BASE's bytes wherever the log writes, then the
 *	writes of SET ("all" for every write) in log order.  So one OUT can
 *	be reused from point to point.  Then the superblock rule on the OUTs
 *	(below), one line on stdout.
 *
 *   powercut supers FILE...
 *	the superblock rule alone.  A copy is valid when its magic, its
 *	bytenr and its CRC-32C match (other checksum types are reported, not
 *	guessed).  The kernel mounts from the primary copy only; volctl and
 *	btrfs rescue super-recover take the newest valid copy.  Both see the
 *	same filesystem when every member's primary is valid and no valid
 *	copy anywhere is of another filesystem or newer than the oldest
 *	primary: that is what a commit's flush between the primaries and the
 *	other copies guarantees.  Prints "none" (no valid copy at all),
 *	"ok FSID GENERATION FINGERPRINT" or "bad: " and what breaks the
 *	rule.  GENERATION and FINGERPRINT are of the newest primary (the one
 *	the kernel mounts from): a CRC-32C of the copy without its checksum,
 *	bytenr and device item, so every member and copy of one commit gives
 *	the same; with the trees verified below it (every block's checksum and
 *	the generation its parent expects) it names the whole state.
 *
 *   powercut info LOG
 *	counts: writes, flushes, members, commits, bytes written, and
 *	unflushed writes overlapping each other (see count_overlaps()).
 *
 * Exit status: 0, 1 on a bad log or an I/O error, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define SUPER_MAGIC	"_BHRfS_M"
#define SUPER_MAGIC_OFF	64
#define MAX_DEVS	64

#define SUPER_SIZE	4096
#define SUPER_CSUM_END	32
#define SUPER_FSID_OFF	32
#define SUPER_BYTENR_OFF 48
#define SUPER_GEN_OFF	72
#define SUPER_CSUM_TYPE_OFF 196
#define SUPER_DEV_ITEM_OFF 201
#define SUPER_DEV_ITEM_SIZE 98

static const uint64_t super_offsets[] = { 65536ULL, 67108864ULL, 274877906944ULL };

struct rec {
	char tag[4];
	uint32_t dev;
	uint64_t off;
	uint64_t len;
};

struct event {
	bool flush;
	uint32_t dev;
	uint64_t off;
	uint64_t len;
	const unsigned char *data;
	size_t write_nr;	/* writes: number among the writes */
};

struct log {
	unsigned char *buf;
	size_t size;
	struct event *ev;
	size_t nr_ev;
	size_t *writes;		/* event index of write i */
	size_t nr_writes;
	uint32_t nr_devs;
};

/* A set of writes: one byte a write (logs hold at most a few thousand) */
struct point {
	unsigned char *set;
	const char *kind;
	char desc[160];
};

struct plan {
	const struct log *log;
	struct point *pts;
	size_t nr, alloc;
	uint64_t seed;
	bool full;
};

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("powercut: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die(1, "out of memory");
	return p;
}

static void log_read(const char *path, struct log *log)
{
	struct stat st;
	size_t pos = 0, nw = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(log, 0, sizeof(*log));
	if (fd < 0 || fstat(fd, &st) < 0)
		die(1, "%s: %s", path, strerror(errno));
	log->size = (size_t)st.st_size;
	log->buf = xcalloc(log->size, 1);
	for (size_t got = 0; got < log->size;) {
		ssize_t n = read(fd, log->buf + got, log->size - got);

		if (n <= 0)
			die(1, "%s: short read", path);
		got += (size_t)n;
	}
	close(fd);
	/* one pass to count, one to fill */
	for (int pass = 0; pass < 2; pass++) {
		pos = 0;
		log->nr_ev = 0;
		nw = 0;
		while (pos < log->size) {
			struct rec r;
			struct event *e;

			if (log->size - pos < sizeof(r))
				die(1, "%s: truncated record at byte %zu", path, pos);
			memcpy(&r, log->buf + pos, sizeof(r));
			pos += sizeof(r);
			if (r.dev >= MAX_DEVS)
				die(1, "%s: member %u out of range at byte %zu", path, r.dev, pos);
			if (!memcmp(r.tag, "WRIT", 4)) {
				if (!r.len || r.len > log->size - pos)
					die(1, "%s: bad write length at byte %zu", path, pos);
			} else if (memcmp(r.tag, "FLSH", 4) || r.len) {
				die(1, "%s: bad record at byte %zu", path, pos);
			}
			if (pass) {
				e = &log->ev[log->nr_ev];
				e->flush = r.tag[0] == 'F';
				e->dev = r.dev;
				e->off = r.off;
				e->len = r.len;
				e->data = log->buf + pos;
				if (!e->flush) {
					e->write_nr = nw;
					log->writes[nw] = log->nr_ev;
				}
			}
			if (r.dev + 1 > log->nr_devs)
				log->nr_devs = r.dev + 1;
			nw += r.tag[0] == 'W';
			log->nr_ev++;
			pos += r.len;
		}
		if (!pass) {
			log->ev = xcalloc(log->nr_ev, sizeof(*log->ev));
			log->writes = xcalloc(nw, sizeof(*log->writes));
		}
	}
	log->nr_writes = nw;
}

static void log_release(struct log *log)
{
	free(log->buf);
	free(log->ev);
	free(log->writes);
	memset(log, 0, sizeof(*log));
}

/* Superblock copy number of a write, or -1 for anything else */
static int super_copy(const struct event *e)
{
	for (int m = 0; m < 3; m++)
		if (e->off == super_offsets[m] && e->len == 4096)
			return m;
	return -1;
}

/* A primary superblock write of a filesystem (mkfs zeroes the copies first) */
static bool is_commit_super(const struct event *e)
{
	return !e->flush && super_copy(e) == 0 &&
	       !memcmp(e->data + SUPER_MAGIC_OFF, SUPER_MAGIC, strlen(SUPER_MAGIC));
}

static void describe(const struct event *e, char *buf, size_t len)
{
	int m = super_copy(e);

	if (e->flush)
		snprintf(buf, len, "flush of member %u", e->dev);
	else if (m >= 0)
		snprintf(buf, len, "write %zu (member %u, superblock copy %d%s)", e->write_nr,
			 e->dev, m, memcmp(e->data + SUPER_MAGIC_OFF, SUPER_MAGIC, 8) ?
			 ", zeroed" : "");
	else
		snprintf(buf, len, "write %zu (member %u, %llu bytes at %llu)", e->write_nr,
			 e->dev, (unsigned long long)e->len, (unsigned long long)e->off);
}

static void plan_add(struct plan *p, const unsigned char *set, const char *kind,
		     const char *fmt, ...)
{
	size_t nw = p->log->nr_writes;
	struct point *pt;
	va_list ap;

	for (size_t i = 0; i < p->nr; i++) {
		if (!memcmp(p->pts[i].set, set, nw)) {
			/* a commit found again as a prefix keeps its mark */
			if (strcmp(kind, "commit"))
				return;
			pt = &p->pts[i];
			goto describe;
		}
	}
	if (p->nr == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 64;
		p->pts = realloc(p->pts, p->alloc * sizeof(*p->pts));
		if (!p->pts)
			die(1, "out of memory");
	}
	pt = &p->pts[p->nr++];
	pt->set = xcalloc(nw, 1);
	memcpy(pt->set, set, nw);
describe:
	pt->kind = kind;
	va_start(ap, fmt);
	vsnprintf(pt->desc, sizeof(pt->desc), fmt, ap);
	va_end(ap);
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: deterministic, the same plan on every machine */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Points at event @t (a flush or the end): durable writes plus subsets of the rest */
static void plan_subsets(struct plan *p, size_t t)
{
	const struct log *log = p->log;
	size_t nw = log->nr_writes, n = 0;
	unsigned char *base = xcalloc(nw, 1), *set = xcalloc(nw, 1);
	size_t *vol = xcalloc(nw, sizeof(*vol));
	bool flushed[MAX_DEVS] = { false };
	uint64_t rnd;
	char at[96];

	/* walk back: a write is volatile until its member's next flush */
	for (size_t i = t; i-- > 0;) {
		const struct event *e = &log->ev[i];

		if (e->flush)
			flushed[e->dev] = true;
		else if (flushed[e->dev])
			base[e->write_nr] = 1;
		else
			vol[n++] = e->write_nr;
	}
	/* issue order */
	for (size_t i = 0; i < n / 2; i++) {
		size_t tmp = vol[i];

		vol[i] = vol[n - 1 - i];
		vol[n - 1 - i] = tmp;
	}
	if (t < log->nr_ev)
		describe(&log->ev[t], at, sizeof(at));
	else
		snprintf(at, sizeof(at), "the end");
	if (n <= (p->full ? 8u : 3u)) {
		for (uint64_t mask = 0; mask < (1ULL << n); mask++) {
			memcpy(set, base, nw);
			for (size_t i = 0; i < n; i++)
				set[vol[i]] = (mask >> i) & 1;
			plan_add(p, set, "subset", "before %s: unflushed writes landed: mask 0x%llx of %zu",
				 at, (unsigned long long)mask, n);
		}
		goto out;
	}
	memcpy(set, base, nw);
	plan_add(p, set, "subset", "before %s: none of %zu unflushed writes landed", at, n);
	for (size_t i = 0; i < n; i++)
		set[vol[i]] = 1;
	plan_add(p, set, "subset", "before %s: all %zu unflushed writes landed", at, n);
	/* the first write lost, every later one landed: the reorder a flush after it prevents */
	set[vol[0]] = 0;
	plan_add(p, set, "subset", "before %s: all %zu unflushed writes landed but the first, %zu",
		 at, n, vol[0]);
	set[vol[0]] = 1;
	for (size_t i = 1; p->full && i < n; i++) {
		set[vol[i]] = 0;
		plan_add(p, set, "subset", "before %s: all %zu unflushed writes landed but write %zu",
			 at, n, vol[i]);
		set[vol[i]] = 1;
	}
	memcpy(set, base, nw);
	set[vol[n - 1]] = 1;
	plan_add(p, set, "subset", "before %s: of %zu unflushed writes only the last, %zu, landed",
		 at, n, vol[n - 1]);
	if (p->full) {
		for (size_t i = 0; i < n; i++) {
			memcpy(set, base, nw);
			set[vol[i]] = 1;
			plan_add(p, set, "subset", "before %s: of %zu unflushed writes only %zu landed",
				 at, n, vol[i]);
		}
		for (size_t k = 1; k < n; k++) {
			memcpy(set, base, nw);
			for (size_t i = k; i < n; i++)
				set[vol[i]] = 1;
			plan_add(p, set, "subset", "before %s: of %zu unflushed writes the last %zu landed",
				 at, n, n - k);
		}
	}
	rnd = (p->seed + 1) * 0x9e3779b97f4a7c15ULL ^ (t + 1);
	for (int r = 0; r < (p->full ? 32 : 2); r++) {
		memcpy(set, base, nw);
		for (size_t i = 0; i < n; i++)
			set[vol[i]] = next_rand(&rnd) >> 63;
		plan_add(p, set, "subset", "before %s: random subset %d of %zu unflushed writes",
			 at, r, n);
	}
out:
	free(base);
	free(set);
	free(vol);
}

static void print_set(const unsigned char *set, size_t nw)
{
	bool any = false;

	for (size_t i = 0; i < nw; i++) {
		size_t j = i;

		if (!set[i])
			continue;
		while (j + 1 < nw && set[j + 1])
			j++;
		printf("%s%zu", any ? "," : "", i);
		if (j > i)
			printf("-%zu", j);
		any = true;
		i = j;
	}
	if (!any)
		putchar('-');
}

/* Prefix t ends a commit: a flush run after a primary superblock since the last commit */
static void plan_build(struct plan *p)
{
	const struct log *log = p->log;
	size_t nw = log->nr_writes;
	unsigned char *set = xcalloc(nw, 1);
	bool super_pending = false;
	char what[96];

	plan_add(p, set, "prefix", "before the first write");
	for (size_t t = 1; t <= log->nr_ev; t++) {
		const struct event *e = &log->ev[t - 1];
		bool run_end = e->flush && (t == log->nr_ev || !log->ev[t].flush);

		if (!e->flush)
			set[e->write_nr] = 1;
		if (is_commit_super(e))
			super_pending = true;
		/* the cache before a flush (or the end) in every combination */
		if ((t == log->nr_ev || log->ev[t].flush) && !e->flush)
			plan_subsets(p, t);
		describe(e, what, sizeof(what));
		if (run_end && super_pending) {
			plan_add(p, set, "commit", "after %s: a commit", what);
			super_pending = false;
		} else {
			plan_add(p, set, "prefix", "after %s", what);
		}
	}
	free(set);
}

static int cmd_plan(int argc, char **argv)
{
	struct plan p = { 0 };
	struct log log;
	int i;

	for (i = 0; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--full"))
			p.full = true;
		else if (!strcmp(argv[i], "--seed") && i + 2 < argc)
			p.seed = strtoull(argv[++i], NULL, 0);
		else
			die(2, "plan: unknown option %s", argv[i]);
	}
	if (i != argc - 1)
		die(2, "usage: powercut plan [--full] [--seed N] LOG");
	log_read(argv[i], &log);
	p.log = &log;
	plan_build(&p);
	for (size_t k = 0; k < p.nr; k++) {
		printf("%zu\t%s\t", k, p.pts[k].kind);
		print_set(p.pts[k].set, log.nr_writes);
		printf("\t%s\n", p.pts[k].desc);
		free(p.pts[k].set);
	}
	free(p.pts);
	log_release(&log);
	return fflush(stdout) ? 1 : 0;
}

static void parse_set(const char *s, unsigned char *set, size_t nw)
{
	char *end;

	if (!strcmp(s, "all")) {
		memset(set, 1, nw);
		return;
	}
	if (!strcmp(s, "-"))
		return;
	while (*s) {
		unsigned long long a = strtoull(s, &end, 10), b = a;

		if (end == s)
			die(2, "bad set at '%s'", s);
		s = end;
		if (*s == '-') {
			b = strtoull(s + 1, &end, 10);
			if (end == s + 1)
				die(2, "bad set at '%s'", s);
			s = end;
		}
		if (b < a || b >= nw)
			die(2, "set: write %llu out of range (%zu writes)", b, nw);
		memset(set + a, 1, b - a + 1);
		if (*s == ',')
			s++;
		else if (*s)
			die(2, "bad set at '%s'", s);
	}
}

static void pwrite_all(int fd, const void *buf, size_t len, uint64_t off, const char *name)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n <= 0)
			die(1, "%s: write at %llu: %s", name, (unsigned long long)off,
			    n < 0 ? strerror(errno) : "short");
		buf = (const char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
}

static uint32_t crc32c(const unsigned char *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	while (len--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct copy {
	bool present;		/* fits on the member */
	bool valid;
	const char *problem;
	uint64_t gen;
	unsigned char fsid[16];
	uint32_t fingerprint;	/* what the copy says of the filesystem */
};

static void read_copy(int fd, uint64_t size, int m, struct copy *c)
{
	unsigned char sb[SUPER_SIZE];
	uint32_t crc;

	memset(c, 0, sizeof(*c));
	if (super_offsets[m] + SUPER_SIZE > size)
		return;
	c->present = true;
	if (pread(fd, sb, sizeof(sb), (off_t)super_offsets[m]) != (ssize_t)sizeof(sb)) {
		c->problem = "cannot read";
		return;
	}
	if (memcmp(sb + SUPER_MAGIC_OFF, SUPER_MAGIC, strlen(SUPER_MAGIC))) {
		c->problem = "no magic";
		return;
	}
	if (sb[SUPER_CSUM_TYPE_OFF] || sb[SUPER_CSUM_TYPE_OFF + 1]) {
		c->problem = "checksum type not CRC-32C (not supported here)";
		return;
	}
	crc = crc32c(sb + SUPER_CSUM_END, SUPER_SIZE - SUPER_CSUM_END);
	if (sb[0] != (crc & 0xff) || sb[1] != ((crc >> 8) & 0xff) ||
	    sb[2] != ((crc >> 16) & 0xff) || sb[3] != crc >> 24) {
		c->problem = "checksum mismatch";
		return;
	}
	if (get_le64(sb + SUPER_BYTENR_OFF) != super_offsets[m]) {
		c->problem = "bytenr is not the copy's offset";
		return;
	}
	c->valid = true;
	c->gen = get_le64(sb + SUPER_GEN_OFF);
	memcpy(c->fsid, sb + SUPER_FSID_OFF, sizeof(c->fsid));
	/* without what differs between copies and members: checksum, bytenr, device item */
	memset(sb, 0, SUPER_CSUM_END);
	memset(sb + SUPER_BYTENR_OFF, 0, 8);
	memset(sb + SUPER_DEV_ITEM_OFF, 0, SUPER_DEV_ITEM_SIZE);
	c->fingerprint = crc32c(sb, sizeof(sb));
}

static void print_fsid(const unsigned char *fsid)
{
	for (int i = 0; i < 16; i++)
		printf("%02x%s", fsid[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

/* The superblock rule over open members (see the top of the file) */
static void super_rule(const int *fds, const char *const *names, uint32_t nr)
{
	struct copy c[MAX_DEVS][3];
	uint64_t min_gen = UINT64_MAX, max_gen = 0;
	uint32_t newest = 0;
	bool any = false;

	for (uint32_t d = 0; d < nr; d++) {
		struct stat st;

		if (fstat(fds[d], &st) < 0)
			die(1, "%s: %s", names[d], strerror(errno));
		for (int m = 0; m < 3; m++) {
			read_copy(fds[d], (uint64_t)st.st_size, m, &c[d][m]);
			any |= c[d][m].valid;
		}
	}
	if (!any) {
		printf("none\n");
		return;
	}
	for (uint32_t d = 0; d < nr; d++) {
		if (!c[d][0].valid) {
			printf("bad: %s: primary superblock: %s, while another copy is valid\n",
			       names[d], c[d][0].problem ? c[d][0].problem : "beyond the end");
			return;
		}
		if (memcmp(c[d][0].fsid, c[0][0].fsid, 16)) {
			printf("bad: %s: primary superblock of another filesystem\n", names[d]);
			return;
		}
		if (c[d][0].gen < min_gen)
			min_gen = c[d][0].gen;
		if (c[d][0].gen > max_gen) {
			max_gen = c[d][0].gen;
			newest = d;
		}
	}
	for (uint32_t d = 0; d < nr; d++) {
		for (int m = 1; m < 3; m++) {
			if (!c[d][m].valid)
				continue;
			if (memcmp(c[d][m].fsid, c[0][0].fsid, 16)) {
				printf("bad: %s: superblock copy %d is of another filesystem than the primary\n",
				       names[d], m);
				return;
			}
			if (c[d][m].gen > min_gen) {
				printf("bad: %s: superblock copy %d at generation %llu, ahead of a primary at %llu\n",
				       names[d], m, (unsigned long long)c[d][m].gen,
				       (unsigned long long)min_gen);
				return;
			}
		}
	}
	printf("ok ");
	print_fsid(c[0][0].fsid);
	printf(" %llu %08x\n", (unsigned long long)max_gen, c[newest][0].fingerprint);
}

static int cmd_supers(int argc, char **argv)
{
	int fds[MAX_DEVS];

	if (argc < 1 || argc > MAX_DEVS)
		die(2, "usage: powercut supers FILE...");
	for (int i = 0; i < argc; i++) {
		fds[i] = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			die(1, "%s: %s", argv[i], strerror(errno));
	}
	super_rule(fds, (const char *const *)argv, (uint32_t)argc);
	for (int i = 0; i < argc; i++)
		close(fds[i]);
	return fflush(stdout) ? 1 : 0;
}

static int cmd_apply(int argc, char **argv)
{
	struct log log;
	int base[MAX_DEVS], out[MAX_DEVS];
	const char *names[MAX_DEVS];
	unsigned char *set, *tmp = NULL;
	size_t tmp_len = 0;
	uint32_t nr;

	if (argc < 4 || argc % 2)
		die(2, "usage: powercut apply LOG SET BASE OUT [BASE OUT...]");
	log_read(argv[0], &log);
	nr = (uint32_t)(argc - 2) / 2;
	if (nr != log.nr_devs)
		die(2, "the log has %u members, %u BASE OUT pairs given", log.nr_devs, nr);
	set = xcalloc(log.nr_writes, 1);
	parse_set(argv[1], set, log.nr_writes);
	for (uint32_t d = 0; d < nr; d++) {
		base[d] = open(argv[2 + 2 * d], O_RDONLY | O_CLOEXEC);
		out[d] = open(argv[3 + 2 * d], O_RDWR | O_CLOEXEC);
		names[d] = argv[3 + 2 * d];
		if (base[d] < 0 || out[d] < 0)
			die(1, "%s: %s", argv[base[d] < 0 ? 2 + 2 * d : 3 + 2 * d], strerror(errno));
	}
	/* everything the log touches back to BASE, then the chosen writes */
	for (size_t i = 0; i < log.nr_ev; i++) {
		const struct event *e = &log.ev[i];
		ssize_t n;

		if (e->flush)
			continue;
		if (e->len > tmp_len) {
			free(tmp);
			tmp_len = e->len;
			tmp = xcalloc(tmp_len, 1);
		}
		n = pread(base[e->dev], tmp, e->len, (off_t)e->off);
		if (n < 0 || (uint64_t)n != e->len)
			die(1, "%s: cannot read %llu bytes at %llu", argv[2 + 2 * e->dev],
			    (unsigned long long)e->len, (unsigned long long)e->off);
		pwrite_all(out[e->dev], tmp, e->len, e->off, argv[3 + 2 * e->dev]);
	}
	for (size_t i = 0; i < log.nr_ev; i++) {
		const struct event *e = &log.ev[i];

		if (!e->flush && set[e->write_nr])
			pwrite_all(out[e->dev], e->data, e->len, e->off, argv[3 + 2 * e->dev]);
	}
	super_rule(out, names, nr);
	for (uint32_t d = 0; d < nr; d++) {
		close(base[d]);
		if (close(out[d]) < 0)
			die(1, "%s: %s", argv[3 + 2 * d], strerror(errno));
	}
	free(tmp);
	free(set);
	log_release(&log);
	return fflush(stdout) ? 1 : 0;
}

/*
 * Writes that overlap an earlier write of their member since its last
 * flush.  The model applies the landed writes of a cut in issue order, so
 * where two unflushed writes overlap it never lets the older one win: a
 * test asserts there are none, and that simplification loses nothing.
 */
static size_t count_overlaps(const struct log *log)
{
	size_t n = 0;

	for (size_t i = 0; i < log->nr_ev; i++) {
		const struct event *e = &log->ev[i];

		if (e->flush)
			continue;
		for (size_t j = i; j-- > 0;) {
			const struct event *o = &log->ev[j];

			if (o->dev != e->dev)
				continue;
			if (o->flush)
				break;
			if (o->off < e->off + e->len && e->off < o->off + o->len) {
				n++;
				break;
			}
		}
	}
	return n;
}

static int cmd_info(int argc, char **argv)
{
	struct plan p = { 0 };
	struct log log;
	size_t flushes = 0, commits = 0;
	uint64_t bytes = 0;

	if (argc != 1)
		die(2, "usage: powercut info LOG");
	log_read(argv[0], &log);
	p.log = &log;
	plan_build(&p);
	for (size_t k = 0; k < p.nr; k++) {
		commits += !strcmp(p.pts[k].kind, "commit");
		free(p.pts[k].set);
	}
	free(p.pts);
	for (size_t i = 0; i < log.nr_ev; i++) {
		flushes += log.ev[i].flush;
		bytes += log.ev[i].len;
	}
	printf("writes %zu\nflushes %zu\nmembers %u\ncommits %zu\nbytes %llu\noverlaps %zu\n",
	       log.nr_writes, flushes, log.nr_devs, commits, (unsigned long long)bytes,
	       count_overlaps(&log));
	log_release(&log);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "plan"))
		return cmd_plan(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "apply"))
		return cmd_apply(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "info"))
		return cmd_info(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "supers"))
		return cmd_supers(argc - 2, argv + 2);
	die(2, "usage: powercut plan|apply|info|supers ...");
	return 2;
}
