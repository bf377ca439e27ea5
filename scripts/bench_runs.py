#!/usr/bin/env python3
"""Side-by-side target verdicts of several benchmark runs (issue-4 rows: W1-W4, NCHW and 3-D).

Usage: scripts/bench_runs.py RUN_DIR [RUN_DIR ...]
Each RUN_DIR holds the JSON of one run (memcpy.json, affine_grid.json, grid_sample.json);
every row of scripts/bench_targets.py for W1-W4 (channels-last and AffineGrid type variants
left out) becomes one line with each run's value, marked with a cross where missed, then
the rows met in every run, missed in every run and flipping between runs.
"""
import os
import subprocess
import sys


def targets(run_dir):
    files = sorted(os.path.join(run_dir, f) for f in os.listdir(run_dir) if f.endswith('.json'))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bench_targets.py')
    out = subprocess.run([sys.executable, script] + files, capture_output=True, text=True,
                         check=True).stdout
    rows = []
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 4 or cells[1][:2] not in ('W1', 'W2', 'W3', 'W4'):
            continue
        if '/nhwc/' in cells[1] or '/contig/' in cells[1]:
            continue
        value = cells[2].split(' ')[0]
        if cells[0].startswith('>= 0.6'):
            value = cells[2].split(' = ')[1].split(' of')[0] + ' of copy'
        elif cells[0].startswith('>= 2x ONNX'):
            value = cells[2].split(' vs')[0]
        rows.append(((cells[0], cells[1]), value + ('' if cells[3] == 'MET' else ' ✗')))
    return rows


def label(key):
    kind, row = key
    if kind.startswith('2T >='):
        return 'the scaling of ' + row
    if kind.startswith('>= 0.6'):
        return row.replace(' 1T', '') + ' copy bandwidth'
    if kind.startswith('>= 2x ONNX'):
        return row.replace(' 1T', '') + ' against ONNX Runtime'
    if kind.startswith('tricubic'):
        return 'W3d/W3a ' + row.split(' ')[1]
    return row


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = argv[1:]
    table, order = {}, []
    for r in runs:
        for key, value in targets(r):
            if key not in table:
                table[key] = {}
                order.append(key)
            table[key][r] = value
    names = [os.path.basename(os.path.normpath(r)) for r in runs]
    print('| target | row | ' + ' | '.join(names) + ' |')
    print('|---|---|' + '---|' * len(runs))
    for key in order:
        print('| ' + key[0] + ' | ' + key[1] + ' | ' +
              ' | '.join(table[key].get(r, '–') for r in runs) + ' |')
    missed = {key: [('✗' in table[key].get(r, '✗')) for r in runs] for key in order}
    print()
    print('met in every run: ' + ', '.join(label(k) for k in order if not any(missed[k])))
    print('missed in every run: ' + ', '.join(label(k) for k in order if all(missed[k])))
    print('flipping: ' + ', '.join(label(k) for k in order if any(missed[k]) and not all(missed[k])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
