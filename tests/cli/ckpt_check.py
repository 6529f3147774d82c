"""Checks on checkpoints and restarted trajectories for tests/cli/test_checkpoint.sh, with h5py.

  ckpt_check.py ckpt CKPT SCENE EVERY          CKPT is a complete checkpoint of SCENE: kind, version,
                                               step a multiple of EVERY, time = step dt, every dataset,
                                               scene_hash as docs/FORMATS.md defines it; prints the step
  ckpt_check.py frames_equal A B MIN_COMMON    the frames of trajectories A and B at the times they
                                               share (at least MIN_COMMON, the last of B among them)
                                               are bit for bit equal
  ckpt_check.py stats_continue A B             B's statistics are A's from B's first step on (bit for
                                               bit, wall_seconds aside), B's /stats/time continues
  ckpt_check.py matches_frame CKPT TRAJ        the state in CKPT is bit for bit TRAJ's frame at its time
  ckpt_check.py first_frame TRAJ CKPT          the first frame of TRAJ (a restarted run) is CKPT's state
  ckpt_check.py edit SRC DST EDIT              copy the checkpoint SRC to DST and damage it (EDIT below)

Each check prints "ok" or "FAIL" with what it looked at; the exit status is 1 when one failed.
"""
import shutil
import struct
import sys

import h5py
import numpy as np

failed = 0
MASK = (1 << 64) - 1


def check(ok, what):
    global failed
    print(("  ok      " if ok else "  FAIL    ") + what)
    if not ok:
        failed += 1
    return ok


def fnv(h, data):
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def scene_hash(f, prefix=""):
    """scene_hash of docs/FORMATS.md, from a scene file (or the scene part of a checkpoint)."""
    b = f[prefix + "bodies"]
    shape, size, mat = b["shape"][:], b["size"][:], b["material"][:]
    fixed, dens = b["fixed"][:], b["density"][:]
    fric, grav = f[prefix + "materials/friction"][:], f[prefix + "world/gravity"][:]
    rest_name = prefix + "materials/restitution"
    rest = f[rest_name][:] if rest_name in f else np.zeros_like(fric)
    total = 0
    for g in range(len(shape)):
        rec = struct.pack("<qi3diBd", g, int(shape[g]), *map(float, size[g]), int(mat[g]), int(fixed[g]),
                          float(dens[g]))
        total = (total + fnv(0xCBF29CE484222325, rec)) & MASK
    m = fric.shape[0]
    tail = struct.pack("<qQi", len(shape), total, m) + struct.pack(f"<{m * m}d", *fric.ravel()) + \
        (struct.pack(f"<{m * m}d", *rest.ravel()) if np.any(rest != 0) else b"") + struct.pack("<3d", *grav)
    return fnv(0xCBF29CE484222325, tail)


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def ckpt(path, scene, every):
    every = int(every)
    with h5py.File(path, "r") as f, h5py.File(scene, "r") as s:
        a = f.attrs
        check(attr_str(a.get("kind", "")) == "signorini-checkpoint", f"{path}: kind = signorini-checkpoint")
        check(int(a.get("format_version", -1)) == 2, f"{path}: format_version == 2")
        step, time, dt = int(a["step"]), float(a["time"]), float(a["dt"])
        check(step > 0 and step % every == 0, f"{path}: step {step} is a positive multiple of {every}")
        check(time == step * dt, f"{path}: time {time!r} == step x dt ({step} x {dt!r})")
        n = s["bodies/shape"].shape[0]
        for name, cols in (("position", 3), ("orientation", 4), ("velocity", 6)):
            d = f["bodies/" + name][:]
            check(d.shape == (n, cols) and np.all(np.isfinite(d)), f"{path}: /bodies/{name} is [{n}][{cols}], finite")
        w = f["warm/gid_a"].shape[0]
        check(f["warm/gid_b"].shape == (w,) and f["warm/feature"].shape == (w,) and f["warm/lambda"].shape == (w, 3),
              f"{path}: /warm datasets of {w} entries")
        check(w > 0, f"{path}: the warm start holds contacts ({w})")
        mine, stored = scene_hash(s), int(a["scene_hash"])
        check(mine == stored, f"{path}: scene_hash {stored:016x} is the FNV-1a fingerprint of {scene} "
              f"as documented ({mine:016x})")
        check(scene_hash(f) == stored, f"{path}: scene_hash matches its own bodies")
        print(f"step {step}")


def frame_rows(f, name, sel, width):
    """/frames/<name> at the frames sel, the body axis cut or padded with absent (NaN) rows to width:
    two runs of one scene that end at other times may have used other id extents."""
    x = f["frames/" + name][:][sel]
    if x.shape[1] >= width:
        return x[:, :width]
    pad = np.full((x.shape[0], width - x.shape[1]) + x.shape[2:], np.nan if x.dtype.kind == "f" else 0, x.dtype)
    return np.concatenate([x, pad], axis=1)


def frames_equal(pa, pb, min_common):
    with h5py.File(pa, "r") as a, h5py.File(pb, "r") as b:
        ta, tb = a["frames/time"][:], b["frames/time"][:]
        common = np.intersect1d(ta, tb)
        check(len(common) >= int(min_common) and tb[-1] in common,
              f"{pa} and {pb} share {len(common)} frame times (>= {min_common}, the last of {pb} among them)")
        ia, ib = np.isin(ta, common), np.isin(tb, common)
        width = max(a["frames/position"].shape[1], b["frames/position"].shape[1])
        names = ("position", "orientation", "velocity") + (("present",) if "frames/present" in a and
                                                           "frames/present" in b else ())
        for name in names:
            x, y = frame_rows(a, name, ia, width), frame_rows(b, name, ib, width)
            same = x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
            diff = np.nanmax(np.abs(x - y), initial=0.0) if x.shape == y.shape and x.dtype.kind == "f" else float("nan")
            check(same, f"/frames/{name} bit for bit equal at the {len(common)} common times (max diff {diff:g})")


def stats_continue(pa, pb):
    with h5py.File(pa, "r") as a, h5py.File(pb, "r") as b:
        dt = float(attr_str(b.attrs["dt"]))
        start = int(attr_str(b.attrs.get("restart_step", "0")))
        tb = b["stats/time"][:]
        k = len(tb)
        check(k > 0 and np.array_equal(tb, np.arange(start + 1, start + k + 1) * dt),
              f"{pb}: /stats/time continues from step {start} ({start + 1} dt ... {start + k} dt)")
        check(a["stats/time"].shape[0] >= start + k, f"{pa} has the steps {start + 1} .. {start + k}")
        for name in ("time", "iterations", "residual_primal", "residual_dual", "contact_residual", "n_contacts",
                     "converged", "max_penetration", "recoveries", "resolves"):
            x, y = a["stats/" + name][start:start + k], b["stats/" + name][:]
            check(np.array_equal(x, y), f"/stats/{name} of steps {start + 1}..{start + k} equal in both runs")


def frame_at(f, time):
    t = f["frames/time"][:]
    i = np.nonzero(t == time)[0]
    return int(i[0]) if len(i) else None


def same_bodies(c, t, i, pc, pt):
    """The checkpoint's bodies are exactly those present in frame i: their ids (/bodies/gid, else the
    rows), for reading the frame's rows."""
    ids = c["bodies/gid"][:] if "bodies/gid" in c else np.arange(c["bodies/shape"].shape[0])
    if "frames/present" in t:
        n_ids = int(t["frames/n_ids"][i])
        present = np.nonzero(t["frames/present"][i][:n_ids])[0]
    else:
        present = np.arange(t["frames/position"].shape[1])
    check(np.array_equal(np.sort(ids), present), f"{pc} holds the {len(present)} bodies of frame {i} of {pt} "
          f"(found {len(ids)})")
    return ids if ids.size == 0 or ids.max() < t["frames/position"].shape[1] else present


def matches_frame(pc, pt):
    with h5py.File(pc, "r") as c, h5py.File(pt, "r") as t:
        time = float(c.attrs["time"])
        i = frame_at(t, time)
        if not check(i is not None, f"{pt} has a frame at the checkpoint's time {time!r}"):
            return
        ids = same_bodies(c, t, i, pc, pt)
        for name in ("position", "orientation", "velocity"):
            check(np.array_equal(c["bodies/" + name][:], t["frames/" + name][i][ids]),
                  f"{pc}:/bodies/{name} is bit for bit frame {i} of {pt}")


def first_frame(pt, pc):
    with h5py.File(pc, "r") as c, h5py.File(pt, "r") as t:
        check(t["frames/time"][0] == c.attrs["time"], f"{pt}: first frame at the checkpoint's time")
        ids = same_bodies(c, t, 0, pc, pt)
        for name in ("position", "orientation", "velocity"):
            check(np.array_equal(c["bodies/" + name][:], t["frames/" + name][0][ids]),
                  f"{pt}: first frame's {name} is the checkpoint's")


def edit(src, dst, what):
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        if what == "no_lambda":
            del f["warm/lambda"]
        elif what == "nan_velocity":
            d = f["bodies/velocity"][:]
            d[-1, 2] = np.nan
            f["bodies/velocity"][...] = d
        elif what == "nudge_position":   # a plausible value that is not what was written
            d = f["bodies/position"][:]
            d[-1, 0] = np.nextafter(d[-1, 0], np.inf)
            f["bodies/position"][...] = d
        else:
            sys.exit(f"ckpt_check.py: unknown edit {what}")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"ckpt": ckpt, "frames_equal": frames_equal, "stats_continue": stats_continue, "matches_frame": matches_frame,
     "first_frame": first_frame, "edit": edit}[cmd](*args)
    sys.exit(1 if failed else 0)
