"""HDF5 checks and scene edits for the command-line tests (tests/cli/test_*.sh), with h5py.

  h5check.py traj TRAJ SCENE T_FINAL STEPS   a finished trajectory written from SCENE for T_FINAL
                                             seconds; STEPS: the step count the run printed
  h5check.py same TRAJ_A TRAJ_B ATOL         both trajectories hold the same frames (within ATOL)
  h5check.py complete FILE VALUE             FILE opens and its root attribute complete == VALUE
  h5check.py mutate SRC DST EDIT             copy the scene SRC to DST and break it (EDIT below)

Each check prints "ok" or "FAIL" with what it looked at; the exit status is 1 when one failed.
"""
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import h5py
import numpy as np

failed = 0


def check(ok, what):
    global failed
    print(("  ok      " if ok else "  FAIL    ") + what)
    if not ok:
        failed += 1
    return ok


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def check_traj(traj, scene, t_final, steps_printed):
    t_final = float(t_final)
    steps_printed = int(steps_printed)
    with h5py.File(scene, "r") as s:
        n = s["bodies/shape"].shape[0]
        scene_pos = s["bodies/position"][:]
        scene_shape = s["bodies/shape"][:]
        scene_ids = s["bodies/gid"][:] if "bodies/gid" in s else np.arange(n)
    with h5py.File(traj, "r") as f:
        a = f.attrs
        check(attr_str(a.get("kind", "")) == "signorini-trajectory", f"{traj}: kind = signorini-trajectory")
        check("complete" in a and int(a["complete"]) == 1, f"{traj}: root attribute complete == 1 "
              f"(found {a.get('complete')})")
        check("format_version" in a and int(a["format_version"]) == 1, f"{traj}: format_version == 1")
        pos = f["frames/position"]
        T = pos.shape[0]
        # the body axis is the largest id extent of the frames (the scene's N while no body enters)
        top = int(scene_ids.max()) + 1 if n else 0
        rows = int(f["frames/n_ids"][:].max()) if "frames/n_ids" in f and T else n
        check(len(pos.shape) == 3 and pos.shape[1:] == (rows, 3) and rows >= top,
              f"{traj}: /frames/position has shape [T][{rows}][3], {rows} >= {top} (found {list(pos.shape)})")
        check(T >= 2, f"{traj}: at least 2 frames (found {T})")
        for name, cols in (("orientation", 4), ("velocity", 6)):
            d = f["frames/" + name]
            check(d.shape == (T, rows, cols), f"{traj}: /frames/{name} has shape [{T}][{rows}][{cols}] "
                  f"(found {list(d.shape)})")
        present = frames_present(f)
        time = f["frames/time"][:]
        check(time.shape == (T,), f"{traj}: /frames/time has {T} entries (found {time.shape})")
        dt = float(attr_str(a["dt"])) if "dt" in a else None
        check(dt is not None and dt > 0, f"{traj}: root attribute dt present (found {a.get('dt')})")
        steps = int(round(t_final / dt)) if dt else -1
        check(steps_printed == steps, f"{traj}: the run printed {steps_printed} steps, "
              f"round(t_final / dt) = {steps}")
        if len(time) >= 2 and dt:
            check(time[0] == 0.0 and abs(time[-1] - steps * dt) < 1e-9 and np.all(np.diff(time) > 0),
                  f"{traj}: frame times rise from 0 to {steps * dt:g} (found {time[0]:g} .. {time[-1]:g})")
        res = f["stats/contact_residual"]
        check(res.shape == (steps,), f"{traj}: /stats/contact_residual has one entry per step "
              f"({steps}; found {res.shape})")
        for name in ("time", "iterations", "residual_primal", "residual_dual", "n_contacts",
                     "wall_seconds", "converged", "max_penetration", "recoveries", "resolves"):
            d = f["stats/" + name]
            check(d.shape == res.shape, f"{traj}: /stats/{name} has as many entries as "
                  f"/stats/contact_residual (found {d.shape})")
        if dt and res.shape == (steps,):
            st = f["stats/time"][:]
            check(np.allclose(st, dt * np.arange(1, steps + 1), rtol=0, atol=1e-9),
                  f"{traj}: /stats/time is dt, 2 dt, ..., {steps} dt")
            check(np.all(np.isfinite(res[:])) and np.all(res[:] >= 0),
                  f"{traj}: contact residuals are finite and >= 0")
        p0 = pos[0][scene_ids] if rows >= top else pos[0]
        diff = np.max(np.abs(p0 - scene_pos)) if p0.shape == scene_pos.shape else float("nan")
        check(np.array_equal(p0, scene_pos), f"{traj}: /frames/position[0] equals {scene}:/bodies/position "
              f"(bodies in scene order; max diff {diff:g})")
        check(np.array_equal(f["scene/bodies/position"][:], scene_pos)
              and np.array_equal(f["scene/bodies/shape"][:], scene_shape),
              f"{traj}: /scene/bodies holds the scene in its order")
        check(all(np.all(np.isfinite(f["frames/" + k][:][present])) and np.all(np.isnan(f["frames/" + k][:][~present]))
                  for k in ("position", "orientation", "velocity")),
              f"{traj}: every frame is finite where its bodies are present, NaN elsewhere "
              f"({int(present.sum())} of {present.size} rows present)")
    xmf = Path(traj).with_suffix(".xmf")
    try:
        root = ET.parse(xmf).getroot()
        grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform" and g.get("Name", "").startswith("frame")]
        hdf = {d.text.strip().split(":")[0] for d in root.iter("DataItem")
               if d.get("Format") == "HDF" and d.text}
        check(len(grids) == T and hdf == {Path(traj).name},
              f"{xmf}: well-formed XML, {T} grids, references {Path(traj).name} "
              f"(found {len(grids)} grids, {sorted(hdf)})")
    except (ET.ParseError, OSError) as e:
        check(False, f"{xmf}: cannot be parsed ({e})")


def frames_present(f):
    """[T][N] bool: the rows of each frame that hold a body (files without /frames/present: all)."""
    pos = f["frames/position"]
    return f["frames/present"][:].astype(bool) if "frames/present" in f else np.ones(pos.shape[:2], bool)


def check_same(ta, tb, atol):
    with h5py.File(ta, "r") as a, h5py.File(tb, "r") as b:
        pa, pb = frames_present(a), frames_present(b)
        check(pa.shape == pb.shape and np.array_equal(pa, pb), f"{ta} and {tb} hold the same bodies in every frame")
        for name in ("time", "position", "orientation", "velocity"):
            x, y = a["frames/" + name][:], b["frames/" + name][:]
            # absent bodies are NaN rows in both
            ok = x.shape == y.shape and np.allclose(x, y, rtol=0, atol=float(atol), equal_nan=True)
            diff = np.nanmax(np.abs(x - y), initial=0.0) if x.shape == y.shape else float("nan")
            check(ok, f"/frames/{name} of {ta} and {tb} agree within {atol} "
                  f"(shapes {x.shape} {y.shape}, max diff {diff:g})")


def check_complete(path, value):
    try:
        with h5py.File(path, "r") as f:
            c = f.attrs.get("complete")
            check(c is not None and int(c) == int(value), f"{path}: opens, complete == {value} (found {c})")
    except OSError as e:
        check(False, f"{path}: cannot be opened ({e})")


def write_regions(f, what):
    """/regions rows: an inflow box and an outflow that `what` makes invalid."""
    inflow = dict(kind=1, zone=0, box=[-0.1, -0.1, 0.5, 0.1, 0.1, 0.6], rate=100.0, rate_unit=0,
                  radius=[0.01, 0.01], density=1000.0, material=0, window=[0.0, np.inf], seed=1)
    domain = dict(kind=0, zone=1, box=[-1, -1, -1, 1, 1, 0.55 if what == "outside" else 1])
    rows = {"outside": [inflow, domain],
            "overlap": [inflow, dict(inflow, box=[0.0, 0.0, 0.55, 0.2, 0.2, 0.65])],
            "sink": [inflow, dict(kind=0, zone=0, box=[0.05, -1, -1, 1, 1, 1])],
            "nan": [dict(kind=0, zone=2, plane=[0, 0, -1, 0, 0, np.nan])],
            "unit": [dict(inflow, rate_unit=5)]}[what]
    cols = dict(kind=(0, np.int32), zone=(0, np.int32), box=([0.0] * 6, float), plane=([0.0] * 6, float),
                rate=(0.0, float), rate_unit=(0, np.int32), radius=([0.0] * 2, float), density=(0.0, float),
                material=(0, np.int32), velocity=([0.0] * 3, float), window=([0.0] * 2, float), seed=(0, np.int64))
    for name, (zero, dtype) in cols.items():
        f["regions/" + name] = np.array([r.get(name, zero) for r in rows], dtype=dtype)


def mutate(src, dst, edit):
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        def edit_row(name, row, col, value):
            d = f[name][:]
            if col is None:
                d[row] = value
            else:
                d[row, col] = value
            f[name][...] = d

        if edit == "no_size":
            del f["bodies/size"]
        elif edit.startswith("nan_position_"):          # nan_position_<body>
            edit_row("bodies/position", int(edit.split("_")[-1]), 1, np.nan)
        elif edit.startswith("negative_density_"):      # negative_density_<body>
            edit_row("bodies/density", int(edit.split("_")[-1]), None, -1000.0)
        elif edit.startswith("tiny_radius_"):           # tiny_radius_<body>: its mass underflows
            edit_row("bodies/size", int(edit.split("_")[-1]), 0, 1e-200)
        elif edit.startswith("zero_radius_"):           # zero_radius_<body>
            edit_row("bodies/size", int(edit.split("_")[-1]), 0, 0.0)
        elif edit.startswith("shape99_"):               # shape99_<body>: an unknown shape code
            edit_row("bodies/shape", int(edit.split("_")[-1]), None, 99)
        elif edit.startswith("wall_"):                  # wall_<kind>_<body>: a wall of revolution
            kind, body = edit.split("_")[1], int(edit.split("_")[-1])
            shape, size = {"disk": (6, [0.5, 0.2, 0]),        # hole wider than the disk
                           "cone": (5, [0, 0, 0.1]),          # both radii 0
                           "moving": (4, [0.5, 0.1, 0]),      # on a moving body
                           "company": (4, [0.5, 0.5, 0])}[kind]
            edit_row("bodies/shape", body, None, shape)
            edit_row("bodies/size", body, None, size)
            if kind == "company":                       # and a moving box beside it (body 6)
                edit_row("bodies/shape", 6, None, 1)
                edit_row("bodies/size", 6, None, [0.01, 0.01, 0.01])
        elif edit.startswith("motion_"):                # motion_<what>_<body>: a /motions row
            what, body = edit.split("_")[1], int(edit.split("_")[-1])
            v = [np.nan, 0, 0] if what == "nan" else [0.1, 0, 0]
            window = [0.5, 0.2] if what == "empty" else [0.0, np.inf]
            rows = 2 if what == "overlap" else 1
            f["motions/body"] = np.full(rows, body, dtype=np.int64)
            f["motions/kind"] = np.zeros(rows, dtype=np.int32)
            f["motions/velocity"] = np.array([v] * rows)
            f["motions/point"] = np.zeros((rows, 3))
            f["motions/window"] = np.array([window] * rows)
        elif edit.startswith("region_"):                # region_<what>: a /regions group
            write_regions(f, edit.split("_", 1)[1])
        elif edit == "friction_not_square":
            m = f["materials/friction"].shape[0]
            del f["materials/friction"]
            f["materials/friction"] = np.full((m + 1, m), 0.3)
        elif edit in ("restitution_1p5", "restitution_shape"):  # out of [0, 1]; not [M][M]
            m = f["materials/friction"].shape[0]
            if "materials/restitution" in f:
                del f["materials/restitution"]
            f["materials/restitution"] = np.full((m, m), 1.5) if edit == "restitution_1p5" else np.zeros((m, m + 2))
        elif edit == "far_position_6":  # a moving body where doubles are metres apart
            row = f["bodies/position"][6]
            row[0] = 1e308
            f["bodies/position"][6] = row
        elif edit in ("period_outside", "period_half"):  # moving bodies outside the cell; period_lo alone
            f["world/period_lo"] = np.zeros(3)
            if edit == "period_outside":
                f["world/period_hi"] = np.array([1e-3, 0.0, 0.0])
        elif edit in ("rolling_negative", "rolling_box_6"):  # below 0; a moving box (body 6) with rolling friction
            m = f["materials/friction"].shape[0]
            if "materials/rolling_friction" in f:
                del f["materials/rolling_friction"]
            f["materials/rolling_friction"] = np.full((m, m), -0.1 if edit == "rolling_negative" else 0.1)
            if edit == "rolling_box_6":
                f["bodies/shape"][6] = 1
                r = f["bodies/size"][6][0]
                f["bodies/size"][6] = [r, r, r]
        else:
            sys.exit(f"h5check.py: unknown edit {edit}")


def describe(path):
    """The per-body fields of a scene, for the test to pick bodies."""
    with h5py.File(path, "r") as f:
        for k in ("shape", "fixed"):
            print(k, " ".join(str(int(v)) for v in f["bodies/" + k][:]))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"traj": check_traj, "same": check_same, "complete": check_complete, "mutate": mutate,
     "describe": describe}[cmd](*args)
    sys.exit(1 if failed else 0)
