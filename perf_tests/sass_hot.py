#!/usr/bin/env python3
"""SASS lines of an ncu_sass.sh CSV that execute more than a share of the
kernel's warp instructions: python3 perf_tests/sass_hot.py CSV [SHARE=0.005]."""
import csv,sys
f=sys.argv[1]; lines=open(f).read().splitlines()
start=[i for i,l in enumerate(lines) if l.startswith('"Address"')][0]
rows=list(csv.reader(lines[start:]))
h=rows[0]; ie=h.index("Instructions Executed"); src=h.index("Source"); st=h.index("Warp Stall Sampling (All Samples)")
data=[r for r in rows[1:] if len(r)>ie]
tot=sum(int(r[ie].replace(',','') or 0) for r in data)
print("total warp instrs", tot)
thr=float(sys.argv[2]) if len(sys.argv)>2 else 0.005
for r in data:
    v=int(r[ie].replace(',','') or 0)
    if v>thr*tot: print("%8d %5.2f%% %6s  %s"%(v/1000, 100*v/tot, r[st], r[src]))
