#!/usr/bin/env python3
"""bench/merge_rounds.py OUT ROUND_DIR... — one peers.sh results folder out of interleaved rounds.

bench/apply.sh times the tools of a set in rounds: every round runs each tool once (one
peers.sh call per tool, `--runs 1`), and the tools' order turns by one place each round. A slow
stretch of the machine then lands on every tool instead of on whichever one hyperfine was
timing. This script folds the rounds' folders back into the layout peers.sh writes for one call
(NAME.json, NAME.time, NAME.load, NAME.verify, meta.txt), so the shared summarize.py and
bench/apply_report.py read it unchanged:

- NAME.json: hyperfine's per-run `times`, every round's in round order;
- NAME.time: GNU time's lines in round order (only the first round warms up, so its warm-up
  lines come first, as in one hyperfine call);
- NAME.load: two snapshots whose differences are the sums of every round's (elapsed time, busy
  CPU, nginx CPU), so "other load" covers exactly the time the tool was being timed;
- NAME.verify: OK only when every round left a result and its output verified, else the first
  failure;
- meta.txt: the first round's, with `runs=` the number of rounds and the load averages of the
  first and last round.

Exit status 2 on a usage error.
"""
import json
import os
import re
import sys


def tools(d):
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json") and f != "summary.json")


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    out, rounds = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    # A tool whose hyperfine call left no result in some round keeps the other rounds' runs and
    # is reported as failed.
    names = sorted(set().union(*(tools(d) for d in rounds)))

    meta = open(os.path.join(rounds[0], "meta.txt")).read()
    meta = re.sub(r"\bruns=\d+", f"runs={len(rounds)}", meta)
    last = open(os.path.join(rounds[-1], "meta.txt")).read()
    after = re.search(r"^loadavg_after=.*$", last, re.M)
    meta = re.sub(r"^loadavg_after=.*\n?", "", meta, flags=re.M)
    meta = meta.rstrip("\n") + "\n" + (after.group(0) + "\n" if after else "")
    meta += f"rounds={len(rounds)} (interleaved: one run of each tool per round, order turned each round)\n"
    open(os.path.join(out, "meta.txt"), "w").write(meta)

    for name in names:
        doc = None
        times, time_lines, verify = [], [], None
        elapsed = busy = nginx = 0.0
        psi = "NA"
        for number, d in enumerate(rounds, 1):
            p = os.path.join(d, name + ".json")
            if not os.path.exists(p):
                if verify is None or verify.startswith("OK"):
                    verify = f"FAIL no result in round {number}"
                continue
            result = json.load(open(p))
            if doc is None:
                doc = result
            times += result["results"][0]["times"]
            p = os.path.join(d, name + ".time")
            if os.path.exists(p):
                time_lines += [line for line in open(p) if line.strip()]
            p = os.path.join(d, name + ".load")
            if os.path.exists(p):
                snaps = [line.split() for line in open(p) if line.strip()]
                if len(snaps) == 2:
                    elapsed += float(snaps[1][0]) - float(snaps[0][0])
                    busy += float(snaps[1][1]) - float(snaps[0][1])
                    nginx += float(snaps[1][2]) - float(snaps[0][2])
                    psi = snaps[1][3]
            p = os.path.join(d, name + ".verify")
            v = open(p).read().strip() if os.path.exists(p) else "FAIL no verification"
            if verify is None or (not v.startswith("OK") and verify.startswith("OK")):
                verify = v
        doc = doc or {"results": [{"command": name}]}
        res = doc["results"][0]
        res["times"] = times
        for k in ("mean", "stddev", "median", "user", "system", "min", "max", "exit_codes"):
            res.pop(k, None)
        json.dump(doc, open(os.path.join(out, name + ".json"), "w"))
        # Only the first round warms up, so its warm-up lines come first, as in one hyperfine call
        # (summarize.py drops `warmup=` lines from the front).
        open(os.path.join(out, name + ".time"), "w").writelines(time_lines)
        open(os.path.join(out, name + ".load"), "w").write(f"0 0 0 NA\n{elapsed} {busy} {nginx} {psi}\n")
        open(os.path.join(out, name + ".verify"), "w").write((verify or "FAIL no rounds") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
