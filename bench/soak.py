#!/usr/bin/env python3
"""The chaos soak of `jobrun apply` (`make soak`; docs/soak.md says what it proves).

  bench/soak.py PATH-TO-JOBRUN

1. Generates SOAK_SLICES files (seeded; log-uniform from 1 KiB to 4 MiB) and one
   manifest: a third of the slices declare size and sha256, a third size only, a third neither.
2. Serves them with Tests/Support/faultserver.py in chaos mode: SOAK_CHAOS_PERCENT % of the
   requests meet a fault drawn at random (reset, truncation, stall, 5xx, 429 with Retry-After,
   a corrupted byte, a 206 of another version answering a resume, Range ignored, a 200 with
   Content-Range). A corrupted byte is drawn only for slices with a digest: without one, no
   client could tell it from the file.
3. Runs `jobrun apply`, SIGKILLs it SOAK_KILLS times and restarts it; kill k comes a seeded
   random delay after the mirror holds a seeded random share of the slices, the shares rising
   run after run so that every run commits something. The run after the last kill goes to its end.
   With SOAK_ORIGINS=3 every resource has three origins (base_urls), each its own fault server
   instead: the first corrupts SOAK_CORRUPT_PERCENT (10) % of the bodies of slices with a digest,
   the second resets half of its connections, the third sends five times slower than the other
   two; every run writes its events, to check that each settled slice names its origin.
4. Turns chaos off (the server's /_chaos route), applies once more and runs `jobrun verify`.
5. Checks (soak_checks.py) and prints the figures; exits 1 when a check fails, 2 when the soak
   itself could not run.

Environment: SOAK_SLICES (10000), SOAK_SEED (1), SOAK_KILLS (10), SOAK_CHAOS_PERCENT (30),
SOAK_ORIGINS (1, or 3), SOAK_CORRUPT_PERCENT (10, with three origins), SOAK_PACE (0.02 ms per KiB at
the two faster origins: 50 MiB/s a connection), SOAK_PRUNE (0, or 1: every apply runs with --prune;
one slice in twenty leaves the manifest before the clean apply, which must move exactly those
files to the trash, byte-identical, and nothing a manifest names), SOAK_PUBLISH (0, or 1: every
resource has `publish: atomic`; the kills land in stages, and the clean apply must leave every
resource published, no stage left),
SOAK_DIR (/tmp/jobrun-soak; emptied first, only if it is a soak folder; after a pass only its
logs/ are left, after a failure everything), SOAK_TIMEOUT (600 s:
the whole soak fails past it), JOBRUN_PYTHON (the server's interpreter, default this one).
"""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

import soak_checks

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FAULTSERVER = os.path.join(REPO, "Tests", "Support", "faultserver.py")
MARKER = ".jobrun-soak"
KINDS = ("sha256", "size", "none")  # what a slice declares: size and sha256, size only, neither
SLICES_PER_RESOURCE = 250
MIN_SIZE, MAX_SIZE = 1 << 10, 4 << 20
POOL_SIZE = MAX_SIZE * 4
# 429 is drawn a fifth as often as the others: each one pauses the whole host for its
# Retry-After second, and at the weight of the others they would dominate the soak's time.
# Another version answering a resume (etag) can only meet the few requests that resume, the
# splice it tempts is the worst outcome, so among those it is drawn three times as often.
CHAOS_FAULTS = "reset,truncate,stall,5xx,429:0.2,corrupt,etag:3,norange,partial200"
MANIFEST_SETTINGS = """\
  concurrency: {total: 16, per_host: 16}
  retries: {attempts: 5, backoff: {initial: 100ms, max: 2s, multiplier: 2}}
  timeouts: {connect: 2s, request: 2s, resource: 10m}
"""


class SoakError(Exception):
    """The soak itself could not run (not a finding about jobrun)."""


def environment_int(name, default, minimum=0):
    text = os.environ.get(name, "")
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SoakError("%s must be an integer, not %r" % (name, text))
    if value < minimum:
        raise SoakError("%s must be at least %d" % (name, minimum))
    return value


def prepare_folder(path):
    """SOAK_DIR, emptied: only a folder this script made (it holds MARKER) or an empty one."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise SoakError("SOAK_DIR %s is not a folder" % path)
        if os.listdir(path) and not os.path.exists(os.path.join(path, MARKER)):
            raise SoakError("SOAK_DIR %s is not empty and was not made by the soak; not touching it" % path)
        shutil.rmtree(path)
    os.makedirs(os.path.join(path, "logs"))
    open(os.path.join(path, MARKER), "w").close()


def slice_size(generator):
    """Log-uniform in [MIN_SIZE, MAX_SIZE]: the median is 64 KiB, the mean about half a MiB, and
    one slice in six is at least 1 MiB (resumable)."""
    return int(MIN_SIZE * (MAX_SIZE / MIN_SIZE) ** generator.random())


def generate(folder, count, seed):
    """The source files under folder/src and their records: key (resource/kind/name, which is
    also the URL path and the mirror path), kind, size, sha256."""
    generator = random.Random("%d:sizes" % seed)
    pool = random.Random("%d:pool" % seed).randbytes(POOL_SIZE)
    slices = []
    for index in range(count):
        resource = "r%03d" % (index // SLICES_PER_RESOURCE)
        kind = KINDS[index % 3]
        size = slice_size(generator)
        offset = generator.randrange(POOL_SIZE - size)
        # A header of its own makes every file unique, whatever part of the pool it shares.
        header = hashlib.sha256(b"%d:%d" % (seed, index)).digest()[:min(32, size)]
        body = memoryview(pool)[offset:offset + size - len(header)]
        key = "%s/%s/%05d.bin" % (resource, kind, index)
        path = os.path.join(folder, "src", key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(header)
            handle.write(body)
        digest = hashlib.sha256(header)
        digest.update(body)
        slices.append({"key": key, "kind": kind, "size": size, "sha256": digest.hexdigest()})
    return slices


def write_manifest(path, slices, base_urls, publish=False):
    lines = ["# generated by bench/soak.py; do not edit\n", "version: 1\n", "defaults:\n",
             "  output: ./mirror\n", MANIFEST_SETTINGS, "resources:\n"]
    current = None
    for record in slices:
        resource, name = record["key"].split("/", 1)
        if resource != current:
            current = resource
            origins = ", ".join("%s/%s/" % (base, resource) for base in base_urls)
            lines += ["  - id: %s\n" % resource, "    base_urls: [%s]\n" % origins]
            if publish:
                lines.append("    publish: atomic\n")
            lines.append("    slices:\n")
        lines.append("      - path: %s\n" % name)
        if record["kind"] != "none":
            lines.append("        size: %d\n" % record["size"])
        if record["kind"] == "sha256":
            lines.append("        sha256: %s\n" % record["sha256"])
    with open(path, "w") as handle:
        handle.writelines(lines)


class Server:
    """faultserver.py in chaos mode (or as one of three origins, with `extra` options); it exits
    when its stdin (our pipe) closes."""

    def __init__(self, folder, percent, seed, timeout, name="", faults=CHAOS_FAULTS, extra=()):
        python = os.environ.get("JOBRUN_PYTHON") or sys.executable
        command = [
            python, FAULTSERVER, "--root", os.path.join(folder, "src"),
            "--log", os.path.join(folder, "logs", "requests%s.jsonl" % name), "--max-seconds", str(timeout + 120),
            "--chaos-percent", str(percent), "--chaos-seed", str(seed), "--chaos-faults", faults,
            "--chaos-only", "corrupt=^/r[0-9]+/sha256/"] + list(extra)
        self.stderr = open(os.path.join(folder, "logs", "server%s.stderr" % name), "w")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        line = self.process.stdout.readline()
        if not line:
            raise SoakError("the fault server did not start; see %s" % self.stderr.name)
        self.port = json.loads(line)["port"]
        self.base_url = "http://127.0.0.1:%d" % self.port

    def chaos(self, percent=None):
        query = "" if percent is None else "?percent=%s" % percent
        with urllib.request.urlopen(self.base_url + "/_chaos" + query, timeout=10) as response:
            return json.load(response)

    def refuse(self, percent):
        """Sets its share of connections reset; the control request itself may be reset."""
        for _ in range(50):
            try:
                with urllib.request.urlopen(self.base_url + "/_refused?percent=%s" % percent, timeout=10) as response:
                    return json.load(response)
            except OSError:
                continue
        raise SoakError("could not reach %s/_refused" % self.base_url)

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr.close()


def final_files(mirror):
    """Keys of the final files in the mirror (partial and metadata files start with a dot), and
    in the stages of resources published atomically (`.jobrun/publish/ID/next`, by published key):
    a file committed there is committed."""
    found = set()
    if not os.path.isdir(mirror):
        return found
    folders = [(resource.name, resource.path) for resource in os.scandir(mirror)
               if resource.is_dir(follow_symlinks=False) and resource.name != ".jobrun"]
    publish = os.path.join(mirror, ".jobrun", "publish")
    if os.path.isdir(publish):
        folders += [(resource.name, os.path.join(resource.path, "next")) for resource in os.scandir(publish)
                    if os.path.isdir(os.path.join(resource.path, "next"))]
    for name, path in folders:
        for kind in os.scandir(path):
            if kind.is_dir(follow_symlinks=False):
                found.update("%s/%s/%s" % (name, kind.name, entry.name)
                             for entry in os.scandir(kind.path) if not entry.name.startswith("."))
    return found


def kill_schedule(count, kills, seed):
    """(final files to wait for, then seconds to wait) for each kill. Kill k falls in the k-th of
    `kills` equal strata of the first 95% of the slices (never in the outer 15% of its stratum,
    so each run commits at least ~3% of them), then waits up to 1.5 s more so that it lands at a
    random point of a transfer or a commit rather than just after a file appeared."""
    generator = random.Random("%d:kills" % seed)
    schedule = []
    for k in range(kills):
        share = 0.95 * (k + 0.15 + 0.7 * generator.random()) / kills
        schedule.append((max(1, int(share * count)), 1.5 * generator.random()))
    return schedule


def origin_servers(folder, percent, seed, timeout, pace):
    """The three origins of SOAK_ORIGINS=3: one corrupting bodies, one resetting half of its
    connections, one five times slower than the others (`pace` ms per KiB at the first two)."""
    return [
        Server(folder, percent, seed, timeout, name="-corrupting", faults="corrupt", extra=["--slow-ms-per-kib", str(pace)]),
        Server(folder, 0, seed, timeout, name="-refusing",
               extra=["--refuse-percent", "50", "--refuse-seed", str(seed), "--slow-ms-per-kib", str(pace)]),
        Server(folder, 0, seed, timeout, name="-slow", extra=["--slow-ms-per-kib", str(5 * pace)]),
    ]


class Soak:
    def __init__(self, jobrun, folder, deadline, events=False, extra=()):
        self.events = events
        self.extra = list(extra)  # after `apply soak.yaml`
        self.jobrun = jobrun
        self.folder = folder
        self.mirror = os.path.join(folder, "mirror")
        self.manifest = os.path.join(folder, "soak.yaml")
        self.deadline = deadline
        self.runs = []       # {"name", "seconds", "ended", "status", "last_line", "files"}
        self.snapshots = []  # (monotonic time, frozenset of final files) before every restart
        self.timed_out = False

    def snapshot(self):
        self.snapshots.append((time.monotonic(), frozenset(final_files(self.mirror))))

    def start(self, name, arguments):
        if arguments[:1] == ["apply"]:
            arguments = arguments + self.extra
        if self.events and arguments[:1] == ["apply"]:
            arguments = arguments + ["--events", os.path.join(self.folder, "logs", name + ".ndjson")]
        out = open(os.path.join(self.folder, "logs", name + ".out"), "w")
        err = open(os.path.join(self.folder, "logs", name + ".err"), "w")
        process = subprocess.Popen([self.jobrun] + arguments, cwd=self.folder, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err)
        return process, out, err, time.monotonic()

    def finish(self, name, started, ended, status, files):
        last = ""
        with open(os.path.join(self.folder, "logs", name + ".out")) as handle:
            lines = handle.read().splitlines()
            last = lines[-1] if lines else ""
        record = {"name": name, "seconds": time.monotonic() - started, "ended": ended,
                  "status": status, "last_line": last, "files": files}
        self.runs.append(record)
        return record

    def run(self, name, arguments, kill_at=None):
        """Runs jobrun; with kill_at = (files, delay), SIGKILLs it `delay` s after the mirror
        holds `files` final files. Returns the run's record."""
        process, out, err, started = self.start(name, arguments)
        armed = None
        try:
            while process.poll() is None:
                now = time.monotonic()
                if now > self.deadline:
                    self.timed_out = True
                    process.kill()
                    process.wait()
                    return self.finish(name, started, "deadline", None, len(final_files(self.mirror)))
                if kill_at is not None:
                    if armed is None and len(final_files(self.mirror)) >= kill_at[0]:
                        armed = now + kill_at[1]
                    if armed is not None and now >= armed:
                        process.send_signal(signal.SIGKILL)
                        process.wait()
                        return self.finish(name, started, "killed", None, len(final_files(self.mirror)))
                time.sleep(0.05 if armed is not None else 0.2)
            return self.finish(name, started, "exited", process.returncode, len(final_files(self.mirror)))
        finally:
            out.close()
            err.close()

    def chaos_runs(self, schedule):
        """Applies until every kill of the schedule happened, then once to the end. A run that
        ends by itself before its kill is followed by another for the same kill (bounded)."""
        pending = list(schedule)
        number = 0
        self.snapshot()
        while not self.timed_out:
            number += 1
            kill_at = pending[0] if pending else None
            record = self.run("run-%02d" % number, ["apply", "soak.yaml"], kill_at)
            if record["ended"] == "killed":
                pending.pop(0)
            elif not pending or record["ended"] == "deadline" or record["status"] not in (0, 1):
                return
            elif number > len(schedule) + 5:
                return
            self.snapshot()


def main():
    try:
        if len(sys.argv) != 2:
            raise SoakError("usage: bench/soak.py PATH-TO-JOBRUN")
        jobrun = os.path.abspath(sys.argv[1])
        if not os.access(jobrun, os.X_OK):
            raise SoakError("%s is not an executable" % jobrun)
        count = environment_int("SOAK_SLICES", 10000, minimum=3)
        seed = environment_int("SOAK_SEED", 1)
        kills = environment_int("SOAK_KILLS", 10)
        origins = environment_int("SOAK_ORIGINS", 1, minimum=1)
        if origins not in (1, 3):
            raise SoakError("SOAK_ORIGINS must be 1 or 3")
        try:
            pace = float(os.environ.get("SOAK_PACE") or "0.02")
        except ValueError:
            raise SoakError("SOAK_PACE must be a number of milliseconds per KiB")
        percent = environment_int("SOAK_CORRUPT_PERCENT", 10) if origins == 3 else environment_int("SOAK_CHAOS_PERCENT", 30)
        prune = environment_int("SOAK_PRUNE", 0)
        if prune not in (0, 1):
            raise SoakError("SOAK_PRUNE must be 0 or 1")
        publish = environment_int("SOAK_PUBLISH", 0)
        if publish not in (0, 1):
            raise SoakError("SOAK_PUBLISH must be 0 or 1")
        timeout = environment_int("SOAK_TIMEOUT", 600, minimum=1)
        folder = os.path.abspath(os.environ.get("SOAK_DIR") or "/tmp/jobrun-soak")
        if percent > 100:
            raise SoakError("SOAK_CHAOS_PERCENT must be from 0 to 100")
    except SoakError as error:
        print("soak: %s" % error, file=sys.stderr)
        return 2

    began = time.monotonic()
    deadline = began + timeout
    if origins == 3:
        print("soak: %d slices, seed %d, %d kills, three origins (%d%% of bodies corrupted at one, half the connections"
              " reset at another, the third five times slower), in %s (fails past %d s)"
              % (count, seed, kills, percent, folder, timeout), flush=True)
    else:
        print("soak: %d slices, seed %d, %d kills, %d%% of requests faulted, in %s (fails past %d s)"
              % (count, seed, kills, percent, folder, timeout), flush=True)
    servers = []
    try:
        prepare_folder(folder)
        slices = generate(folder, count, seed)
        generated = time.monotonic()
        print("soak: generated %s in %.1f s" % (soak_checks.size_text(sum(s["size"] for s in slices)),
                                                 generated - began), flush=True)
        servers = origin_servers(folder, percent, seed, timeout, pace) if origins == 3 else [Server(folder, percent, seed, timeout)]
        bases = [server.base_url for server in servers]
        write_manifest(os.path.join(folder, "soak.yaml"), slices, bases, publish)
        # The prune's limit during chaos allows everything: what keeps it from pruning there is that
        # no run under chaos completes and that every file is named (none is dropped yet).
        soak = Soak(jobrun, folder, deadline, events=origins == 3, extra=["--prune", "--max-delete", "100%"] if prune else [])
        soak.chaos_runs(kill_schedule(count, kills, seed))
        dropped = []
        before = None
        if prune:
            # What the clean apply can prune: the dropped slices' files in place now, those a record
            # says jobrun fetched (a kill between a rename and its record leaves one found, not fetched).
            before = (final_files(soak.mirror), soak_checks.fetched_paths(soak.mirror))
            dropped = [record for index, record in enumerate(slices) if index % 20 == 7]
            slices = [record for index, record in enumerate(slices) if index % 20 != 7]
            write_manifest(os.path.join(folder, "soak.yaml"), slices, bases, publish)
            soak.extra = ["--prune", "--max-delete", "10%"]
        applied = servers[0].chaos(percent=0)
        refused = servers[1].refuse(0)["refused"] if origins == 3 else 0
        verify_status = None
        if not soak.timed_out:
            soak.snapshot()
            soak.run("clean", ["apply", "soak.yaml"])
        if not soak.timed_out:
            verify = soak.run("verify", ["verify", "soak.yaml", "--quiet"])
            verify_status = verify["status"]
        for server in servers:
            server.stop()
        servers = []
        ended = time.monotonic()
        figures = soak_checks.Figures(
            slices=slices, folder=folder, runs=soak.runs, snapshots=soak.snapshots, applied=applied["applied"],
            verify_status=verify_status, seconds=ended - began, generate_seconds=generated - began,
            timeout=timeout, timed_out=soak.timed_out, kills=kills, origins=bases if origins == 3 else [], refused=refused,
            dropped=dropped if prune else None, before_clean=before, published=bool(publish))
        passed = soak_checks.report(figures)
        if passed:
            # The logs stay; the gigabytes go. A failed soak keeps everything to look at.
            for name in ("src", "mirror"):
                shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        return 0 if passed else 1
    except (SoakError, OSError) as error:
        print("soak: %s" % error, file=sys.stderr)
        return 2
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
