/* HDF5's heaps, checked in the raw bytes of the file before HDF5 reads them (io_internal.h), where
 * HDF5 1.10 trusts what it finds (all found by tests/fuzz):
 * - variable-length strings live in a "global heap" collection; the file holds, per string, its
 *   length, the collection's address and the object's index there. A corrupted collection makes
 *   HDF5's parser loop forever (a free-space record of size 0), and an index the collection does
 *   not hold, or a length other than the object's, makes H5Aread copy from or past a wild pointer
 *   (`info` and `run -restart` died inside H5Aread). So the reference is followed and the
 *   collection walked with every bound checked.
 * - group member names live in a "local heap" per group, whose free list HDF5 follows without a
 *   bound: a list that loops hangs every lookup in the group, H5Fopen's included.
 * - object headers: HDF5 decodes an attribute message by the sizes it states, so one whose parts
 *   run past the message made H5Aexists read past the header's buffer (sg_h5_check_object_header);
 *   and it divides by a chunked layout's chunk sizes when it opens the dataset, so a size of 0 was
 *   a SIGFPE inside H5Dopen2 (check_layout).
 *   HDF5 loads a header before any check could run on the open file (H5Fopen the root group's, a
 *   lookup those of the groups on its path, H5Dopen2 the dataset's), so before H5Fopen every
 *   header of the group tree is walked from the superblock (check_root_tree).
 * Version-2 object headers (checksummed, written only with newer format settings) and attributes
 * in dense storage are left to HDF5. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/io_internal.h"

#define MAX_BLOCKS 64                /* object header blocks followed (continuations) */
#define MAX_BLOCK (1u << 20)         /* bytes of one header block */
#define MAX_COLLECTION (64u << 20)   /* bytes of one global heap collection */

typedef struct {
  int fd;
  uint64_t base, eof; /* addresses are relative to base (the user block); eof: bytes after it */
  int sa, ss;         /* sizes of addresses and lengths in the file */
  int leaf_k, node_k; /* a group's symbol node holds up to 2 leaf_k entries, a B-tree node 2 node_k */
} raw_file;

static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = v << 8 | p[k];
  return v;
}

/* n bytes at addr into a new buffer, NULL when they are not all in the file. */
static uint8_t *raw_read(const raw_file *r, uint64_t addr, uint64_t n) {
  if (addr > r->eof || n > r->eof - addr || n == 0) return NULL;
  uint8_t *buf = malloc(n);
  if (buf && pread(r->fd, buf, n, (off_t)(r->base + addr)) != (ssize_t)n) {
    free(buf);
    buf = NULL;
  }
  return buf;
}

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

/* The global heap collection at addr holds object idx exactly once, with len bytes, and its records
 * tile it: NULL, or what is wrong. */
static const char *check_collection(const raw_file *r, uint64_t addr, uint64_t idx, uint64_t len) {
  const uint64_t hdr = 8 + (uint64_t)r->ss, obj = 8 + (uint64_t)r->ss;
  uint8_t *h = raw_read(r, addr, hdr);
  if (!h) return "its collection lies outside the file";
  uint64_t size = le(h + 8, r->ss);
  int magic = !memcmp(h, "GCOL", 4) && h[4] == 1;
  free(h);
  if (!magic) return "no heap collection at its address";
  if (size < hdr || size > MAX_COLLECTION) return "its collection has an impossible size";
  uint8_t *c = raw_read(r, addr, size);
  if (!c) return "its collection runs past the end of the file";
  const char *why = NULL;
  int found = 0;
  for (uint64_t p = hdr; p < size && !why;) {
    if (size - p < obj) break; /* a tail too short for a record: free space, as HDF5 reads it */
    uint64_t id = le(c + p, 2), osz = le(c + p + 8, r->ss);
    if (id == 0) { /* the free space: the rest of the collection, record included */
      if (osz != size - p) why = "its collection's free space is corrupted";
      break;
    }
    if (osz > size || obj + pad8(osz) > size - p) why = "an object of its collection runs past the collection";
    else if (id == idx && (found++ || osz != len)) why = found > 1 ? "its object is stored twice" : "its length is not its object's";
    p += obj + pad8(osz);
  }
  free(c);
  return why ? why : found ? NULL : "its collection does not hold its object";
}

/* A variable-length reference (its length, 4 bytes; the collection's address; the object's index,
 * 4 bytes) as HDF5 1.10 follows it: a reference is null only when its address is 0, and any other
 * one is read from its collection whatever its length says. An empty string is stored as an object
 * of 0 bytes, so a length of 0 does not spare the check (tests/fuzz: the empty `names` of a
 * checkpoint's /hooks/state with its index corrupted made H5HG_read index past the collection's
 * objects). NULL, or what is wrong. */
static const char *check_reference(const raw_file *r, const uint8_t *ref) {
  uint64_t addr = le(ref + 4, r->sa);
  return addr == 0 ? NULL : check_collection(r, addr, le(ref + 4 + r->sa, 4), le(ref, 4));
}

/* The data of attribute message d (n bytes) when it is named `name` and is a variable-length
 * string: *data, *len set; 1 found, 0 another attribute, -3 its characters are not of one byte,
 * -4 its type is not one this walk can follow (shared, or not what HDF5 calls a variable-length
 * string): HDF5 takes the attribute for a variable-length string, so such a type is a corrupted
 * one, and leaving it to HDF5 let a reference into a corrupted collection through (tests/fuzz: a
 * version-1 message's reserved byte set to 0xff read as the shared-type flag, then H5Aread
 * looped forever in a collection whose free-space record says 0 bytes). */
static int attr_message(const uint8_t *d, uint64_t n, const char *name, const uint8_t **data, uint64_t *len) {
  if (n < 9) return 0;
  int ver = d[0], shared_type = ver > 1 && (d[1] & 1); /* version 1 has no flags: HDF5 ignores the byte */
  uint64_t nsz = le(d + 2, 2), tsz = le(d + 4, 2), ssz = le(d + 6, 2), off = ver == 3 ? 9 : 8;
  if (ver < 1 || ver > 3) return 0;
  uint64_t pn = ver == 1 ? pad8(nsz) : nsz, pt = ver == 1 ? pad8(tsz) : tsz, ps = ver == 1 ? pad8(ssz) : ssz;
  if (off + pn + pt + ps > n || nsz != strlen(name) + 1 || memcmp(d + off, name, nsz) != 0) return 0;
  const uint8_t *type = d + off + pn;
  if (shared_type || tsz < 2) return -4;
  if ((type[0] & 15) != 9 || (type[1] & 15) != 1) return -4; /* not a variable-length string */
  /* its characters: the base type's size, which HDF5 multiplies the length by */
  if (tsz < 16 || le(type + 12, 4) != 1) return -3;
  *data = type + pt + ps;
  *len = n - (off + pn + pt + ps);
  return 1;
}

/* Find attribute `name` in the version-1 object header at addr: 1 found (data, len), 0 not there,
 * -1 left to HDF5 (another header version), -2 a header that cannot be walked, -3 and -4 as
 * attr_message. */
static int find_attr(const raw_file *r, uint64_t addr, const char *name, uint8_t **block, const uint8_t **data,
                     uint64_t *len) {
  uint8_t *pre = raw_read(r, addr, 16);
  if (!pre) return -2;
  int v1 = pre[0] == 1;
  uint64_t queue[MAX_BLOCKS][2] = {{addr + 16, le(pre + 8, 4)}};
  free(pre);
  if (!v1) return -1;
  int nq = 1, result = 0;
  for (int b = 0; b < nq && result == 0; ++b) {
    uint8_t *m = queue[b][1] <= MAX_BLOCK ? raw_read(r, queue[b][0], queue[b][1]) : NULL;
    if (!m) return -2;
    for (uint64_t p = 0; p + 8 <= queue[b][1] && result == 0;) {
      uint64_t type = le(m + p, 2), size = le(m + p + 2, 2);
      if (size > queue[b][1] - p - 8) result = -2;
      else if (type == 0x10 && size >= (uint64_t)(r->sa + r->ss) && nq < MAX_BLOCKS) { /* continuation */
        queue[nq][0] = le(m + p + 8, r->sa);
        queue[nq++][1] = le(m + p + 8 + r->sa, r->ss);
      } else if (type == 0x0c) {
        result = attr_message(m + p + 8, size, name, data, len);
      }
      p += 8 + size;
    }
    if (result == 1) *block = m;
    else free(m);
  }
  return result;
}

static sg_err open_raw(hid_t loc, raw_file *r, const char *file) {
  char path[4096];
  hid_t fcpl = H5I_INVALID_HID, fid = H5Iget_file_id(loc);
  hsize_t ub = 0;
  size_t sa = 0, ss = 0;
  struct stat st;
  r->fd = -1;
  r->leaf_k = 4; /* HDF5's defaults: only the tree walk reads them, from the superblock */
  r->node_k = 16;
  if (fid >= 0 && H5Fget_name(fid, path, sizeof path) > 0 && (fcpl = H5Fget_create_plist(fid)) >= 0 &&
      H5Pget_sizes(fcpl, &sa, &ss) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0)
    r->fd = open(path, O_RDONLY);
  sg_h5_close(&fcpl);
  if (fid >= 0) H5Fclose(fid); /* H5Iget_file_id's reference: the file stays open for the caller */
  if (r->fd < 0 || fstat(r->fd, &st) != 0 || (uint64_t)st.st_size < ub || sa < 2 || sa > 8 || ss < 2 || ss > 8) {
    if (r->fd >= 0) close(r->fd);
    return sg_error_set(SG_ERR_IO, "%s: cannot read the file's raw bytes", file);
  }
  r->base = ub;
  r->eof = (uint64_t)st.st_size - ub;
  r->sa = (int)sa;
  r->ss = (int)ss;
  return SG_OK;
}

sg_err sg_h5_vlen_attr_check(hid_t loc, const char *name, const char *file, const char *what) {
  H5O_info_t info;
  if (H5Oget_info2(loc, &info, H5O_INFO_BASIC) < 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: cannot query the object of %s", file, what);
  raw_file r;
  SG_CHECK(open_raw(loc, &r, file));
  uint8_t *block = NULL;
  const uint8_t *data = NULL;
  uint64_t len = 0;
  int found = find_attr(&r, info.addr, name, &block, &data, &len);
  const char *why = found == -2 ? "its object header cannot be walked"
                    : found == -3 ? "its characters are not bytes"
                    : found == -4 ? "its type is shared or not a variable-length string in the file"
                                  : NULL;
  if (found == 1 && len < (uint64_t)(8 + r.sa)) why = "its reference is truncated";
  else if (found == 1) why = check_reference(&r, data);
  free(block);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: %s is a corrupted variable-length string (%s)", file, what, why);
  return SG_OK;
}

sg_err sg_h5_vlen_dset_check(hid_t dset, const char *file, const char *what) {
  haddr_t at = H5Dget_offset(dset); /* contiguous data only: a compact one lies in the header */
  if (at == HADDR_UNDEF) return sg_error_set(SG_ERR_FORMAT, "%s: %s is not stored where it can be checked", file, what);
  raw_file r;
  SG_CHECK(open_raw(dset, &r, file));
  uint8_t *ref = raw_read(&r, at, (uint64_t)(8 + r.sa));
  const char *why = !ref ? "its reference lies outside the file" : check_reference(&r, ref);
  free(ref);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: %s is a corrupted variable-length string (%s)", file, what, why);
  return SG_OK;
}

/* --- local heaps: the names of a group's members ----------------------------------------------- */

/* The local heap whose header is h (at least 16 + 2 ss + sa bytes): its free list stays inside its
 * data and ends. HDF5 1.10 follows the list without a bound, so a list that loops hangs any lookup
 * in the group (found by tests/fuzz). NULL, or what is wrong. Unless `known` (a group's symbol
 * table points at it), a header that does not look like one (bytes of data that happen to spell
 * the signature) is not ours to judge: NULL. HDF5 itself skips the reserved bytes, so a heap that
 * a group points at is judged whatever they hold. */
static const char *check_local_heap(const raw_file *r, const uint8_t *h, int known) {
  if (h[4] != 0 || (!known && (h[5] || h[6] || h[7]))) return NULL;
  uint64_t size = le(h + 8, r->ss), head = le(h + 8 + r->ss, r->ss), at = le(h + 8 + 2 * r->ss, r->sa);
  /* HDF5 1.10 allocates the data segment at the size the header gives before it reads it
   * (tests/fuzz: 16 GB for the /bodies group of a checkpoint) */
  if (at > r->eof || size > r->eof - at) return "a group's name heap lies outside the file";
  if (size > MAX_BLOCK * 16) return "a group's name heap is over 16 MiB";
  const uint64_t rec = 2 * (uint64_t)r->ss, free_null = 1;
  if (head == free_null) return NULL;
  uint8_t *d = raw_read(r, at, size);
  if (!d) return "a group's name heap lies outside the file";
  const char *why = NULL;
  uint64_t steps = 0;
  for (uint64_t off = head; off != free_null && !why; ++steps) {
    if (off > size || rec > size - off || steps > size / rec) {
      why = "a group's name heap has a corrupted free list";
      break;
    }
    uint64_t next = le(d + off, r->ss), len = le(d + off + r->ss, r->ss);
    if (len == 0 || len > size - off) why = "a group's name heap has a corrupted free list";
    off = next;
  }
  free(d);
  return why;
}

static const char *check_root_tree(raw_file *r, uint64_t *root, uint64_t *at);

/* The driver information block that a superblock of version 0 or 1 may point at (II.B Driver Info
 * Block: version, 3 reserved bytes, a 4-byte size, an 8-byte driver name, then the size's bytes):
 * H5Fopen allocates and reads the size it gives before any check of ours could run (tests/fuzz:
 * fuzz_scene, a 298-byte file whose block claimed 2.7 GB). NULL, or what is wrong. */
static const char *check_driver_block(const raw_file *r) {
  uint8_t sb[0x60];
  if (pread(r->fd, sb, sizeof sb, 0) != (ssize_t)sizeof sb || memcmp(sb, "\x89HDF\r\n\x1a\n", 8) || sb[8] > 1)
    return NULL; /* not at the start, or a later version: HDF5 checks its checksum */
  const int sa = sb[13];
  if (sa != 2 && sa != 4 && sa != 8) return NULL; /* HDF5 refuses it */
  const uint64_t none = sa == 8 ? UINT64_MAX : (1ull << (8 * sa)) - 1;
  const uint64_t at = le(sb + (sb[8] == 1 ? 28 : 24) + 3 * (uint64_t)sa, sa); /* after base, free space, end */
  if (at == none) return NULL;
  if (at > r->eof || r->eof - at < 16) return "the superblock's driver information block lies outside the file";
  uint8_t head[8];
  if (pread(r->fd, head, sizeof head, (off_t)at) != (ssize_t)sizeof head)
    return "the superblock's driver information block cannot be read";
  if (le(head + 4, 4) > r->eof - at - 16)
    return "the superblock's driver information block runs past the end of the file";
  return NULL;
}

sg_err sg_h5_check_local_heaps(const char *path) {
  raw_file r = {open(path, O_RDONLY), 0, 0, 8, 8, 4, 16};
  struct stat st;
  if (r.fd < 0 || fstat(r.fd, &st) != 0) {
    if (r.fd >= 0) close(r.fd);
    return SG_OK; /* the open that follows says why */
  }
  r.eof = (uint64_t)st.st_size;
  /* Offsets and lengths are 8 bytes in the files HDF5 writes by default; a file of other sizes is
   * not scanned (HDF5 writes such files only when asked to). */
  const size_t chunk = 1 << 20, hdr = 16 + 2 * 8 + 8;
  uint8_t *buf = malloc(chunk + hdr);
  const char *why = NULL;
  for (uint64_t at = 0; buf && at < r.eof && !why; at += chunk) {
    ssize_t got = pread(r.fd, buf, chunk + hdr, (off_t)at);
    for (ssize_t k = 0; got > 0 && k < (ssize_t)chunk && k + (ssize_t)hdr <= got && !why; ++k) {
      uint8_t *h = memchr(buf + k, 'H', (size_t)(got - (ssize_t)hdr - k + 1));
      if (!h) break;
      k = h - buf;
      if (!memcmp(h, "HEAP", 4)) why = check_local_heap(&r, h, 0);
    }
  }
  free(buf);
  if (!why) why = check_driver_block(&r);
  uint64_t at = 0, root_addr = 0;
  const char *tree = why ? NULL : check_root_tree(&r, &root_addr, &at);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: truncated or corrupted HDF5 file (%s)", path, why);
  if (tree && at == root_addr)
    return sg_error_set(SG_ERR_FORMAT, "%s: corrupted HDF5 object header (%s) (on the root group)", path, tree);
  if (tree)
    return sg_error_set(SG_ERR_FORMAT, "%s: corrupted HDF5 object header (%s) (on the object at byte %llu, below the root group)",
                        path, tree, (unsigned long long)at);
  return SG_OK;
}

/* --- object headers: the messages of an object, its attributes among them ---------------------- */

/* HDF5 1.10 decodes an attribute message (HDF5 File Format Specification, IV.A.2.m Attribute
 * Message) without comparing it with the message's size: it strdup's the name, decodes the
 * datatype and the dataspace where the sizes say, then copies elements x type size bytes of data
 * from after them. A size field bumped by one (tests/fuzz: the dataspace size of /bodies next_gid,
 * 8 -> 9, padded to 16) made H5Aexists read past the header's buffer. */

#define NO_FIT UINT64_MAX
#define MAX_TYPE_DEPTH 16 /* nested member and base types followed */
static uint64_t type_bytes(const uint8_t *t, uint64_t n, int depth);

/* A NUL-terminated name at p within n bytes: its bytes (padded to 8 when pad), or NO_FIT. HDF5
 * strdup's the names of members (compound, enum) with no bound: one that does not end in the
 * message is read past it (tests/fuzz: an attribute's class bits turned a string into an enum). */
static uint64_t name_bytes(const uint8_t *p, uint64_t n, int pad) {
  const uint8_t *z = n ? memchr(p, 0, n) : NULL;
  uint64_t k = z ? (uint64_t)(z - p) + 1 : NO_FIT;
  if (k != NO_FIT && pad) k = pad8(k);
  return k != NO_FIT && k <= n ? k : NO_FIT;
}

/* Compound properties (IV.A.2.d Datatype Message, class 6): per member a name (padded in versions
 * 1 and 2), an offset (4 bytes; in version 3 as few as the type's size needs; version 1 adds 28
 * bytes of dimension fields), its type. Bytes from t, or NO_FIT. */
static uint64_t compound_bytes(const uint8_t *t, uint64_t n, int depth) {
  int ver = t[0] >> 4;
  uint64_t members = le(t + 1, 2), size = le(t + 4, 4), at = 8;
  uint64_t off = ver < 3 ? 4 : size < 1u << 8 ? 1 : size < 1u << 16 ? 2 : size < 1u << 24 ? 3 : 4;
  if (ver == 1) off += 28;
  for (uint64_t m = 0; m < members; ++m) {
    uint64_t k = name_bytes(t + at, n - at, ver < 3);
    if (k == NO_FIT || off > n - at - k) return NO_FIT;
    at += k + off;
    if ((k = type_bytes(t + at, n - at, depth + 1)) == NO_FIT) return NO_FIT;
    at += k;
  }
  return at;
}

/* Enumeration properties (class 8): the base type, the member names (padded in versions 1 and
 * 2), then one value of the base type's size per member. Bytes from t, or NO_FIT. */
static uint64_t enum_bytes(const uint8_t *t, uint64_t n, int depth) {
  int ver = t[0] >> 4;
  uint64_t members = le(t + 1, 2), at = 8, k = type_bytes(t + 8, n - 8, depth + 1);
  if (k == NO_FIT) return NO_FIT;
  uint64_t base = le(t + 12, 4);
  at += k;
  for (uint64_t m = 0; m < members; ++m, at += k)
    if ((k = name_bytes(t + at, n - at, ver < 3)) == NO_FIT) return NO_FIT;
  return base > 0 && members > (n - at) / base ? NO_FIT : at + members * base;
}

/* Array properties (class 10): the rank, its dimensions (4 bytes each; version 2 adds reserved
 * bytes and a permutation), the base type. Bytes from t, or NO_FIT. */
static uint64_t array_bytes(const uint8_t *t, uint64_t n, int depth) {
  if (n < 9 || t[8] > 32) return NO_FIT;
  uint64_t at = (t[0] >> 4) < 3 ? 8 + 4 + 8 * (uint64_t)t[8] : 8 + 1 + 4 * (uint64_t)t[8];
  uint64_t k = at < n ? type_bytes(t + at, n - at, depth + 1) : NO_FIT;
  return k == NO_FIT ? NO_FIT : at + k;
}

/* Bytes of the datatype message t (IV.A.2.d Datatype Message) that its properties take, within
 * n, or NO_FIT: HDF5 1.10 decodes them as the class says without comparing with n. */
static uint64_t type_bytes(const uint8_t *t, uint64_t n, int depth) {
  if (n < 8 || depth > MAX_TYPE_DEPTH) return NO_FIT;
  uint64_t need;
  switch (t[0] & 15) {
    case 0: case 4: need = 8 + 4; break; /* fixed-point, bitfield: bit offset and precision */
    case 1: need = 8 + 12; break;        /* floating-point: bit fields and exponent bias */
    case 2: need = 8 + 2; break;         /* time: bit precision */
    case 3: case 7: need = 8; break;     /* string, reference: no properties */
    case 5: need = 8 + t[1]; break;      /* opaque: a tag of the length its flags give */
    case 6: return compound_bytes(t, n, depth);
    case 8: return enum_bytes(t, n, depth);
    case 9: { uint64_t k = type_bytes(t + 8, n - 8, depth + 1); return k == NO_FIT ? NO_FIT : 8 + k; }
    case 10: return array_bytes(t, n, depth);
    default: return NO_FIT;
  }
  return need <= n ? need : NO_FIT;
}

/* The elements of the dataspace message s of ssz bytes (IV.A.2.b Dataspace Message), saturated
 * at UINT64_MAX; NULL, or what is wrong with it. */
static const char *space_elements(const raw_file *r, const uint8_t *s, uint64_t ssz, uint64_t *n) {
  if (ssz < 4) return "an attribute's dataspace is truncated";
  int ver = s[0], rank = s[1], max = s[2] & 1;
  uint64_t at = ver == 1 ? 8 : 4; /* version 1 has 5 reserved bytes, version 2 a type byte */
  if ((ver != 1 && ver != 2) || rank > 32) return "an attribute's dataspace has an impossible version or rank";
  if (at + (uint64_t)rank * (uint64_t)r->ss * (1 + (uint64_t)max) > ssz) return "an attribute's dimensions run past its dataspace";
  *n = ver == 2 && s[3] == 2 ? 0 : 1; /* a null space holds nothing, a scalar one element */
  for (int k = 0; k < rank; ++k) {
    uint64_t d = le(s + at + (uint64_t)k * (uint64_t)r->ss, r->ss);
    *n = d == 0 ? 0 : *n > UINT64_MAX / d ? UINT64_MAX : *n * d;
  }
  return NULL;
}

/* The attribute message d of n bytes: its name ends inside it, its datatype and dataspace fit
 * their sizes, and its data (elements x type size) fits after them. NULL, or what is wrong. */
static const char *check_attr_message(const raw_file *r, const uint8_t *d, uint64_t n) {
  if (n < 8) return "an attribute message is truncated";
  int ver = d[0], shared = ver > 1 && (d[1] & 3); /* version 1 has no flags: HDF5 ignores the byte */
  uint64_t nsz = le(d + 2, 2), tsz = le(d + 4, 2), ssz = le(d + 6, 2), off = ver == 3 ? 9 : 8;
  if (ver < 1 || ver > 3) return "an attribute message has an unknown version";
  /* version 1 pads each part to a multiple of 8 bytes, later versions do not */
  uint64_t pn = ver == 1 ? pad8(nsz) : nsz, pt = ver == 1 ? pad8(tsz) : tsz, ps = ver == 1 ? pad8(ssz) : ssz;
  if (off + pn + pt + ps > n) return "an attribute's name, datatype and dataspace sizes run past its message";
  if (nsz == 0 || !memchr(d + off, 0, nsz)) return "an attribute's name does not end inside its message";
  if (shared) return NULL; /* a shared (committed) type or space lives in another header: HDF5's */
  const uint8_t *t = d + off + pn, *s = t + pt;
  if (type_bytes(t, tsz, 0) == NO_FIT) return "an attribute's datatype runs past its size";
  /* HDF5 copies elements x the stated size of the type, a variable-length one's included
   * (tests/fuzz, ASan: a string type of 48 bytes, not a reference's 16, read past the header) */
  if ((t[0] & 15) == 9 && le(t + 4, 4) != 8 + (uint64_t)r->sa) return "an attribute's variable-length type has a corrupted size";
  uint64_t elements = 0, size = (t[0] & 15) == 9 ? 8 + (uint64_t)r->sa : le(t + 4, 4);
  const char *why = space_elements(r, s, ssz, &elements);
  if (why) return why;
  uint64_t room = n - (off + pn + pt + ps);
  if (size > 0 && elements > room / size) return "an attribute's data runs past its message";
  return NULL;
}

/* Does the file hold the 4-byte signature sig at addr? */
static int signature_at(const raw_file *r, uint64_t addr, const char *sig) {
  uint8_t *s = raw_read(r, addr, 4);
  int ok = s && !memcmp(s, sig, 4);
  free(s);
  return ok;
}

/* The objects of a file's tree still to walk, each queued once (hard links may form cycles): object
 * headers, B-tree nodes and symbol table nodes. NULL when none is being collected (a single
 * header's walk). */
#define MAX_OBJECTS 4096
enum { OBJ_HEADER, OBJ_TREE, OBJ_SNOD };
typedef struct {
  uint64_t addr[MAX_OBJECTS];
  int kind[MAX_OBJECTS];
  int n;
} tree_walk;

static const char *walk_push(tree_walk *w, uint64_t addr, int kind) {
  if (!w) return NULL;
  for (int k = 0; k < w->n; ++k)
    if (w->addr[k] == addr) return NULL;
  if (w->n == MAX_OBJECTS) return "a file of over 4096 objects";
  w->addr[w->n] = addr;
  w->kind[w->n++] = kind;
  return NULL;
}

/* A message whose header flags say shared (IV.A.2 Shared Message encoding): its body says where
 * the message is. HDF5 1.10 follows a "shared message table" entry (type 1) through the table the
 * superblock extension names, and a file of superblock version 0 or 1 has none: it read a wild
 * address (tests/fuzz: fuzz_scene, a crash in H5SM_get_fheap_addr under H5Dopen2 of
 * /bodies/size). Any other sharing names the object header holding the message, queued to walk.
 * NULL, or what is wrong. */
static const char *check_shared(const raw_file *r, const uint8_t *d, uint64_t n, tree_walk *w) {
  if (n < 2) return "a shared message is truncated";
  int ver = d[0], type = ver >= 2 ? d[1] : 2;
  if (ver < 1 || ver > 3) return "a shared message has an unknown version";
  if (type == 1) return "a message shared through a table the file does not have";
  uint64_t at = ver == 1 ? 8 + (uint64_t)r->ss : 2, addr;
  if (at + (uint64_t)r->sa > n) return "a shared message is truncated";
  addr = le(d + at, r->sa);
  if (addr >= r->eof) return "a shared message points outside the file";
  return walk_push(w, addr, OBJ_HEADER);
}

/* A group's symbol table (IV.A.2.r Symbol Table Message): the addresses of its B-tree ("TREE",
 * III.A.1) and of its name heap ("HEAP", III.D), and that heap's header. HDF5 1.10 follows a heap
 * address that points elsewhere into a read that crashes (tests/fuzz: fuzz_fclib, a lookup in the
 * root group), and allocates the data size the heap's header gives, which the scan of the whole
 * file (sg_h5_check_local_heaps) leaves alone when the reserved bytes are not 0 (tests/fuzz:
 * fuzz_checkpoint, 256 TB for the root group's heap). */
static const char *check_symbol_table(const raw_file *r, const uint8_t *d, uint64_t n) {
  if (n < 2 * (uint64_t)r->sa) return "a symbol table message is truncated";
  if (!signature_at(r, le(d, r->sa), "TREE")) return "a group's B-tree address points at no B-tree";
  uint8_t *h = raw_read(r, le(d + r->sa, r->sa), 16 + 2 * (uint64_t)r->ss + (uint64_t)r->sa);
  const char *why = !h || memcmp(h, "HEAP", 4) ? "a group's name heap address points at no heap" : check_local_heap(r, h, 1);
  free(h);
  return why;
}

/* A Data Layout message (IV.A.2.i) of a chunked dataset: its dimensionality (the dataspace's rank
 * plus one, the element's size) from 2 to 33, every size at least 1 and inside the message.
 * Versions 1-2: version, dimensionality, class, 5 reserved bytes, an address, 4-byte sizes;
 * version 3: version, class, dimensionality, an address, 4-byte sizes; version 4: version, class,
 * flags, dimensionality, the sizes' width, the sizes. Other layouts, and versions HDF5 1.10 does not
 * write, are left to HDF5. NULL, or what is wrong. */
static const char *check_layout(const raw_file *r, const uint8_t *d, uint64_t n) {
  if (n < 5) return "a layout message is truncated";
  uint64_t at, dims, width = 4;
  if (d[0] == 1 || d[0] == 2) {
    if (d[2] != 2) return NULL;
    dims = d[1], at = 8 + (uint64_t)r->sa;
  } else if (d[0] == 3) {
    if (d[1] != 2) return NULL;
    dims = d[2], at = 3 + (uint64_t)r->sa;
  } else if (d[0] == 4) {
    if (d[1] != 2) return NULL;
    dims = d[3], width = d[4], at = 5;
    if (width < 1 || width > 8) return "a chunked layout's sizes have a width outside 1 to 8 bytes";
  } else {
    return NULL;
  }
  if (dims < 2 || dims > 33) return "a chunked layout's dimensionality is outside 2 to 33";
  if (at + dims * width > n) return "a chunked layout's sizes run past its message";
  for (uint64_t k = 0; k < dims; ++k)
    if (le(d + at + k * width, (int)width) == 0) return "a chunked layout has a chunk size of 0";
  return NULL;
}

/* One block of messages (IV.A.1.a Version 1 Data Object Header Prefix: 8 bytes of type, size and
 * flags before each message): every message fits in the block, attribute messages are sound,
 * continuations (IV.A.2.q Object Header Continuation Message) are queued. NULL, or what is wrong. */
static const char *check_block(const raw_file *r, const uint8_t *m, uint64_t len, uint64_t (*queue)[2], int *nq,
                               tree_walk *w) {
  for (uint64_t p = 0; p + 8 <= len; ) {
    uint64_t type = le(m + p, 2), size = le(m + p + 2, 2);
    const uint8_t *body = m + p + 8;
    if (size > len - p - 8) return "a message runs past its block";
    if (m[p + 4] & 2) { /* shared: the body says where the message is, whatever its type */
      const char *why = check_shared(r, body, size, w);
      if (why) return why;
    } else if (type == 0x10) {
      if (size < (uint64_t)(r->sa + r->ss)) return "a continuation message is truncated";
      if (*nq == MAX_BLOCKS) return "too many continuation blocks";
      queue[*nq][0] = le(body, r->sa);
      queue[(*nq)++][1] = le(body + r->sa, r->ss);
    } else if (type == 0x0c) {
      const char *why = check_attr_message(r, body, size);
      if (why) return why;
    } else if (type == 0x08) {
      const char *why = check_layout(r, body, size);
      if (why) return why;
    } else if (type == 0x11) {
      const char *why = check_symbol_table(r, body, size);
      if (!why) why = walk_push(w, le(body, r->sa), OBJ_TREE); /* the group's members */
      if (why) return why;
    }
    p += 8 + size;
  }
  return NULL;
}

/* Every block of the object header at addr. A version-2 header ("OHDR", IV.A.1.b Version 2 Data
 * Object Header Prefix) is not walked: HDF5 verifies the checksum of each of its chunks before it
 * decodes a message, so corrupted bytes there are refused by HDF5 itself. */
static const char *check_header(const raw_file *r, uint64_t addr, tree_walk *w) {
  uint8_t *pre = raw_read(r, addr, 16);
  if (!pre) return "it lies outside the file";
  int v1 = pre[0] == 1;
  uint64_t queue[MAX_BLOCKS][2] = {{addr + 16, le(pre + 8, 4)}};
  free(pre);
  if (!v1) return NULL;
  const char *why = NULL;
  for (int b = 0, nq = 1; b < nq && !why; ++b) {
    if (queue[b][1] == 0) continue; /* an empty block: nothing to decode */
    if (queue[b][1] > MAX_BLOCK) return "a block of over 1 MiB"; /* no writer of ours makes one */
    uint8_t *m = raw_read(r, queue[b][0], queue[b][1]);
    if (!m) return b ? "a continuation block lies outside the file" : "its first block lies outside the file";
    why = check_block(r, m, queue[b][1], queue, &nq, w);
    free(m);
  }
  return why;
}

/* A group's B-tree node (III.A.1 Version 1 B-trees, node type 0): its children are nodes of the
 * level below, or symbol table nodes at level 0. HDF5 1.10 refuses more than 2 K children itself,
 * so only the addresses are followed here. NULL, or what is wrong. */
static const char *check_tree_node(const raw_file *r, uint64_t addr, tree_walk *w) {
  const uint64_t head = 8 + 2 * (uint64_t)r->sa, step = (uint64_t)r->ss + (uint64_t)r->sa;
  uint8_t *h = raw_read(r, addr, head);
  int ok = h && !memcmp(h, "TREE", 4) && h[4] == 0;
  uint64_t level = ok ? h[5] : 0, n = ok ? le(h + 6, 2) : 0;
  free(h);
  if (!ok) return "a group's B-tree node is not one";
  if (n > 2 * (uint64_t)r->node_k) return "a group's B-tree node has too many children";
  if (n == 0) return NULL;
  uint8_t *c = raw_read(r, addr + head, (n + 1) * (uint64_t)r->ss + n * (uint64_t)r->sa);
  if (!c) return "a group's B-tree node lies outside the file";
  const char *why = NULL;
  for (uint64_t k = 0; k < n && !why; ++k) why = walk_push(w, le(c + r->ss + k * step, r->sa), level ? OBJ_TREE : OBJ_SNOD);
  free(c);
  return why;
}

/* A symbol table node (III.B Group Symbol Table Nodes, "SNOD"): up to 2 leaf_k entries, each a
 * member's name offset and object header address (a soft link, cache type 2, has none). HDF5 1.10
 * decodes as many entries as the node says into an array of 2 leaf_k: more would overflow it.
 * NULL, or what is wrong. */
static const char *check_symbol_node(const raw_file *r, uint64_t addr, tree_walk *w) {
  const uint64_t entry = (uint64_t)r->ss + (uint64_t)r->sa + 24, none = r->sa == 8 ? UINT64_MAX : (1ull << (8 * r->sa)) - 1;
  uint8_t *h = raw_read(r, addr, 8);
  int ok = h && !memcmp(h, "SNOD", 4) && h[4] == 1;
  uint64_t n = ok ? le(h + 6, 2) : 0;
  free(h);
  if (!ok) return "a group's symbol table node is not one";
  if (n > 2 * (uint64_t)r->leaf_k) return "a group's symbol table node has too many entries";
  if (n == 0) return NULL;
  uint8_t *e = raw_read(r, addr + 8, n * entry);
  if (!e) return "a group's symbol table node lies outside the file";
  const char *why = NULL;
  for (uint64_t k = 0; k < n && !why; ++k) {
    const uint8_t *x = e + k * entry;
    uint64_t oh = le(x + r->ss, r->sa), cache = le(x + r->ss + r->sa, 4);
    if (cache != 2 && oh != none) why = walk_push(w, oh, OBJ_HEADER);
  }
  free(e);
  return why;
}

/* Every object header of the file's group tree, from the root group's (found from the superblock,
 * II.A Superblock, versions 0 and 1, at the start of the file), through each group's B-tree and
 * symbol table nodes, walked before H5Fopen. HDF5 loads a header before any check of ours could
 * run on it: H5Fopen the root group's (H5G_mkroot), every lookup the headers of the groups on its
 * path, H5Dopen2 the dataset's; and it allocates each continuation block at the length its message
 * gives (tests/fuzz: 2^55 bytes for the root group's) and follows shared messages (check_shared).
 * Later superblock versions carry a checksum, and a superblock elsewhere (after a user block) is
 * left to HDF5. NULL, or what is wrong, *at the object; r's sizes become the file's. */
static const char *check_root_tree(raw_file *r, uint64_t *root, uint64_t *at) {
  uint8_t sb[0x60];
  if (pread(r->fd, sb, sizeof sb, 0) != (ssize_t)sizeof sb || memcmp(sb, "\x89HDF\r\n\x1a\n", 8) || sb[8] > 1)
    return NULL;
  int sa = sb[13], ss = sb[14];
  if ((sa != 2 && sa != 4 && sa != 8) || (ss != 2 && ss != 4 && ss != 8)) return NULL; /* HDF5 refuses it */
  /* after 24 bytes (version 1: 28), the base, free-space, end-of-file and driver addresses, then
   * the root group's symbol table entry: its name offset and its object header's address. The base
   * address is not read: HDF5 1.10 replaces it with the superblock's own address (0 here) whatever
   * it says (tests/fuzz: fuzz_scene, a base of 256 kept this walk away from a continuation block of
   * 2^56 bytes below the root) */
  uint64_t off = (sb[8] == 1 ? 28 : 24) + 5 * (uint64_t)sa;
  if (off + (uint64_t)sa > sizeof sb) return NULL;
  r->sa = sa;
  r->ss = ss;
  r->leaf_k = (int)le(sb + 16, 2);
  r->node_k = (int)le(sb + 18, 2);
  tree_walk *w = malloc(sizeof *w);
  if (!w) return "no memory to walk the file's objects";
  w->n = 0;
  *at = *root = le(sb + off, sa);
  const char *why = walk_push(w, *root, OBJ_HEADER);
  for (int k = 0; k < w->n && !why; ++k) {
    *at = w->addr[k];
    why = w->kind[k] == OBJ_HEADER ? check_header(r, *at, w)
          : w->kind[k] == OBJ_TREE ? check_tree_node(r, *at, w)
                                   : check_symbol_node(r, *at, w);
  }
  free(w);
  return why;
}

sg_err sg_h5_check_object_header(hid_t loc, const char *file) {
  H5O_info_t info;
  if (H5Oget_info2(loc, &info, H5O_INFO_BASIC) < 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: cannot query an object's header", file);
  raw_file r;
  SG_CHECK(open_raw(loc, &r, file));
  const char *why = check_header(&r, info.addr, NULL);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: corrupted HDF5 object header (%s)", file, why);
  return SG_OK;
}
