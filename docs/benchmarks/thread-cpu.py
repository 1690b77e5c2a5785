#!/usr/bin/env python3
"""CPU seconds per thread of the Java processes on this machine (the job and its Kafka broker),
read from /proc, so that native code (RocksDB, OpenBLAS), the garbage collector and the broker
count as well as Java code.

  thread-cpu.py record OUT          samples every thread's CPU time every 2 s into OUT (JSON lines)
                                    until killed
  thread-cpu.py window OUT START END
                                    CPU seconds per process and thread name between two wall
                                    times (HH:MM:SS, as in demo's log lines)
"""
import collections
import datetime
import json
import os
import sys
import time


def record(path):
    tick = os.sysconf("SC_CLK_TCK")
    with open(path, "w") as out:
        while True:
            snap = {"t": time.time(), "p": {}}
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                    if not cmd or b"java" not in cmd[0]:
                        continue
                    threads = {}
                    for tid in os.listdir(f"/proc/{pid}/task"):
                        stat = open(f"/proc/{pid}/task/{tid}/stat").read()
                        name = stat[stat.index("(") + 1 : stat.rindex(")")]
                        fields = stat[stat.rindex(")") + 2 :].split()
                        threads[tid] = (name, (int(fields[11]) + int(fields[12])) / tick)
                    label = b" ".join(c for c in cmd if c and not c.startswith(b"-"))[-80:]
                    snap["p"][pid] = {"cmd": label.decode(errors="replace"), "th": threads}
                except OSError:
                    continue
            out.write(json.dumps(snap) + "\n")
            out.flush()
            time.sleep(2)


def window(path, start, end):
    snaps = [json.loads(line) for line in open(path)]
    day = datetime.datetime.fromtimestamp(snaps[0]["t"])

    def nearest(hms):
        h, m, s = (int(x) for x in hms.split(":"))
        t = day.replace(hour=h, minute=m, second=s).timestamp()
        return min(snaps, key=lambda snap: abs(snap["t"] - t))

    a, b = nearest(start), nearest(end)
    print("window %.1f s" % (b["t"] - a["t"]))
    rows = []
    for pid, proc in b["p"].items():
        before = a["p"].get(pid, {"th": {}})["th"]
        per_name = collections.Counter()
        for tid, (name, cpu) in proc["th"].items():
            per_name[name.rstrip("0123456789#").strip()] += cpu - before.get(tid, (name, 0))[1]
        rows.append((sum(per_name.values()), pid, proc["cmd"], per_name))
    for total, pid, cmd, per_name in sorted(rows, reverse=True):
        if total >= 1:
            print("%s %s: %.1f CPU s" % (pid, cmd[-60:], total))
            for name, cpu in per_name.most_common(15):
                print("  %7.1f %s" % (cpu, name))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "record":
        record(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "window":
        window(*sys.argv[2:])
    else:
        print(__doc__.strip())
        sys.exit(2)
