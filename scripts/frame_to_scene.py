#!/usr/bin/env python3
"""Make a scene file from one frame of a trajectory (for example a settled pile to start other runs
or benchmarks from): the bodies present in that frame, with their description and the frame's
positions, orientations and velocities, and the trajectory's materials and gravity.
Usage: frame_to_scene.py out.h5 settled.h5 [frame, default -1 = last]

A trajectory whose body set changes (inflow, outflow) marks the ids of each frame in
/frames/present and describes every id in /ids; the scene keeps the ids (/bodies/gid when they are
not 0..N-1) and its next_gid is the frame's id extent, so ids stay unique if the run goes on.
Older files (no /frames/present) hold every body of /scene/bodies in every frame."""
import os
import sys

import h5py
import numpy as np

DESCRIPTION = ('shape', 'size', 'material', 'fixed', 'density')
STATE = ('position', 'orientation', 'velocity')


def frame_ids(t, frame):
    """Ids present in the frame (ascending) and the frame's id extent."""
    fr = t['frames']
    if 'present' not in fr:
        n = fr['position'].shape[1]
        return np.arange(n), n
    n_ids = int(fr['n_ids'][frame])
    return np.nonzero(fr['present'][frame, :n_ids])[0], n_ids


def description(t, ids):
    """shape, size, material, fixed, density of the ids: /ids (row = id) or, in older files,
    /scene/bodies (row = id)."""
    src = t['ids'] if 'ids' in t else t['scene/bodies']
    return {name: src[name][()][ids] for name in DESCRIPTION}


def write_scene(t, dst, frame, ids, n_ids):
    with h5py.File(dst, 'w') as s:
        s.attrs['format_version'] = 1
        s.attrs['kind'] = 'signorini-scene'
        for name in ('materials', 'world'):
            t.copy(t['scene/' + name], s, name=name)
        b = s.create_group('bodies')
        types = {'shape': np.int32, 'material': np.int32, 'fixed': np.uint8}
        for name, values in description(t, ids).items():
            b[name] = values.astype(types.get(name, np.float64))
        for name in STATE:
            b[name] = t['frames/' + name][frame][ids]
        if not np.array_equal(ids, np.arange(len(ids))):
            b['gid'] = ids.astype(np.int64)
        b.attrs['next_gid'] = np.int64(n_ids)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    frame = int(sys.argv[3]) if len(sys.argv) == 4 else -1
    with h5py.File(src, 'r') as t:
        if t.attrs.get('kind') not in ('signorini-trajectory', b'signorini-trajectory'):
            sys.exit(f'{src}: not a signorini trajectory')
        if int(t.attrs.get('complete', 0)) != 1:
            sys.exit(f'{src}: the trajectory is not complete')
        n_frames = t['frames/time'].shape[0]
        if not -n_frames <= frame < n_frames:
            sys.exit(f'{src}: frame {frame} outside the {n_frames} frames')
        frame %= n_frames
        ids, n_ids = frame_ids(t, frame)
        if len(ids) == 0:
            sys.exit(f'{src}: frame {frame} holds no bodies')
        write_scene(t, dst + '.tmp', frame, ids, n_ids)
        time = float(t['frames/time'][frame])
    os.replace(dst + '.tmp', dst)
    print(f'{dst}: frame {frame} (t = {time:g} s) of {src}, {len(ids)} bodies')


if __name__ == '__main__':
    main()
