#!/usr/bin/env python3
"""Make a scene file from one frame of a trajectory (for example a settled pile to start other runs
or benchmarks from): the trajectory's /scene group with the frame's positions, orientations and
velocities.  Usage: frame_to_scene.py out.h5 settled.h5 [frame, default -1 = last]"""
import sys

import h5py


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
        with h5py.File(dst + '.tmp', 'w') as s:
            s.attrs['format_version'] = 1
            s.attrs['kind'] = 'signorini-scene'
            for name in ('bodies', 'materials', 'world'):
                t.copy(t['scene/' + name], s, name=name)
            for name in ('position', 'orientation', 'velocity'):
                s['bodies/' + name][...] = t['frames/' + name][frame]
        time = float(t['frames/time'][frame])
    import os
    os.replace(dst + '.tmp', dst)
    print(f'{dst}: frame {frame} (t = {time:g} s) of {src}')


if __name__ == '__main__':
    main()
