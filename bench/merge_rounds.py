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
  lines come first, as in one hyperfine call; summarize.py drops `warmup=` lines from the front);
- NAME.load: two snapshots whose differences are the sums of every round's (elapsed time, busy
  CPU, nginx CPU), so "other load" covers exactly the time the tool was being timed;
- NAME.verify: OK only when every round left a result and its output verified, else the first
  other verdict (a tool with no result in a round keeps the other rounds' runs);
- meta.txt: from the first call of the first round (apply.sh keeps each call's as
  meta-TOOL.txt), with `runs=` the number of rounds and `loadavg_after` from the last call of
  the last round.

Exit status 2 on a usage error.
"""
import glob
import json
import os
import re
import sys


def calls_in_order(round_dir):
    """The meta-TOOL.txt copies of a round, in the order the calls ran."""
    return sorted(glob.glob(os.path.join(round_dir, "meta-*.txt")), key=os.path.getmtime)


def read_if_present(path):
    return open(path).read() if os.path.exists(path) else None


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    out, rounds = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)

    meta = open(calls_in_order(rounds[0])[0]).read()
    meta = re.sub(r"\bruns=\d+", f"runs={len(rounds)}", meta)
    meta = re.sub(r"^loadavg_after=.*\n?", "", meta, flags=re.M).rstrip("\n") + "\n"
    after = re.search(r"^loadavg_after=.*$", open(calls_in_order(rounds[-1])[-1]).read(), re.M)
    if after:
        meta += after.group(0) + "\n"
    meta += f"rounds={len(rounds)} (interleaved: one run of each tool per round, order turned each round)\n"
    open(os.path.join(out, "meta.txt"), "w").write(meta)

    names = sorted({os.path.basename(p)[:-len(".json")]
                    for d in rounds for p in glob.glob(os.path.join(d, "*.json"))} - {"summary"})
    for name in names:
        doc, times, time_lines, verdicts = None, [], [], []
        elapsed = busy = nginx = 0.0
        psi = "NA"
        for number, d in enumerate(rounds, 1):
            result = read_if_present(os.path.join(d, name + ".json"))
            if result is None:
                verdicts.append(f"FAIL no result in round {number}")
                continue
            result = json.loads(result)
            doc = doc or result
            times += result["results"][0]["times"]
            time_lines += [l for l in (read_if_present(os.path.join(d, name + ".time")) or "").splitlines(True) if l.strip()]
            snaps = [l.split() for l in (read_if_present(os.path.join(d, name + ".load")) or "").splitlines() if l.strip()]
            if len(snaps) == 2:
                elapsed += float(snaps[1][0]) - float(snaps[0][0])
                busy += float(snaps[1][1]) - float(snaps[0][1])
                nginx += float(snaps[1][2]) - float(snaps[0][2])
                psi = snaps[1][3]
            verdicts.append((read_if_present(os.path.join(d, name + ".verify")) or "FAIL no verification").strip())
        res = doc["results"][0]  # every name comes from some round's NAME.json
        res["times"] = times
        for k in ("mean", "stddev", "median", "user", "system", "min", "max", "exit_codes"):
            res.pop(k, None)
        json.dump(doc, open(os.path.join(out, name + ".json"), "w"))
        open(os.path.join(out, name + ".time"), "w").writelines(time_lines)
        open(os.path.join(out, name + ".load"), "w").write(f"0 0 0 NA\n{elapsed} {busy} {nginx} {psi}\n")
        verdict = next((v for v in verdicts if not v.startswith("OK")), verdicts[0])
        open(os.path.join(out, name + ".verify"), "w").write(verdict + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
