#!/usr/bin/env python3
"""The failing-origin figure in docs/apply.md ("Failing origins"): how many requests and how long
`jobrun apply` takes for SLICES slices (default 60,000) on a loopback origin that answers 500 to
everything, with the manifest's default retries (the circuit breaker's host_failures 32).

  python3 bench/breaker.py BINARY [SLICES]

Starts Tests/Support/faultserver.py on 127.0.0.1, writes the manifest into a temporary folder,
runs the binary there, and prints the requests the server received and the wall time.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "Tests", "Support", "faultserver.py")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    slices = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
    with tempfile.TemporaryDirectory(prefix="jobrun-breaker-") as work:
        log = os.path.join(work, "requests.jsonl")
        server = subprocess.Popen([sys.executable, SERVER, "--log", log, "--max-seconds", "900"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = json.loads(server.stdout.readline())["port"]
            manifest = os.path.join(work, "failing.yaml")
            with open(manifest, "w") as f:
                f.write("version: 1\nresources:\n  - id: down\n")
                f.write("    base_url: http://127.0.0.1:%d/fault/status=500/gen/100/\n    slices:\n" % port)
                for i in range(slices):
                    f.write("      - {path: s%d.bin}\n" % i)
            started = time.monotonic()
            run = subprocess.run([binary, "apply", manifest, "--output", os.path.join(work, "mirror")],
                                 cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            elapsed = time.monotonic() - started
        finally:
            server.stdin.close()
            server.wait(timeout=30)
        with open(log) as f:
            requests = sum(1 for _ in f)
        for line in run.stdout.splitlines():
            if not line.startswith("! down/"):
                print(line)
        print("breaker: %d slices, %d requests, %.1f s, exit %d" % (slices, requests, elapsed, run.returncode))


if __name__ == "__main__":
    main()
