#!/usr/bin/env python3
"""apply_report.py OUT [--sets ...] [--media ...] [--protos ...] — tables and targets of bench/apply.sh.

OUT holds one peers.sh results folder per set and medium (OUT/<set>-<medium>/summary.json, written
by ../shared/bench/lib/summarize.py). Prints a markdown table per set and medium, then the
issue-3 targets as ratios (jobrun ÷ peer, same protocol, same pass) with PASS/FAIL, and writes
OUT/failed.txt ("set medium protocol" per failed target, for the optional profile step).
Exit status 1 when any target failed (or a row is missing), else 0.

Targets (issue 3, "Speed"):
  tmpfs  seed   jobrun files/s ≥ the fastest peer's files/s
         many   jobrun files/s ≥ curl's, and ≥ 3 × aria2c's
         large  jobrun MB/s ≥ 1.2 × curl's (verification included: jobrun hashes every byte)
  disk   every set: jobrun ≥ 0.95 × curl
  both   every set: jobrun's peak RSS < 64 MiB; its output verifies (sha256sum -c, no extra files)
"""
import argparse
import json
import os
import sys

PEERS = {
    "h1": {"jobrun": "jobrun-h1", "aria2c": "aria2c-h1", "curl": "curl-h1", "wget2": "wget2-h1"},
    "tls": {"jobrun": "jobrun-h2tls", "aria2c": "aria2c-tls", "curl": "curl-h2tls", "wget2": "wget2-h2tls"},
}
PROTO_LABEL = {"h1": "HTTP/1.1", "tls": "TLS h2 ¹"}
RSS_LIMIT_MIB = 64


def load(out, s, m):
    p = os.path.join(out, f"{s}-{m}", "summary.json")
    if not os.path.exists(p):
        return None, {}
    doc = json.load(open(p))
    return doc["meta"], {r["tool"]: r for r in doc["rows"]}


def ok(r):
    return r is not None and r.get("runs") and r["verify"].startswith("OK")


def f(v, spec):
    return "?" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sets", default="seed many large")
    ap.add_argument("--media", default="tmpfs disk")
    ap.add_argument("--protos", default="h1 tls")
    a = ap.parse_args()
    sets, media, protos = a.sets.split(), a.media.split(), a.protos.split()

    targets = []   # (set, medium, proto, description, value shown, passed, other-load note)
    infos = []     # (set, medium, proto, description, value shown, other-load note): not targets
    failed = set()

    def target(s, m, p, desc, shown, passed, note=""):
        targets.append((s, m, p, desc, shown, passed, note))
        if not passed:
            failed.add((s, m, p))

    for s in sets:
        for m in media:
            meta, rows = load(a.out, s, m)
            if meta is None:
                for p in protos:
                    target(s, m, p, "measured", "no results", False)
                continue
            nfiles, nbytes = int(meta["files"]), int(float(meta["bytes"]))
            print(f"### {s} on {m}: {nfiles:,} files, {nbytes / 2**20:,.1f} MiB, concurrency {meta['conc']}, "
                  f"{meta['runs']} timed runs (+{meta['warmup']} warm-up)"
                  f"{', in interleaved rounds' if 'rounds' in meta else ', each tool in a row'}\n")
            print("| tool | protocol | median wall s | min–max s | files/s | MB/s | CPU s | peak RSS MiB (max) | other load | verify |")
            print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
            order = []
            for p in protos:
                names = list(PEERS[p].values())
                order += sorted((rows[n] for n in names if n in rows),
                                key=lambda r: r["wall_median_s"] if r.get("runs") else 1e9)
            for ref in ("ref-curl-h1-syncfs", "ceiling-cp-local"):
                if ref in rows:
                    order.append(rows[ref])
            for r in order:
                proto = next((PROTO_LABEL[p] for p in protos if r["tool"] in PEERS[p].values()),
                             "HTTP/1.1, then `sync -f` (reference)" if r["tool"] == "ref-curl-h1-syncfs" else "(local copy)")
                name = f"**{r['tool']}**" if r["tool"].startswith("jobrun") else r["tool"]
                if not r.get("runs"):
                    print(f"| {name} | {proto} | – | – | – | – | – | – | – | {r['verify']} |")
                    continue
                good = r["verify"].startswith("OK")
                print(f"| {name} | {proto} | {r['wall_median_s']:.3f} | {r['wall_min_s']:.3f}–{r['wall_max_s']:.3f} | "
                      f"{format(r['files_per_s'], ',.0f') if good else '–'} | {format(r['mb_per_s'], ',.0f') if good else '–'} | "
                      f"{r['cpu_median_s']:.2f} | {f(r['rss_max_mib'], '.1f')} | {f(r['other_load_cores'], '.2f')} | {r['verify']} |")
            if "tls" in protos:
                print("\n¹ TLS on 127.0.0.1:8443: jobrun (with `--cacert`, verification on), curl and wget2 negotiate "
                      "HTTP/2 by ALPN and multiplex; aria2c speaks HTTP/1.1 over TLS. The peers skip certificate checks.")
            print()

            for p in protos:
                names = PEERS[p]
                j = rows.get(names["jobrun"])
                load_note = lambda *rs: "other load " + " / ".join(
                    f"{x['tool']} {f(x.get('other_load_cores'), '.2f')}" for x in rs if x is not None)
                if not ok(j):
                    target(s, m, p, "jobrun's output verifies", j["verify"] if j else "not measured", False)
                    continue
                target(s, m, p, "jobrun's output verifies", j["verify"], True)
                rss = j["rss_max_mib"]
                target(s, m, p, f"jobrun peak RSS < {RSS_LIMIT_MIB} MiB", f"{rss:.1f} MiB", rss < RSS_LIMIT_MIB)

                def ratio(peer, metric, need, label):
                    r = rows.get(names[peer])
                    if not ok(r):
                        target(s, m, p, label, f"{names[peer]} has no valid result", False)
                        return
                    x = j[metric] / r[metric]
                    unit = "files/s" if metric == "files_per_s" else "MB/s"
                    target(s, m, p, label, f"{x:.2f}× ({j[metric]:,.0f} vs {r[metric]:,.0f} {unit})", x >= need,
                           load_note(j, r))

                if m == "tmpfs":
                    if s == "seed":
                        cands = [rows.get(names[k]) for k in ("aria2c", "curl", "wget2")]
                        cands = [r for r in cands if ok(r)]
                        if not cands:
                            target(s, m, p, "≥ fastest peer files/s", "no valid peer result", False)
                        else:
                            best = max(cands, key=lambda r: r["files_per_s"])
                            x = j["files_per_s"] / best["files_per_s"]
                            target(s, m, p, f"≥ 1.00 × fastest peer files/s ({best['tool']})",
                                   f"{x:.2f}× ({j['files_per_s']:,.0f} vs {best['files_per_s']:,.0f} files/s)", x >= 1.0,
                                   load_note(j, best))
                    elif s == "many":
                        ratio("curl", "files_per_s", 1.0, "≥ 1.00 × curl files/s")
                        ratio("aria2c", "files_per_s", 3.0, "≥ 3.00 × aria2c files/s")
                    elif s == "large":
                        ratio("curl", "mb_per_s", 1.2, "≥ 1.20 × curl MB/s (sha256 included)")
                else:
                    metric = "mb_per_s" if s == "large" else "files_per_s"
                    ratio("curl", metric, 0.95, f"≥ 0.95 × curl {'MB/s' if s == 'large' else 'files/s'}")
                    ref = rows.get("ref-curl-h1-syncfs")
                    if p == "h1" and ok(ref):
                        x = j[metric] / ref[metric]
                        infos.append((s, m, p, "(not a target) jobrun ÷ curl followed by `sync -f`",
                                      f"{x:.2f}× ({ref['wall_median_s']:.3f} s for curl + sync)", load_note(j, ref)))

    print("### Targets (ratios from this run; jobrun against peers of the same protocol, same pass)\n")
    print("| set | medium | protocol | target | measured | result | noise |")
    print("|---|---|---|---|---|---|---|")
    for s, m, p, desc, shown, passed, note in targets:
        print(f"| {s} | {m} | {PROTO_LABEL[p]} | {desc} | {shown} | {'PASS' if passed else '**FAIL**'} | {note} |")
    for s, m, p, desc, shown, note in infos:
        print(f"| {s} | {m} | {PROTO_LABEL[p]} | {desc} | {shown} | info | {note} |")
    npass = sum(1 for t in targets if t[5])
    print(f"\n{npass} of {len(targets)} targets passed.")
    with open(os.path.join(a.out, "failed.txt"), "w") as fh:
        for s, m, p in sorted(failed):
            fh.write(f"{s} {m} {p}\n")
    sys.exit(0 if npass == len(targets) else 1)


if __name__ == "__main__":
    main()
