#!/usr/bin/env python3
"""The hot SASS lines of one ncu_sass.sh CSV: those that execute more than
SHARE of the kernel's warp instructions (default 0.005), with their stall
samples, so that a kernel's inner loop can be read without the other lines.

  python3 perf_tests/scripts/sass_hot.py CSV [SHARE]

Prints the total, then per hot line: thousands of warp instructions, the
share in percent, the stall samples and the SASS text.
"""
import csv
import sys


def count(text):
    return int(text.replace(",", "") or 0)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().splitlines()
    # Nsight Compute prints its own lines before the CSV's header.
    start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    rows = list(csv.reader(lines[start:]))
    head = rows[0]
    executed = head.index("Instructions Executed")
    source = head.index("Source")
    stalls = head.index("Warp Stall Sampling (All Samples)")
    data = [r for r in rows[1:] if len(r) > executed]
    total = sum(count(r[executed]) for r in data)
    print("total warp instrs", total)
    share = float(sys.argv[2]) if len(sys.argv) > 2 else 0.005
    for r in data:
        v = count(r[executed])
        if v > share * total:
            print("%8d %5.2f%% %6s  %s" % (v / 1000, 100 * v / total, r[stalls], r[source]))


if __name__ == "__main__":
    main()
