"""Every phase of `proflens bench` for two builds on the same files, in one script.

Usage: python3 before_after.py BEFORE_BINARY AFTER_BINARY FILE [FILE ...] [--runs N] [--repeat R]

For each file the two binaries run `bench FILE --repeat R` in turn, N times
(before, after, before, after, ...), so that a busy machine slows both alike;
each phase's time is the best over the runs. Prints a Markdown table per file:
decode, the shared passes, each tool and each pass of `pass_ms`, before and
after in ms, and after / before (below 1 is faster). Nothing is asserted: it
is the "nothing got slower" table of a change.
"""

import json
import subprocess
import sys


def bench(binary, path, repeat):
    out = subprocess.run([binary, 'bench', path, '--repeat', str(repeat)], check=True,
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    times = {p['name']: p['ms'] for p in report['phases']}
    times.update({f'pass {k}': v for k, v in report['pass_ms'].items()})
    return report, times


def best(runs):
    names = list(runs[0])
    return {n: min(r[n] for r in runs if n in r) for n in names}


def main():
    args = sys.argv[1:]
    runs, repeat = 2, 3
    for flag in ('--runs', '--repeat'):
        if flag in args:
            i = args.index(flag)
            value = int(args[i + 1])
            del args[i:i + 2]
            runs, repeat = (value, repeat) if flag == '--runs' else (runs, value)
    before_bin, after_bin, files = args[0], args[1], args[2:]
    for path in files:
        before, after = [], []
        for _ in range(runs):
            report, times = bench(before_bin, path, repeat)
            before.append(times)
            after.append(bench(after_bin, path, repeat)[1])
        b, a = best(before), best(after)
        mb = report['bytes'] / 1e6
        print(f"\n{path}: {mb:.1f} MB, {report['events']} events; best of {runs} runs x {repeat} repeats\n")
        print('| phase | before ms | after ms | after / before |')
        print('|---|---:|---:|---:|')
        for name in list(b) + [n for n in a if n not in b]:
            bv, av = b.get(name), a.get(name)
            ratio = f'{av / bv:.2f}' if bv and av is not None and bv > 0.05 else ''
            fmt = lambda v: '' if v is None else f'{v:.1f}'
            print(f'| {name} | {fmt(bv)} | {fmt(av)} | {ratio} |')
        for label, t in (('before', b), ('after', a)):
            print(f"decode {label}: {mb / (t['decode'] / 1000):.0f} MB/s")


if __name__ == '__main__':
    main()
