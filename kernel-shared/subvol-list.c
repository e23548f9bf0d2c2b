// SPDX-License-Identifier: GPL-2.0-only
/*
 * Subvolume listing over an item source: see subvol-list.h.
 *
 * Cost model: one range search of the root tree for all ROOT_ITEMs and
 * ROOT_BACKREFs, then one INODE_REF lookup per directory inode that holds a
 * subvolume entry or lies above one, each done once thanks to a (tree, inode)
 * -> path cache.  Ten thousand subvolumes in a hundred directories cost a few
 * hundred searches, not ten thousand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "subvol-list.h"
#include "u64map.h"

/* No real directory tree is deeper than this; deeper means a cycle. */
#define INODE_PATH_MAX_DEPTH	4096

/* ------------------------------------------------------------------ */
/* (tree, inode) -> directory path cache                               */
/* ------------------------------------------------------------------ */

struct dir_entry {
	u64 tree;
	u64 ino;
	char *path;
};

struct dir_cache {
	struct btrfs_u64map index;	/* dir_key(tree, ino) -> entries under that key */
	struct dir_entry *entries;
	u32 nr, alloc;
};

/* Both numbers folded into one key; entries under a key are told apart by both */
static inline u64 dir_key(u64 tree, u64 ino)
{
	u64 h = (tree * 0x9E3779B97F4A7C15ULL) ^ (ino * 0xC2B2AE3D27D4EB4FULL);

	return h ^ (h >> 29);
}

static struct dir_entry *dir_cache_find(const struct dir_cache *c, u64 tree, u64 ino)
{
	u64 key = dir_key(tree, ino);
	u32 pos = btrfs_u64map_first(&c->index, key), idx;

	while (btrfs_u64map_next(&c->index, key, &pos, &idx)) {
		if (c->entries[idx].tree == tree && c->entries[idx].ino == ino)
			return &c->entries[idx];
	}
	return NULL;
}

static const char *dir_cache_get(const struct dir_cache *c, u64 tree, u64 ino)
{
	const struct dir_entry *e = c ? dir_cache_find(c, tree, ino) : NULL;

	return e ? e->path : NULL;
}

/* Takes ownership of @path (freed on failure). */
static int dir_cache_put(struct dir_cache *c, u64 tree, u64 ino, char *path)
{
	struct dir_entry *e = dir_cache_find(c, tree, ino);

	if (e) {
		free(e->path);
		e->path = path;
		return 0;
	}
	if (c->nr == c->alloc) {
		u32 na = c->alloc ? c->alloc * 2 : 32;
		struct dir_entry *n = realloc(c->entries, (size_t)na * sizeof(*n));

		if (!n) {
			free(path);
			return -ENOMEM;
		}
		c->entries = n;
		c->alloc = na;
	}
	if (btrfs_u64map_add(&c->index, dir_key(tree, ino), c->nr)) {
		free(path);
		return -ENOMEM;
	}
	c->entries[c->nr++] = (struct dir_entry){ tree, ino, path };
	return 0;
}

static void dir_cache_release(struct dir_cache *c)
{
	for (u32 i = 0; i < c->nr; i++)
		free(c->entries[i].path);
	free(c->entries);
	btrfs_u64map_release(&c->index);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ */
/* String chunks: names and paths of a list                            */
/* ------------------------------------------------------------------ */

/*
 * Two mallocs per subvolume (name, path) cost more than the decoding at ten
 * thousand subvolumes; the strings go into 64 KiB chunks instead, freed
 * together by btrfs_subvol_list_release().
 */
#define STR_CHUNK_SIZE	(64 * 1024)

struct btrfs_subvol_str_chunk {
	struct btrfs_subvol_str_chunk *next;
	size_t used, size;
	char data[];
};

/* @len bytes of string space owned by @l, or NULL */
static char *list_str_alloc(struct btrfs_subvol_list *l, size_t len)
{
	struct btrfs_subvol_str_chunk *c = l->strings;

	if (!c || c->size - c->used < len) {
		size_t size = len > STR_CHUNK_SIZE ? len : STR_CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = l->strings;
		l->strings = c;
	}
	c->used += len;
	return c->data + c->used - len;
}

static char *list_str_dup(struct btrfs_subvol_list *l, const char *str, size_t len)
{
	char *p = list_str_alloc(l, len + 1);

	if (p) {
		memcpy(p, str, len);
		p[len] = '\0';
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* Inode paths                                                         */
/* ------------------------------------------------------------------ */

/* "a" + "b" -> "a/b", with empty parts left out */
static char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	if (!p)
		return NULL;
	memcpy(p, a, la);
	if (la && lb)
		p[la++] = '/';
	memcpy(p + la, b, lb + 1);
	return p;
}

struct inode_ref_found {
	bool found;
	u64 parent;
	char name[BTRFS_NAME_LEN + 1];
};

static int inode_ref_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct inode_ref_found *f = priv;
	struct btrfs_inode_ref_rec ref;
	u32 pos = 0;
	int ret;

	if (key->type != BTRFS_INODE_REF_KEY)
		return 0;
	ret = btrfs_inode_ref_next(data, len, &pos, &ref);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return -EUCLEAN;	/* an INODE_REF item with no entry */
	f->found = true;
	f->parent = key->offset;
	memcpy(f->name, ref.name, (size_t)ref.name_len + 1);
	return 1;
}

struct path_step {
	u64 ino;
	char name[BTRFS_NAME_LEN + 1];
};

/*
 * Walk INODE_REFs from @ino up to the tree root or to a cached directory,
 * then fill the cache for every directory on the way down.  With @cache NULL
 * nothing is kept.  Returns the path in *out (malloc'ed).
 */
static int inode_path_cached(const struct btrfs_item_source *src, struct dir_cache *cache,
			     u64 tree, u64 ino, char **out)
{
	struct path_step *steps = NULL;
	size_t nr = 0, cap = 0;
	const char *base = "";
	char *cur = NULL, *next;
	u64 at = ino;
	int ret = 0;

	while (at != BTRFS_FIRST_FREE_OBJECTID) {
		struct btrfs_key min = { at, BTRFS_INODE_REF_KEY, 0 };
		struct btrfs_key max = { at, BTRFS_INODE_REF_KEY, (u64)-1 };
		struct inode_ref_found f = { 0 };
		const char *hit = dir_cache_get(cache, tree, at);

		if (hit) {
			base = hit;
			break;
		}
		if (nr >= INODE_PATH_MAX_DEPTH) {
			ret = -EUCLEAN;
			goto out;
		}
		ret = btrfs_item_source_search(src, tree, &min, &max, inode_ref_cb, &f);
		if (ret < 0)
			goto out;
		if (!f.found) {
			ret = -ENOENT;
			goto out;
		}
		if (f.parent == at) {
			ret = -EUCLEAN;
			goto out;
		}
		if (nr == cap) {
			struct path_step *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(steps, cap * sizeof(*steps));
			if (!n) {
				ret = -ENOMEM;
				goto out;
			}
			steps = n;
		}
		steps[nr].ino = at;
		memcpy(steps[nr].name, f.name, sizeof(f.name));
		nr++;
		at = f.parent;
	}
	cur = strdup(base);
	if (!cur) {
		ret = -ENOMEM;
		goto out;
	}
	while (nr > 0) {
		nr--;
		next = path_join(cur, steps[nr].name);
		free(cur);
		cur = next;
		if (!cur) {
			ret = -ENOMEM;
			goto out;
		}
		if (cache && nr > 0) {
			char *copy = strdup(cur);

			if (!copy) {
				ret = -ENOMEM;
				goto out;
			}
			ret = dir_cache_put(cache, tree, steps[nr].ino, copy);
			if (ret)
				goto out;
		}
	}
	if (cache) {
		char *copy = strdup(cur);

		if (!copy) {
			ret = -ENOMEM;
			goto out;
		}
		ret = dir_cache_put(cache, tree, ino, copy);
		if (ret)
			goto out;
	}
	*out = cur;
	cur = NULL;
out:
	free(cur);
	free(steps);
	return ret;
}

int btrfs_inode_path(const struct btrfs_item_source *src, u64 tree, u64 ino, char **path)
{
	return inode_path_cached(src, NULL, tree, ino, path);
}

/* ------------------------------------------------------------------ */
/* Loading the list                                                    */
/* ------------------------------------------------------------------ */

struct load_ctx {
	struct btrfs_subvol_list *list;
	size_t cap;
};

static bool is_listed_tree(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}

static void subvol_root_fill(struct btrfs_subvol_root *r, const struct btrfs_root_rec *rec)
{
	r->generation = rec->generation;
	r->flags = rec->flags;
	r->ctransid = rec->ctransid;
	r->otransid = rec->otransid;
	r->stransid = rec->stransid;
	r->rtransid = rec->rtransid;
	r->ctime = rec->ctime;
	r->otime = rec->otime;
	r->stime = rec->stime;
	r->rtime = rec->rtime;
	memcpy(r->uuid, rec->uuid, sizeof(r->uuid));
	memcpy(r->parent_uuid, rec->parent_uuid, sizeof(r->parent_uuid));
	memcpy(r->received_uuid, rec->received_uuid, sizeof(r->received_uuid));
	r->has_v2 = rec->has_v2;
}

static int add_root_item(struct load_ctx *lc, const struct btrfs_key *key, const void *data,
			 u32 len)
{
	struct btrfs_subvol_list *l = lc->list;
	struct btrfs_root_rec rec;
	struct btrfs_subvol *s;
	int ret;

	/* a second ROOT_ITEM of the same tree (reloc leftovers): keep the first */
	if (l->nr && l->subvols[l->nr - 1].id == key->objectid)
		return 0;
	if (l->nr == lc->cap) {
		size_t cap = lc->cap ? lc->cap * 2 : 64;
		struct btrfs_subvol *n = realloc(l->subvols, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->subvols = n;
		lc->cap = cap;
	}
	ret = btrfs_decode_root_item(data, len, &rec);
	if (ret)
		return ret;
	s = &l->subvols[l->nr];
	memset(s, 0, sizeof(*s));
	subvol_root_fill(&s->root, &rec);
	s->id = key->objectid;
	s->root_offset = key->offset;
	s->deleted = key->objectid != BTRFS_FS_TREE_OBJECTID;	/* until a backref shows up */
	l->nr++;
	return 0;
}

static int add_backref(struct load_ctx *lc, const struct btrfs_key *key, const void *data,
		       u32 len)
{
	struct btrfs_subvol_list *l = lc->list;
	struct btrfs_root_ref_rec ref;
	struct btrfs_subvol *s;
	int ret;

	/* ROOT_ITEM (132) sorts before ROOT_BACKREF (144) of the same id */
	if (!l->nr || l->subvols[l->nr - 1].id != key->objectid)
		return 0;
	s = &l->subvols[l->nr - 1];
	if (s->name)		/* a subvolume has one entry; keep the first */
		return 0;
	ret = btrfs_decode_root_ref(data, len, &ref);
	if (ret)
		return ret;
	s->name = list_str_dup(l, ref.name, strlen(ref.name));
	if (!s->name)
		return -ENOMEM;
	s->parent_id = key->offset;
	s->dirid = ref.dirid;
	s->deleted = false;
	return 0;
}

static int root_tree_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct load_ctx *lc = priv;

	if (!is_listed_tree(key->objectid))
		return 0;
	if (key->type == BTRFS_ROOT_ITEM_KEY)
		return add_root_item(lc, key, data, len);
	if (key->type == BTRFS_ROOT_BACKREF_KEY)
		return add_backref(lc, key, data, len);
	return 0;
}

static int subvol_cmp(const void *a, const void *b)
{
	const struct btrfs_subvol *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

enum { RESOLVE_TODO, RESOLVE_BUSY, RESOLVE_DONE };

/*
 * Path of @s from its parent's path, its directory and its name, written
 * once into the list's strings.  Directories come from the cache: one
 * INODE_REF walk per distinct directory, none per subvolume.
 */
static int resolve_one(const struct btrfs_item_source *src, struct dir_cache *cache,
		       struct btrfs_subvol_list *l, struct btrfs_subvol *s,
		       const struct btrfs_subvol *parent)
{
	size_t lp, ld, ln, len;
	const char *dir;
	char *p;
	int ret;

	if (!parent || !parent->path || !s->name)
		return 0;
	dir = dir_cache_get(cache, s->parent_id, s->dirid);
	if (!dir) {
		char *tmp;

		ret = inode_path_cached(src, cache, s->parent_id, s->dirid, &tmp);
		if (ret == -ENOENT)
			return 0;	/* directory gone: unreachable, not an error */
		if (ret)
			return ret;
		free(tmp);
		dir = dir_cache_get(cache, s->parent_id, s->dirid);
		if (!dir)
			return -ENOMEM;
	}
	lp = strlen(parent->path);
	ld = strlen(dir);
	ln = strlen(s->name);
	len = lp + ld + ln + 3;
	p = list_str_alloc(l, len);
	if (!p)
		return -ENOMEM;
	s->path = p;
	memcpy(p, parent->path, lp);
	p += lp;
	if (lp && ld)
		*p++ = '/';
	memcpy(p, dir, ld);
	p += ld;
	if ((lp || ld) && ln)
		*p++ = '/';
	memcpy(p, s->name, ln + 1);
	return 0;
}

/*
 * Resolve @start and the unresolved subvolumes above it.  The chain is
 * collected first (state BUSY marks members; meeting one again is a cycle),
 * then resolved top-down.
 */
static int resolve_chain(const struct btrfs_item_source *src, struct dir_cache *cache,
			 struct btrfs_subvol_list *l, unsigned char *state, size_t start,
			 size_t *chain)
{
	size_t nr = 0, idx = start;
	int ret = 0;

	for (;;) {
		struct btrfs_subvol *s = &l->subvols[idx];
		const struct btrfs_subvol *p;

		if (state[idx] == RESOLVE_DONE)
			break;
		if (state[idx] == RESOLVE_BUSY) {
			ret = -EUCLEAN;
			break;
		}
		state[idx] = RESOLVE_BUSY;
		chain[nr++] = idx;
		if (s->id == BTRFS_FS_TREE_OBJECTID || s->deleted)
			break;
		p = btrfs_subvol_list_find(l, s->parent_id);
		if (!p)
			break;
		idx = (size_t)(p - l->subvols);
	}
	while (nr > 0) {
		size_t i = chain[--nr];
		struct btrfs_subvol *s = &l->subvols[i];

		if (!ret && s->id == BTRFS_FS_TREE_OBJECTID) {
			s->path = list_str_dup(l, "", 0);
			if (!s->path)
				ret = -ENOMEM;
		} else if (!ret && !s->deleted) {
			ret = resolve_one(src, cache, l, s,
					  btrfs_subvol_list_find(l, s->parent_id));
		}
		state[i] = RESOLVE_DONE;
	}
	return ret;
}

static int resolve_paths(const struct btrfs_item_source *src, struct btrfs_subvol_list *l)
{
	struct dir_cache cache = { 0 };
	unsigned char *state;
	size_t *chain;
	int ret = 0;

	if (!l->nr)
		return 0;
	state = calloc(l->nr, 1);
	chain = calloc(l->nr, sizeof(*chain));
	if (!state || !chain) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->nr && !ret; i++)
		ret = resolve_chain(src, &cache, l, state, i, chain);
out:
	dir_cache_release(&cache);
	free(chain);
	free(state);
	return ret;
}

int btrfs_subvol_list_load(const struct btrfs_item_source *src, struct btrfs_subvol_list *list)
{
	struct btrfs_key top_min = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key top_max = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_key min = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_LAST_FREE_OBJECTID, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };
	struct load_ctx lc = { .list = list };
	bool sorted = true;
	size_t out = 0;
	int ret;

	memset(list, 0, sizeof(*list));
	/*
	 * Tree 5 on its own: a range starting at (5, ROOT_ITEM) would also
	 * carry the ROOT_REF of every top-level subvolume.
	 */
	ret = btrfs_item_source_search(src, BTRFS_ROOT_TREE_OBJECTID, &top_min, &top_max,
				       root_tree_cb, &lc);
	if (ret >= 0)
		ret = btrfs_item_source_search(src, BTRFS_ROOT_TREE_OBJECTID, &min, &max,
					       root_tree_cb, &lc);
	if (ret < 0)
		goto fail;
	/* a well-behaved source is already in order; do not trust it */
	for (size_t i = 1; i < list->nr && sorted; i++)
		sorted = list->subvols[i - 1].id < list->subvols[i].id;
	if (!sorted)
		qsort(list->subvols, list->nr, sizeof(*list->subvols), subvol_cmp);
	for (size_t i = 0; i < list->nr; i++) {
		if (out && list->subvols[out - 1].id == list->subvols[i].id)
			continue;
		if (out != i)
			list->subvols[out] = list->subvols[i];
		out++;
	}
	list->nr = out;
	ret = resolve_paths(src, list);
	if (ret)
		goto fail;
	return 0;
fail:
	btrfs_subvol_list_release(list);
	return ret;
}

void btrfs_subvol_list_release(struct btrfs_subvol_list *list)
{
	while (list->strings) {
		struct btrfs_subvol_str_chunk *c = list->strings;

		list->strings = c->next;
		free(c);
	}
	free(list->subvols);
	memset(list, 0, sizeof(*list));
}

const struct btrfs_subvol *btrfs_subvol_list_find(const struct btrfs_subvol_list *l, u64 id)
{
	size_t lo = 0, hi = l->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->subvols[mid].id == id)
			return &l->subvols[mid];
		if (l->subvols[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct btrfs_subvol *btrfs_subvol_list_find_uuid(const struct btrfs_subvol_list *l,
						       const u8 uuid[16])
{
	static const u8 zero[BTRFS_UUID_SIZE];

	if (!memcmp(uuid, zero, BTRFS_UUID_SIZE))
		return NULL;
	for (size_t i = 0; i < l->nr; i++)
		if (!memcmp(l->subvols[i].root.uuid, uuid, BTRFS_UUID_SIZE))
			return &l->subvols[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Default subvolume                                                   */
/* ------------------------------------------------------------------ */

struct default_found {
	bool found;
	u64 id;
};

static int default_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct default_found *f = priv;
	struct btrfs_dir_item_rec di;
	u32 pos = 0;
	int ret;

	if (key->type != BTRFS_DIR_ITEM_KEY)
		return 0;
	while ((ret = btrfs_dir_item_next(data, len, &pos, &di)) == 0) {
		if (di.name_len == 7 && !memcmp(di.name, "default", 7)) {
			f->found = true;
			f->id = di.location.objectid;
			return 1;
		}
	}
	return ret < 0 ? ret : 0;
}

int btrfs_default_subvol(const struct btrfs_item_source *src, u64 *id)
{
	struct btrfs_key min = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY, (u64)-1 };
	struct default_found f = { 0 };
	int ret;

	ret = btrfs_item_source_search(src, BTRFS_ROOT_TREE_OBJECTID, &min, &max, default_cb, &f);
	if (ret < 0)
		return ret;
	if (!f.found)
		return -ENOENT;
	*id = f.id;
	return 0;
}
