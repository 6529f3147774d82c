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

/* The data of attribute message d (n bytes) when it is named `name` and is a variable-length
 * string: *data, *len set; 1 found, 0 another attribute, -1 one to leave to HDF5, -3 its
 * characters are not of one byte. */
static int attr_message(const uint8_t *d, uint64_t n, const char *name, const uint8_t **data, uint64_t *len) {
  if (n < 9) return 0;
  int ver = d[0], shared_type = d[1] & 1;
  uint64_t nsz = le(d + 2, 2), tsz = le(d + 4, 2), ssz = le(d + 6, 2), off = ver == 3 ? 9 : 8;
  if (ver < 1 || ver > 3) return 0;
  uint64_t pn = ver == 1 ? pad8(nsz) : nsz, pt = ver == 1 ? pad8(tsz) : tsz, ps = ver == 1 ? pad8(ssz) : ssz;
  if (off + pn + pt + ps > n || nsz != strlen(name) + 1 || memcmp(d + off, name, nsz) != 0) return 0;
  const uint8_t *type = d + off + pn;
  if (shared_type || tsz < 2) return -1;
  if ((type[0] & 15) != 9 || (type[1] & 15) != 1) return -1; /* not a variable-length string */
  /* its characters: the base type's size, which HDF5 multiplies the length by */
  if (tsz < 16 || le(type + 12, 4) != 1) return -3;
  *data = type + pt + ps;
  *len = n - (off + pn + pt + ps);
  return 1;
}

/* Find attribute `name` in the version-1 object header at addr: 1 found (data, len), 0 not there,
 * -1 left to HDF5 (another header version), -2 a header that cannot be walked, -3 as attr_message. */
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
  const char *why = found == -2 ? "its object header cannot be walked" : found == -3 ? "its characters are not bytes" : NULL;
  if (found == 1 && len < (uint64_t)(8 + r.sa)) why = "its reference is truncated";
  else if (found == 1 && le(data, 4) > 0) why = check_collection(&r, le(data + 4, r.sa), le(data + 4 + r.sa, 4), le(data, 4));
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
  const char *why = !ref ? "its reference lies outside the file"
                    : le(ref, 4) > 0 ? check_collection(&r, le(ref + 4, r.sa), le(ref + 4 + r.sa, 4), le(ref, 4))
                                     : NULL;
  free(ref);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: %s is a corrupted variable-length string (%s)", file, what, why);
  return SG_OK;
}

/* --- local heaps: the names of a group's members ----------------------------------------------- */

/* The local heap whose header is h (at least 16 + 2 ss + sa bytes): its free list stays inside its
 * data and ends. HDF5 1.10 follows the list without a bound, so a list that loops hangs any lookup
 * in the group (found by tests/fuzz). NULL, or what is wrong. A header that does not look like one
 * (bytes of data that happen to spell the signature) is not ours to judge: NULL. */
static const char *check_local_heap(const raw_file *r, const uint8_t *h) {
  if (h[4] != 0 || h[5] || h[6] || h[7]) return NULL;
  uint64_t size = le(h + 8, r->ss), head = le(h + 8 + r->ss, r->ss), at = le(h + 8 + 2 * r->ss, r->sa);
  if (at > r->eof || size > r->eof - at || size > MAX_BLOCK * 16) return NULL; /* HDF5 refuses it itself */
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

sg_err sg_h5_check_local_heaps(const char *path) {
  raw_file r = {open(path, O_RDONLY), 0, 0, 8, 8};
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
      if (!memcmp(h, "HEAP", 4)) why = check_local_heap(&r, h);
    }
  }
  free(buf);
  close(r.fd);
  if (why) return sg_error_set(SG_ERR_FORMAT, "%s: corrupted HDF5 file (%s)", path, why);
  return SG_OK;
}
