"""The checks and figures of the chaos soak (bench/soak.py): reads the mirror, the fault server's
request log and the runs' records, prints the figures and one PASS/FAIL line per check."""

import concurrent.futures
import hashlib
import json
import os
import statistics
import glob
from dataclasses import dataclass, field

RESUME_THRESHOLD = 1 << 20


@dataclass
class Figures:
    slices: list           # {"key", "kind", "size", "sha256"} per slice
    folder: str
    runs: list             # {"name", "seconds", "ended", "status", "last_line", "files"} per run
    snapshots: list        # (monotonic time, frozenset of final files) taken before each restart
    applied: dict          # faults the server applied, by kind (its /_chaos count)
    verify_status: object  # int, or None when verify did not run
    seconds: float
    generate_seconds: float
    timeout: int
    timed_out: bool
    kills: int
    origins: list = field(default_factory=list)  # with SOAK_ORIGINS=3: the three base URLs, in order
    refused: int = 0                              # connections the second origin reset
    dropped: object = None                        # with SOAK_PRUNE=1: the slices the clean apply's manifest left out
    before_clean: object = None                   # with SOAK_PRUNE=1: (final files, paths recorded as fetched) before it
    published: bool = False                       # SOAK_PUBLISH=1: every resource has `publish: atomic`


def size_text(count):
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return ("%d %s" % (value, unit)) if unit == "B" else ("%.1f %s" % (value, unit))
        value /= 1024


def duration_text(seconds):
    minutes, rest = divmod(int(round(seconds)), 60)
    return "%dm %02ds" % (minutes, rest) if minutes else "%.1f s" % seconds


def read_requests(path):
    """The content requests of the log: (key, time, status, has Range, chaos kind or None, bytes)."""
    requests = []
    with open(path) as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("refused"):
                continue  # a connection reset before its request (an origin refusing half of them)
            target = record["path"].partition("?")[0]
            if target.startswith("/_"):
                continue  # the server's own routes (/_chaos)
            has_range = any(name.lower() == "range" for name, _ in record["headers"])
            requests.append((target.lstrip("/"), record["time"], record["status"], has_range,
                             record.get("chaos"), record["bytes_sent"]))
    return requests


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while True:
            block = handle.read(1 << 20)
            if not block:
                return digest.hexdigest()
            digest.update(block)


def compare_mirror(slices, mirror):
    """Counts of final files missing, truncated (shorter), longer, and corrupt (same size, other
    bytes), with up to five examples."""
    def check(record):
        path = os.path.join(mirror, record["key"])
        try:
            size = os.lstat(path).st_size
        except FileNotFoundError:
            return "missing"
        if size < record["size"]:
            return "truncated"
        if size > record["size"]:
            return "longer"
        return "ok" if file_sha256(path) == record["sha256"] else "corrupt"

    # hashlib releases the GIL on large buffers: threads use every core.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(check, slices))
    counts = {}
    examples = []
    for record, verdict in zip(slices, verdicts):
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict != "ok" and len(examples) < 5:
            examples.append("%s %s (%s)" % (verdict, record["key"], record["kind"]))
    return counts, examples


def fetched_paths(mirror):
    """The paths the mirror state records as fetched by jobrun (none without a store)."""
    import sqlite3
    path = os.path.join(mirror, ".jobrun", "state.sqlite")
    if not os.path.exists(path):
        return set()
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        # A stage's records are its resource's files: `.jobrun/publish/ID/next/PATH` is `ID/PATH`.
        paths = set()
        for (path,) in db.execute("SELECT path FROM slices WHERE fetched_at_ms IS NOT NULL"):
            parts = path.split("/", 4)
            paths.add("%s/%s" % (parts[2], parts[4]) if parts[:2] == [".jobrun", "publish"] and len(parts) == 5 and parts[3] == "next" else path)
        return paths
    finally:
        db.close()


def leftovers(mirror, ignored=()):
    """Partial and metadata files left, but those of `ignored` keys (slices no manifest names any
    more: a partial download of one is no run's to remove)."""
    ignored = {os.path.join(os.path.dirname(k), "." + os.path.basename(k)) for k in ignored}
    count = 0
    for folder, folders, names in os.walk(mirror):
        if folder == mirror and ".jobrun" in folders:
            folders.remove(".jobrun")  # the trash keeps a pruned file's partial download with it
        relative = os.path.relpath(folder, mirror)
        count += sum(1 for name in names if name.startswith(".") and name.endswith((".jobrun-part", ".jobrun-meta"))
                     and os.path.join(relative, name.rsplit(".jobrun-", 1)[0]) not in ignored)
    return count


def refetches(requests, snapshots):
    """Requests for a slice that arrived after a snapshot (taken between two runs) in which its
    final file already existed."""
    committed_at = {}
    for moment, files in snapshots:
        for key in files:
            committed_at.setdefault(key, moment)
    return [(key, moment) for key, moment, *_ in requests if key in committed_at and moment > committed_at[key]]


def report(figures):
    """Prints the figures and the checks; True when every check passed."""
    slices = figures.slices
    mirror = os.path.join(figures.folder, "mirror")
    logs = sorted(glob.glob(os.path.join(figures.folder, "logs", "requests*.jsonl")))
    by_origin = [read_requests(path) for path in logs]
    # One timeline over every origin: the servers' times are the same monotonic clock.
    requests = sorted((r for log in by_origin for r in log), key=lambda r: r[1])
    sizes = sorted(record["size"] for record in slices)
    by_kind = {kind: sum(1 for r in slices if r["kind"] == kind) for kind in ("sha256", "size", "none")}
    faulted = [chaos for *_, chaos, _ in requests if chaos]
    ranged = [(status, chaos) for _, _, status, has_range, chaos, _ in requests if has_range]
    runs = figures.runs

    print()
    print("Slices      %d: %d with size and sha256, %d size only, %d neither" % (
        len(slices), by_kind["sha256"], by_kind["size"], by_kind["none"]))
    print("Bytes       %s (%d); %s to %s, median %s; %d slices of 1 MiB or more (resumable)" % (
        size_text(sum(sizes)), sum(sizes), size_text(sizes[0]), size_text(sizes[-1]),
        size_text(statistics.median(sizes)), sum(1 for size in sizes if size >= RESUME_THRESHOLD)))
    print("Requests    %d, %s of body sent; %d faulted (%.1f%%)" % (
        len(requests), size_text(sum(r[5] for r in requests)), len(faulted),
        100.0 * len(faulted) / max(1, len(requests))))
    print("Faults      " + ", ".join("%s %d" % (kind, figures.applied.get(kind, 0)) for kind in figures.applied))
    print("Retries     %d requests beyond the first of their slice" % (len(requests) - len({r[0] for r in requests})))
    print("Resumes     %d requests with Range: %d answered 206 as asked, %d 416 (the partial file was whole), %d faulted (%s)" % (
        len(ranged), sum(1 for status, chaos in ranged if status == 206 and not chaos),
        sum(1 for status, chaos in ranged if status == 416 and not chaos),
        sum(1 for _, chaos in ranged if chaos),
        ", ".join("%s %d" % (kind, n) for kind, n in sorted(_count(chaos for _, chaos in ranged if chaos).items()))))
    killed = [run for run in runs if run["ended"] == "killed"]
    print("Kills       %d (SIGKILL): %s" % (len(killed), ", ".join(
        "%s at %.1f s with %d final files" % (run["name"], run["seconds"], run["files"]) for run in killed)))
    print("Runs")
    for run in runs:
        how = {"killed": "killed", "deadline": "stopped at the deadline"}.get(run["ended"], "exit %s" % run["status"])
        line = "  %-7s %-8s %7.1f s  %5d final files" % (run["name"], how, run["seconds"], run["files"])
        if run["ended"] == "exited" and run["last_line"]:
            line += "  " + run["last_line"]
        print(line)
    print("Time        %s in all (generating the files %s)" % (duration_text(figures.seconds), duration_text(figures.generate_seconds)))

    dropped_keys = [r["key"] for r in figures.dropped or []]
    counts, examples = compare_mirror(slices, mirror)
    bad = len(slices) - counts.get("ok", 0)
    refetched = refetches(requests, figures.snapshots)
    chaos_runs = [run for run in runs if run["name"].startswith("run-")]
    clean = next((run for run in runs if run["name"] == "clean"), None)
    checks = [
        ("every kill landed and the last run under chaos ended by itself (exit 0 or 1)",
         len(killed) == figures.kills and bool(chaos_runs) and chaos_runs[-1]["ended"] == "exited"
         and chaos_runs[-1]["status"] in (0, 1)
         and all(run["ended"] == "killed" or run["status"] in (0, 1) for run in chaos_runs),
         "%d of %d kills" % (len(killed), figures.kills)),
        ("the clean apply completed (exit 0, 'Apply complete!')",
         clean is not None and clean["status"] == 0 and clean["last_line"].startswith("Apply complete!"),
         clean["last_line"] if clean else "did not run"),
        ("jobrun verify exits 0", figures.verify_status == 0, "exit %s" % figures.verify_status),
        ("every final file is byte-identical to its source (sha256)", bad == 0,
         "%d of %d identical; %s" % (counts.get("ok", 0), len(slices), ", ".join(
             "%d %s" % (counts.get(v, 0), v) for v in ("missing", "truncated", "longer", "corrupt")))
         + ("; e.g. " + "; ".join(examples) if examples else "")),
        ("no committed slice fetched again", not refetched,
         "%d requests for slices already final at a restart%s" % (len(refetched), (
             ": " + ", ".join(key for key, _ in refetched[:5])) if refetched else "")),
        ("no partial or metadata file left", leftovers(mirror, dropped_keys) == 0, "%d left" % leftovers(mirror, dropped_keys)),
        ("bounded in time", not figures.timed_out and figures.seconds <= figures.timeout,
         "%s of at most %s" % (duration_text(figures.seconds), duration_text(figures.timeout))),
    ]
    if figures.origins:
        checks += origin_checks(figures, requests, dict(zip(logs, by_origin)))
    if figures.dropped is not None:
        checks.append(prune_check(figures, mirror))
    if figures.published:
        checks.append(publish_check(figures, mirror))
    print("Checks")
    for name, passed, detail in checks:
        print("  %s  %s: %s" % ("PASS" if passed else "FAIL", name, detail))
    passed = all(passed for _, passed, _ in checks)
    print("Soak: %s" % ("PASS" if passed else "FAIL"))
    return passed


def killed_run_requests(requests, snapshots):
    """Requests made before a restart for slices that were not final at it: what the kills lost."""
    lost = 0
    moments = sorted(snapshots)[1:]  # the first snapshot is taken before the first run
    for key, moment, *_ in requests:
        after = next((finals for at, finals in moments if at > moment), None)
        if after is not None and key not in after:
            lost += 1
    return lost


def origin_checks(figures, requests, by_log):
    """With three origins: the requests per origin, and the checks that the spread and the
    failover cost few requests and that every settled slice names its origin."""
    for path, log in sorted(by_log.items()):
        print("Origin      %s: %d requests, %s" % (os.path.basename(path), len(log), size_text(sum(r[5] for r in log))))
    print("Refused     %d connections reset by the second origin" % figures.refused)
    named, unnamed, quarantines = 0, [], 0
    origins = {base.rstrip("/") for base in figures.origins}
    for path in sorted(glob.glob(os.path.join(figures.folder, "logs", "*.ndjson"))):
        with open(path) as handle:
            for line in handle:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # a run killed mid-line
                data = event.get("data", {})
                if event.get("type") in ("slice_done", "slice_failed", "slice_skipped"):
                    if data.get("origin") in origins:
                        named += 1
                    else:
                        unnamed.append("%s/%s" % (data.get("resource"), data.get("path")))
                if event.get("type") == "origin" and data.get("state") in ("quarantined", "still_quarantined"):
                    quarantines += 1
    print("Quarantine  %d origin events (quarantined, or still so at a run's start)" % quarantines)
    # A kill costs what was in flight and what was verified but not yet committed (a commit batch
    # holds up to 256): the requests of a killed run for slices not final at the restart after it.
    lost = killed_run_requests(requests, figures.snapshots)
    limit = int(1.15 * len(figures.slices))
    return [
        ("requests at most 1.15 x slices, those a kill lost aside", len(requests) - lost <= limit,
         "%d requests for %d slices, %.3f x; %d lost to kills; %d, %.3f x, without them (at most %d)" % (
             len(requests), len(figures.slices), len(requests) / max(1, len(figures.slices)), lost, len(requests) - lost,
             (len(requests) - lost) / max(1, len(figures.slices)), limit)),
        ("every settled slice names its origin", not unnamed and named > 0, "%d named, %d not%s" % (
            named, len(unnamed), (": " + ", ".join(unnamed[:5])) if unnamed else "")),
    ]


def prune_check(figures, mirror):
    """With SOAK_PRUNE=1: the clean apply moved to the trash, whole, every dropped slice's file that
    was in place before it with a record saying jobrun fetched it, left those without one (a kill
    between a rename and its record) in place, and put nothing the manifest names there."""
    trash = os.path.join(mirror, ".jobrun", "trash")
    trashed = {}
    for folder, _, names in os.walk(trash):
        for name in names:
            if not name.startswith("."):
                path = os.path.join(folder, name)
                trashed[os.path.relpath(path, trash).split(os.sep, 1)[1]] = path
    present, fetched = figures.before_clean
    kept = {record["key"] for record in figures.slices}
    expected = [r for r in figures.dropped if r["key"] in present and r["key"] in fetched]
    unknown = [r["key"] for r in figures.dropped if r["key"] in present and r["key"] not in fetched]
    wrong = [r["key"] for r in expected if r["key"] not in trashed or file_sha256(trashed[r["key"]]) != r["sha256"]]
    moved_unknown = [key for key in unknown if not os.path.lexists(os.path.join(mirror, key))]
    named = sorted(kept & set(trashed))
    extra = sorted(set(trashed) - {r["key"] for r in expected} - set(named))
    print("Pruned      %d files to the trash of %d dropped from the manifest (%d in place with a fetch record, %d without one, %d never fetched)" % (
        len(trashed), len(figures.dropped), len(expected), len(unknown), len(figures.dropped) - len(expected) - len(unknown)))
    bad = wrong + moved_unknown + named + extra
    return ("the clean apply pruned the dropped slices jobrun knows it fetched, whole, and nothing else",
            not bad and len(expected) > 0,
            "%d of %d in the trash byte-identical; %d without a fetch record stayed; %d moved that should have stayed, %d named, %d other in the trash%s" % (
                len(expected) - len(wrong), len(expected), len(unknown) - len(moved_unknown), len(moved_unknown), len(named), len(extra),
                (": e.g. " + ", ".join(bad[:5])) if bad else ""))


def publish_check(figures, mirror):
    """With SOAK_PUBLISH=1: after the clean apply, every resource's folder is published (a
    folder, not a link) and no stage is left."""
    resources = sorted({record["key"].split("/", 1)[0] for record in figures.slices})
    unpublished = [r for r in resources if os.path.islink(os.path.join(mirror, r)) or not os.path.isdir(os.path.join(mirror, r))]
    publish = os.path.join(mirror, ".jobrun", "publish")
    stages = sorted(r for r in (os.listdir(publish) if os.path.isdir(publish) else []) if os.path.lexists(os.path.join(publish, r, "next")))
    retired = sum(len([n for n in os.listdir(os.path.join(publish, r)) if n != "next"]) for r in (os.listdir(publish) if os.path.isdir(publish) else []))
    return ("every resource published atomically and no stage left", not unpublished and not stages and bool(resources),
            "%d of %d published, %d stages left, %d replaced versions kept%s" % (
                len(resources) - len(unpublished), len(resources), len(stages), retired,
                (": e.g. " + ", ".join((unpublished + stages)[:5])) if unpublished or stages else ""))


def _count(items):
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts
