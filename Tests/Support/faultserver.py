#!/usr/bin/env python3
"""faultserver: a loopback HTTP/1.1 test server that injects faults selected by the URL path.

Standard library only. Binds 127.0.0.1 on random ports and prints one JSON line when ready:

    {"port": N, "second_port": M|null, "tls_port": T|null, "ca_file": PATH|null, "pid": P}

It exits when its stdin reaches end-of-file (so a test process that dies cannot leak it), after
--max-seconds, or on SIGTERM/SIGINT.

Routes (any of them may be prefixed by one or more /fault/<spec>/ groups):
    /gen/<size>/<name>       <size> bytes; byte i = sha256(utf8(name + ":" + str(i // 32)))[i % 32]
    /zeros/<size>[/<any>]    <size> zero bytes (compresses well: decompression-bomb tests)
    /<path>                  the file <root>/<path> (with --root)
    /status/<code>[?retry_after=V]
    /http09/<text>           <text> as an HTTP/0.9 reply: the body alone, no status line or head
    /redirect/<n>/<path>     n hops of 302, then <path> (n = 0 serves <path> at once)
    /redirect-loop/<path>    302 to itself, forever
    /redirect-port/<port>/<path>   302 to http://127.0.0.1:<port>/<path> (another server's)
    /redirect-to?url=U[&status=302]
    /_digest/<path>[?alg=sha256&version=V]   hex digest of the identity bytes <path> serves
    /_chaos[?percent=P]      chaos mode's settings and counts as JSON; sets its percentage
    /_refused[?percent=P]    connections accepted and refused so far as JSON; sets --refuse-percent

Representation version V > 0 (etag_version=/change_after=) XORs every byte with V & 0xFF and
changes ETag and Last-Modified (+V hours). The query string never changes content.

A spec is ';'-separated key=value options (FAULT_OPTIONS below); README.md beside this file is
the full reference, Sources/JobrunTestSupport/FaultServer.swift the Swift harness.

Chaos mode (--chaos-percent P, chaos.py): a fault drawn at random for P% of the content requests.

A slower or flakier origin (server-wide): --refuse-percent P resets P% of the accepted connections
before reading a request (drawn by --refuse-seed and the connection's number); --latency-ms L
waits L ms before every counted response; --slow-ms-per-kib X paces every content body to take
at least X ms per KiB.

Request log (--log FILE): one JSON object per line, written and flushed when the response ends.
"""

import argparse
import email.utils
import functools
import gzip
import hashlib
import http.server
import json
import os
import random
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import chaos

CHUNK = 65536
BLOCK = 32
# Last-Modified of synthetic content: 2024-01-01T00:00:00Z, plus one hour per version.
BASE_MTIME = 1704067200
# With TCP_NOTSENT_LOWAT 1 a socket polls writable only once nothing written is left unsent.
TCP_NOTSENT_LOWAT = getattr(socket, "TCP_NOTSENT_LOWAT", None)
# poll's "the peer closed its end" (Linux); 0 elsewhere.
POLLRDHUP = getattr(select, "POLLRDHUP", 0)

INT_OPTIONS = {
    "status", "n", "from", "reset_at", "truncate_at", "drip", "stall_at", "wrong_bytes",
    "ignore_range", "etag_version", "change_after", "wrong_content_range", "length", "gzip",
    "delay_ms", "no_etag", "weak_etag", "no_last_modified", "close", "chunked", "ignore_conditional",
    "ignore_if_range", "range_as_200", "partial_200", "no_length", "header_bytes", "wrong_byte_at",
    "stall_s", "bad_chunk_at", "max_in_flight",
}
FAULT_OPTIONS = INT_OPTIONS | {"retry_after", "transfer_encoding"}
# Options that describe the representation rather than one response: they ignore n= and from=.
REPRESENTATION_OPTIONS = {"etag_version", "change_after"}


class SpecError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Content


@functools.lru_cache(maxsize=1024)  # at most 64 MiB of generated chunks
def gen_chunk(name, index):
    """Bytes [index*CHUNK, (index+1)*CHUNK) of the /gen stream for `name`."""
    prefix = (name + ":").encode("utf-8")
    first = index * (CHUNK // BLOCK)
    return b"".join(
        hashlib.sha256(prefix + str(block).encode("ascii")).digest()
        for block in range(first, first + CHUNK // BLOCK))


class GenContent:
    def __init__(self, size, name):
        self.size = size
        self.name = name
        self.identity = "gen:%d:%s" % (size, name)
        self.mtime = BASE_MTIME

    def read(self, start, end):
        end = min(end, self.size)
        if start >= end:
            return b""
        parts = []
        position = start
        while position < end:
            index, offset = divmod(position, CHUNK)
            take = min(CHUNK - offset, end - position)
            parts.append(gen_chunk(self.name, index)[offset:offset + take])
            position += take
        return b"".join(parts)


class ZerosContent:
    def __init__(self, size):
        self.size = size
        self.identity = "zeros:%d" % size
        self.mtime = BASE_MTIME

    def read(self, start, end):
        return bytes(max(0, min(end, self.size) - start))


class FileContent:
    def __init__(self, path, relative):
        info = os.stat(path)
        self.path = path
        self.size = info.st_size
        self.identity = "file:%s:%d:%d:%d" % (relative, info.st_size, info.st_mtime_ns, info.st_ino)
        self.mtime = int(info.st_mtime)

    def read(self, start, end):
        end = min(end, self.size)
        if start >= end:
            return b""
        with open(self.path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start)


class Representation:
    """What one response carries: content at a version, maybe corrupted, maybe gzip-encoded."""

    def __init__(self, content, version, flip_at=None, gzip_encoded=False):
        self.base = content
        self.version = version
        self.table = None
        if version & 0xFF:
            key = version & 0xFF
            self.table = bytes(value ^ key for value in range(256))
        self.flip_at = flip_at if flip_at is not None and 0 <= flip_at < content.size else None
        self.size = content.size
        self.gzip_data = None
        if gzip_encoded:
            self.gzip_data = gzip.compress(self._identity_read(0, content.size), mtime=0)
            self.size = len(self.gzip_data)
        coding = "gzip" if gzip_encoded else "identity"
        digest = hashlib.sha256(("%s|v%d|%s" % (content.identity, version, coding)).encode()).hexdigest()
        self.etag = '"%s"' % digest[:24]
        self.mtime = content.mtime + 3600 * version

    def _identity_read(self, start, end):
        data = self.base.read(start, end)
        if self.table is not None:
            data = data.translate(self.table)
        if self.flip_at is not None and start <= self.flip_at < start + len(data):
            mutable = bytearray(data)
            mutable[self.flip_at - start] ^= 0xFF
            data = bytes(mutable)
        return data

    def read(self, start, end):
        if self.gzip_data is not None:
            return self.gzip_data[start:end]
        return self._identity_read(start, end)


# ---------------------------------------------------------------------------------------------
# Request parsing


def parse_spec(text):
    options = {}
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        value = value.strip()
        if key not in FAULT_OPTIONS:
            raise SpecError("unknown fault option %r (known: %s)" % (key, ", ".join(sorted(FAULT_OPTIONS))))
        if not sep:
            value = "1"
        if key in INT_OPTIONS:
            try:
                options[key] = int(value)
            except ValueError:
                raise SpecError("fault option %s needs an integer, not %r" % (key, value))
        else:
            options[key] = value
    return options


def split_faults(path):
    """('/fault/a=1/fault/b=2/gen/1/x') -> ([{'a':1}, {'b':2}], '/gen/1/x')."""
    groups = []
    while path.startswith("/fault/"):
        spec, _, rest = path[len("/fault/"):].partition("/")
        groups.append(parse_spec(urllib.parse.unquote(spec)))
        path = "/" + rest
    return groups, path


def merge_active(groups, number):
    """Options of the groups active for the `number`th request (1-based) of a URL."""
    active = {}
    representation = {}
    for group in groups:
        for key in REPRESENTATION_OPTIONS & group.keys():
            representation[key] = group[key]
        first = group.get("from", 1)
        count = group.get("n")
        if number >= first and (count is None or number < first + count):
            active.update({k: v for k, v in group.items() if k not in REPRESENTATION_OPTIONS})
    version = representation.get("etag_version", 0)
    if "change_after" in representation and number > representation["change_after"]:
        version += 1
    return active, version


def parse_range(value, size):
    """None: ignore the header (serve 200); 'unsatisfiable'; or (start, end_exclusive)."""
    value = value.strip()
    if not value.startswith("bytes="):
        return None
    spec = value[len("bytes="):].strip()
    if "," in spec:
        return None  # multiple ranges: served as a full 200, which RFC 9110 allows
    first, sep, last = spec.partition("-")
    first, last = first.strip(), last.strip()
    if not sep or (first and not first.isdigit()) or (last and not last.isdigit()) or (not first and not last):
        return None
    if not first:  # suffix: the last `last` bytes
        length = int(last)
        if length == 0 or size == 0:
            return "unsatisfiable"
        return (max(0, size - length), size)
    start = int(first)
    end = int(last) + 1 if last else size
    if last and int(last) < start:
        return None
    if start >= size:
        return "unsatisfiable"
    return (start, min(end, size))


def http_date(timestamp):
    return email.utils.formatdate(timestamp, usegmt=True)


def retry_after_value(spec):
    if spec.startswith("date:"):
        return http_date(time.time() + float(spec[len("date:"):]))
    return spec


# ---------------------------------------------------------------------------------------------
# Server


def flip_position(options, size):
    """The byte that wrong_byte_at= or wrong_bytes=1 corrupts, if any."""
    if "wrong_byte_at" in options:
        return options["wrong_byte_at"]
    return size // 2 if options.get("wrong_bytes") else None


class Refusal:
    """--refuse-percent: the share of accepted connections reset before a request is read.
    Whether connection number k is refused is a pure function of the seed and k, so the same
    seed refuses the same connection numbers in every run; `percent` can change while the
    server runs (/_refused)."""

    def __init__(self, percent=0.0, seed=0):
        self.seed = seed
        self.lock = threading.Lock()
        self._percent = percent
        self.refused = 0

    def set_percent(self, percent):
        with self.lock:
            self._percent = percent

    def refuses(self, number):
        """Whether the `number`th accepted connection is refused (and counted if so)."""
        with self.lock:
            percent = self._percent
        if percent <= 0:
            return False
        if percent < 100 and random.Random("refuse:%d:%d" % (self.seed, number)).random() * 100 >= percent:
            return False
        with self.lock:
            self.refused += 1
        return True

    def describe(self, accepted):
        with self.lock:
            return {"percent": self._percent, "seed": self.seed, "accepted": accepted, "refused": self.refused}


class State:
    def __init__(self, root, log_path, chaos_mode, refusal=None, latency_ms=0.0, slow_ms_per_kib=0.0):
        self.root = os.path.realpath(root) if root else None
        self.chaos = chaos_mode
        self.refusal = refusal if refusal is not None else Refusal()
        # --latency-ms and --slow-ms-per-kib, in seconds and seconds per body byte.
        self.latency = latency_ms / 1000.0
        self.seconds_per_byte = slow_ms_per_kib / 1000.0 / 1024.0
        self.lock = threading.Lock()
        self.counters = {}
        self.connections = 0
        self.in_flight = 0
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None

    def next_connection(self):
        with self.lock:
            self.connections += 1
            return self.connections

    def accepted(self):
        with self.lock:
            return self.connections

    def enter(self, most):
        """Takes a place among the requests in flight that carry max_in_flight; False (and
        none taken) when `most` are in flight already."""
        with self.lock:
            if self.in_flight >= most:
                return False
            self.in_flight += 1
            return True

    def leave(self):
        with self.lock:
            self.in_flight -= 1

    def count(self, key):
        with self.lock:
            number = self.counters.get(key, 0) + 1
            self.counters[key] = number
            return number

    def write_log(self, record):
        if self.log is None:
            return
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self.lock:
            self.log.write(line)
            self.log.flush()


class ClientGone(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultserver/1"
    sys_version = ""
    timeout = 60  # an idle keep-alive connection is closed after this long

    def __init__(self, request, client_address, server, connection_id):
        # Numbered when accepted (Server.process_request), in the order of the accepts.
        self.connection_id = connection_id
        super().__init__(request, client_address, server)

    def setup(self):
        self.should_reset = False
        if self.server.tls_context is not None:
            self.request.settimeout(10)
            self.request = self.server.tls_context.wrap_socket(self.request, server_side=True)
        super().setup()
        self.request_index = 0

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        sock = self.connection
        try:
            if self.should_reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        try:
            sock.close()
        except OSError:
            pass

    def log_message(self, format, *args):
        pass

    def version_string(self):
        return self.server_version

    # -- bookkeeping ---------------------------------------------------------------------------

    def send_header(self, keyword, value):
        self.response_headers.append([keyword, str(value)])
        super().send_header(keyword, value)

    def flush_headers(self):
        # The headers are a write of their own, and the last one of a response without a body.
        if getattr(self, "_headers_buffer", None):
            self.last_write_began = time.monotonic()
        super().flush_headers()

    def begin(self):
        self.request_index += 1
        self.response_headers = []
        self.status = None
        self.bytes_sent = 0
        self.chunked = False
        self.disconnected = False
        self.number = None
        self.target = None
        self.holds_place = False
        self.last_write_began = None
        self.record = {
            "time": time.monotonic(),
            "port": self.server.server_address[1],
            "scheme": self.server.scheme,
            "method": self.command,
            "path": self.path,
            "version": self.request_version,
            "headers": [[name, value] for name, value in self.headers.items()],
            "connection": self.connection_id,
            "request_in_connection": self.request_index,
        }

    def end(self):
        """Logs the request once its response is over. `end_time` is when the last write of the
        response began, not now: the client may have read the end of the response, and sent its
        next request, before this thread runs again (it may be waiting for the GIL), and a log
        must never show a response ending after the next request arrived. No write at all (the
        client hung up before the headers) leaves now."""
        ended = self.last_write_began if self.last_write_began is not None else time.monotonic()
        self.record.update({
            "end_time": ended,
            "request_number": self.number,
            "status": self.status,
            "bytes_sent": self.bytes_sent,
            "client_disconnected": self.disconnected,
            "response_headers": self.response_headers,
        })
        self.server.state.write_log(self.record)

    def respond_head(self, status, headers):
        self.status = status
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if self.close_connection and not any(n.lower() == "connection" for n, _ in headers):
            self.send_header("Connection", "close")
        self.end_headers()

    def write(self, data, raw=False):
        """Body bytes (framed as one chunk under chunked=1); counted in bytes_sent unless `raw`."""
        framed = data
        if self.chunked and not raw:
            if not data:
                return
            framed = b"%x\r\n" % len(data) + data + b"\r\n"
        if not framed:
            return
        self.last_write_began = time.monotonic()
        try:
            self.wfile.write(framed)
        except (OSError, ssl.SSLError) as error:
            raise ClientGone() from error
        if not raw:
            self.bytes_sent += len(data)

    def status_only(self, code, extra):
        """The answer of status= and /status/: the code and its reason phrase as the body."""
        self.simple(code, "%d %s\n" % (code, self.responses.get(code, ("",))[0]), extra)

    def simple(self, status, text, extra=(), content_type="text/plain; charset=utf-8"):
        body = text.encode("utf-8")
        self.respond_head(status, [("Content-Type", content_type), ("Content-Length", str(len(body)))] + list(extra))
        if self.command != "HEAD":
            self.write(body)

    # -- entry points --------------------------------------------------------------------------

    def do_GET(self):
        self.serve()

    def do_HEAD(self):
        self.serve()

    def do_POST(self):
        self.serve()

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST

    def serve(self):
        self.begin()
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if length > 0:
                self.rfile.read(length)  # keep the connection in sync
            if self.command not in ("GET", "HEAD"):
                self.close_connection = True
                self.simple(405, "405 only GET and HEAD\n", [("Allow", "GET, HEAD")])
            else:
                self.route()
        except ClientGone:
            self.disconnected = True
            self.close_connection = True
        except SpecError as error:
            if self.status is None:
                self.simple(400, "400 %s\n" % error)
            else:
                self.close_connection = True
        except Exception as error:  # a bug here must not kill the connection thread silently
            sys.stderr.write("faultserver: %s %s: %r\n" % (self.command, self.path, error))
            self.close_connection = True
            if self.status is None:
                try:
                    self.simple(500, "500 %r\n" % error)
                except ClientGone:
                    self.disconnected = True
        finally:
            if self.holds_place:
                self.server.state.leave()
            self.end()

    def route(self):
        target, _, query_text = self.path.partition("?")
        query = urllib.parse.parse_qs(query_text, keep_blank_values=True)
        if target.startswith("/_digest/"):
            return self.serve_digest(target[len("/_digest"):], query)
        if target == "/_chaos":
            return self.serve_chaos_control(query)
        if target == "/_refused":
            return self.serve_refusal_control(query)

        groups, route = split_faults(target)
        self.number = self.server.state.count(target)
        self.target = target
        options, version = merge_active(groups, self.number)
        if self.server.state.latency > 0:
            # --latency-ms: a farther origin; before everything else, as a round trip would be.
            self.hold(self.server.state.latency)
        extra = []
        if "retry_after" in options:
            extra.append(("Retry-After", retry_after_value(options["retry_after"])))
        if options.get("close"):
            self.close_connection = True
        if options.get("header_bytes"):
            extra.append(("X-Padding", "a" * options["header_bytes"]))
        if options.get("max_in_flight"):
            # Over the cap, a 503 at once: an origin that takes only so many requests at a time.
            if not self.server.state.enter(options["max_in_flight"]):
                return self.status_only(503, extra)
            self.holds_place = True
        if options.get("delay_ms"):
            self.hold(options["delay_ms"] / 1000.0)
        if options.get("status"):
            code = options["status"]
            return self.status_only(code, extra)

        if route.startswith("/http09/"):
            self.wfile.write(route[len("/http09/"):].encode("utf-8"))
            self.close_connection = True
            return
        if route.startswith("/status/"):
            code_text = route[len("/status/"):].strip("/")
            if not code_text.isdigit() or not 100 <= int(code_text) <= 999:
                return self.simple(400, "400 bad status code %r\n" % code_text)
            if "retry_after" in query:
                extra.append(("Retry-After", retry_after_value(query["retry_after"][0])))
            code = int(code_text)
            return self.status_only(code, extra)
        if route.startswith("/redirect/"):
            count_text, _, rest = route[len("/redirect/"):].partition("/")
            if not count_text.isdigit():
                return self.simple(400, "400 /redirect/<n>/<path> needs a number\n")
            count = int(count_text)
            if count == 0:
                route = "/" + rest
            else:
                next_path = ("/redirect/%d/%s" % (count - 1, rest)) if count > 1 else "/" + rest
                return self.redirect(self.absolute(next_path, query_text), 302, extra)
        if route.startswith("/redirect-port/"):
            port_text, _, rest = route[len("/redirect-port/"):].partition("/")
            if not port_text.isdigit():
                return self.simple(400, "400 /redirect-port/<port>/<path> needs a port\n")
            location = "http://127.0.0.1:%s/%s" % (port_text, rest)
            return self.redirect(location + ("?" + query_text if query_text else ""), 302, extra)
        if route.startswith("/redirect-loop/"):
            return self.redirect(self.absolute(target, query_text), 302, extra)
        if route == "/redirect-to":
            if "url" not in query:
                return self.simple(400, "400 /redirect-to needs ?url=\n")
            status = int(query.get("status", ["302"])[0])
            return self.redirect(query["url"][0], status, extra)

        content = self.content_for(route)
        if content is None:
            return self.simple(404, "404 not found: %s\n" % route, extra)
        return self.serve_content(content, options, version, extra)

    def absolute(self, path, query_text):
        host = self.headers.get("Host") or "127.0.0.1:%d" % self.server.server_address[1]
        url = "%s://%s%s" % (self.server.scheme, host, path)
        return url + ("?" + query_text if query_text else "")

    def redirect(self, location, status, extra):
        body = "%d redirect to %s\n" % (status, location)
        self.simple(status, body, [("Location", location)] + extra)

    def content_for(self, route):
        if route.startswith("/gen/"):
            size_text, sep, name = route[len("/gen/"):].partition("/")
            if not size_text.isdigit() or not sep:
                raise SpecError("/gen/<size>/<name> needs a decimal size and a name")
            return GenContent(int(size_text), urllib.parse.unquote(name))
        if route.startswith("/zeros/"):
            size_text = route[len("/zeros/"):].partition("/")[0]
            if not size_text.isdigit():
                raise SpecError("/zeros/<size> needs a decimal size")
            return ZerosContent(int(size_text))
        root = self.server.state.root
        if root is None:
            return None
        relative = urllib.parse.unquote(route).lstrip("/")
        path = os.path.realpath(os.path.join(root, relative))
        if not (path == root or path.startswith(root + os.sep)) or not os.path.isfile(path):
            return None
        return FileContent(path, relative)

    def serve_digest(self, path, query):
        algorithm = query.get("alg", ["sha256"])[0]
        groups, route = split_faults(path)
        _, version = merge_active(groups, 1)
        if "version" in query:
            version = int(query["version"][0])
        content = self.content_for(route)
        if content is None:
            return self.simple(404, "404 not found: %s\n" % route)
        try:
            digest = hashlib.new(algorithm)
        except ValueError:
            return self.simple(400, "400 unknown digest algorithm %r\n" % algorithm)
        flip_at = content.size // 2 if query.get("wrong_bytes", ["0"])[0] == "1" else None
        representation = Representation(content, version, flip_at)
        for start in range(0, representation.size, CHUNK):
            digest.update(representation.read(start, start + CHUNK))
        self.simple(200, digest.hexdigest() + "\n", [("X-Content-Size", str(representation.size))])

    def set_percent(self, query, setter):
        """Passes `?percent=P` (0-100) to `setter` when given; False after answering 400 to a bad one."""
        if "percent" not in query:
            return True
        try:
            percent = float(query["percent"][0])
        except ValueError:
            percent = -1.0
        if not 0 <= percent <= 100:
            self.simple(400, "400 percent must be a number from 0 to 100\n")
            return False
        setter(percent)
        return True

    def serve_chaos_control(self, query):
        """GET /_chaos: the settings and the faults applied so far; ?percent=P sets the share."""
        mode = self.server.state.chaos
        if not self.set_percent(query, mode.set_percent):
            return
        body = json.dumps(mode.describe(), sort_keys=True) + "\n"
        self.simple(200, body, content_type="application/json")

    def serve_refusal_control(self, query):
        """GET /_refused: connections accepted and refused so far; ?percent=P sets the share of
        the connections accepted after this one that are refused."""
        state = self.server.state
        if not self.set_percent(query, state.refusal.set_percent):
            return
        body = json.dumps(state.refusal.describe(state.accepted()), sort_keys=True) + "\n"
        self.simple(200, body, content_type="application/json")

    def not_modified(self, representation, options):
        """Whether a conditional GET gets a 304 (RFC 9110 13.2.2): If-None-Match compares ETags
        weakly, and only without it does If-Modified-Since compare the date."""
        if options.get("ignore_conditional") or self.command != "GET":
            return False
        tags = self.headers.get("If-None-Match")
        if tags is not None:
            if options.get("no_etag"):
                return False
            listed = [t.strip() for t in tags.split(",")]
            return "*" in listed or any((t[2:] if t.startswith("W/") else t) == representation.etag for t in listed)
        since = self.headers.get("If-Modified-Since")
        if since is None or options.get("no_last_modified"):
            return False
        try:
            when = email.utils.parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False
        return representation.mtime <= when

    def if_range_matches(self, value, representation, options):
        value = value.strip()
        if value.startswith("W/"):
            return False
        if value.startswith('"'):
            return not options.get("no_etag") and not options.get("weak_etag") and value == representation.etag
        if options.get("no_last_modified"):
            return False
        try:
            stamp = email.utils.parsedate_to_datetime(value).timestamp()
        except (TypeError, ValueError, IndexError):
            return False
        return int(stamp) == representation.mtime

    def choose_range(self, representation, options):
        """(status, start, end) of the answer before the faults that reshape it; None for a 416."""
        status, start, end = 200, 0, representation.size
        range_header = self.headers.get("Range")
        if range_header is not None and not options.get("ignore_range"):
            parsed = parse_range(range_header, representation.size)
            if_range = self.headers.get("If-Range")
            honours = if_range is None or options.get("ignore_if_range") or self.if_range_matches(if_range, representation, options)
            if parsed is not None and honours:
                if parsed == "unsatisfiable":
                    return None
                status, (start, end) = 206, parsed
        return status, start, end

    def representation(self, content, options, version):
        return Representation(
            content, version, flip_position(options, content.size), bool(options.get("gzip")))

    def draw_chaos(self, content, options, version, extra):
        """Chaos mode's fault for this request merged into `options`: (options, version, extra),
        unchanged when none is drawn. The log line names the fault and its options."""
        mode = self.server.state.chaos
        has_range = self.headers.get("Range") is not None
        drawn = mode.draw(self.target, self.number, has_range)
        if drawn is None:
            return options, version, extra
        probe = self.representation(content, options, version)
        picked = self.choose_range(probe, options)
        if picked is None:
            return options, version, extra  # a 416 has no body to fault
        kind, generator = drawn
        _, start, end = picked
        faults, version = mode.options(kind, generator, start, end, probe.size, version, has_range)
        mode.count(kind)
        self.record["chaos"] = kind
        self.record["chaos_spec"] = chaos.spec_text(faults)
        if "retry_after" in faults:
            extra = extra + [("Retry-After", retry_after_value(faults["retry_after"]))]
        return dict(options, **faults), version, extra

    def serve_content(self, content, options, version, extra):
        options, version, extra = self.draw_chaos(content, options, version, extra)
        if options.get("status"):
            code = options["status"]
            return self.status_only(code, extra)
        representation = self.representation(content, options, version)
        size = representation.size
        if self.not_modified(representation, options):
            headers = []
            if not options.get("no_etag"):
                headers.append(("ETag", ("W/" if options.get("weak_etag") else "") + representation.etag))
            if not options.get("no_last_modified"):
                headers.append(("Last-Modified", http_date(representation.mtime)))
            return self.respond_head(304, headers + extra)
        picked = self.choose_range(representation, options)
        if picked is None:
            return self.simple(416, "", [("Content-Range", "bytes */%d" % size)] + extra)
        status, start, end = picked
        if options.get("wrong_content_range"):
            wrong = start + 1 if start + 1 < size else max(0, start - 1)
            status, start, end = 206, wrong, size
        has_range = status == 206
        if "partial_200" in options:
            status, start, end, has_range = 200, 0, min(size, max(0, options["partial_200"])), True
        if status == 206 and options.get("range_as_200"):
            status = 200

        if "transfer_encoding" in options:
            return self.serve_transfer_coded(representation, status, start, end, options["transfer_encoding"], extra)
        headers = [("Content-Type", "application/octet-stream")]
        declared = end - start
        if options.get("chunked"):
            self.chunked = True
            headers.append(("Transfer-Encoding", "chunked"))
        elif options.get("no_length"):
            self.close_connection = True  # the end of the body is the end of the connection
        else:
            if "length" in options:
                declared = options["length"]
                self.close_connection = True
            headers.append(("Content-Length", str(declared)))
        if has_range and end > start:
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start, end - 1, size)))
        if not options.get("no_etag"):
            headers.append(("ETag", ("W/" if options.get("weak_etag") else "") + representation.etag))
        if not options.get("no_last_modified"):
            headers.append(("Last-Modified", http_date(representation.mtime)))
        if not options.get("ignore_range"):
            headers.append(("Accept-Ranges", "bytes"))
        if options.get("gzip"):
            headers.append(("Content-Encoding", "gzip"))
        if "truncate_at" in options or "stall_at" in options or "bad_chunk_at" in options:
            self.close_connection = True
        self.respond_head(status, headers + extra)
        if self.command == "HEAD":
            return
        if self.send_body(representation, start, end, options) and self.chunked:
            self.write(b"0\r\n\r\n", raw=True)

    def serve_transfer_coded(self, representation, status, start, end, codings_text, extra):
        """The answer of transfer_encoding=: the body sent with those transfer codings, in order
        (gzip, then chunked framing when it is the last), as a server compressing on the wire
        does; no Content-Length, so without chunked the body ends with the connection."""
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        codings = [c.strip().lower() for c in codings_text.split(",") if c.strip()]
        body = representation.read(start, end)
        if "gzip" in codings:
            body = gzip.compress(body, mtime=0)
        headers = [
            ("Content-Type", "application/octet-stream"),
            ("Transfer-Encoding", ", ".join(codings)),
            ("ETag", representation.etag),
            ("Last-Modified", http_date(representation.mtime)),
        ]
        if status == 206:
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start, end - 1, representation.size)))
        if codings[-1:] == ["chunked"]:
            self.chunked = True
        else:
            self.close_connection = True
        self.respond_head(status, headers + extra)
        if self.command == "HEAD":
            return
        step = self.pace_step(CHUNK)
        began = time.monotonic()
        for offset in range(0, len(body), step):
            piece = body[offset:offset + step]
            self.pace(began, offset + len(piece))
            self.write(piece)
        if self.chunked:
            self.write(b"0\r\n\r\n", raw=True)

    def send_body(self, representation, start, end, options):
        """Writes the body, or the part of it a fault allows; True when it was all sent."""
        total = end - start
        stop, mode = total, None
        for key in ("reset_at", "truncate_at", "stall_at", "bad_chunk_at"):
            if key in options and options[key] < stop:
                stop, mode = max(0, options[key]), key
        rate = options.get("drip", 0)
        step = self.pace_step(max(1, rate // 100) if rate > 0 else CHUNK)  # 10 ms ticks
        began = time.monotonic()
        sent = 0
        while sent < stop:
            count = min(step, stop - sent, CHUNK)
            self.pace(began, sent + count)
            self.write(representation.read(start + sent, start + sent + count))
            sent += count
            if rate > 0 and sent < stop:
                self.hold(began + sent / rate - time.monotonic())
        if mode == "reset_at":
            self.reset()
        elif mode == "truncate_at":
            self.close_connection = True
        elif mode == "bad_chunk_at":
            # A chunk size that is not hexadecimal: the client's chunked decoder must fail.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.write(b"zz\r\n", raw=True)
            self.close_connection = True
        elif mode == "stall_at":
            self.stall(options.get("stall_s", 60))
        return mode is None

    def pace_step(self, step):
        """The bytes per write of a body: `step`, or about 10 ms worth under --slow-ms-per-kib.
        A paced body turns TCP_NODELAY on: each small write must leave when it is written, not
        when the client's delayed ACK of the previous one comes back (up to 40 ms later)."""
        per_byte = self.server.state.seconds_per_byte
        if per_byte <= 0:
            return step
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return max(1, min(step, int(0.010 / per_byte)))

    def pace(self, began, count):
        """--slow-ms-per-kib: waits until a body begun at `began` may have sent `count` bytes, so
        its last byte leaves no sooner than its size allows. Each handler paces its own writes;
        nothing is shared between connections."""
        per_byte = self.server.state.seconds_per_byte
        if per_byte > 0:
            self.hold(began + count * per_byte - time.monotonic())

    def reset(self):
        """Abort the connection with a TCP RST once the bytes already written have left for the
        peer. SO_LINGER 0 (set when the handler finishes) drops unsent data, so first one
        `select` waits, at most 2 s, until the socket says nothing is left unsent (a client that
        stopped reading is reset all the same)."""
        self.close_connection = True
        self.should_reset = True
        try:
            self.wfile.flush()
            if TCP_NOTSENT_LOWAT is not None:
                self.connection.setsockopt(socket.IPPROTO_TCP, TCP_NOTSENT_LOWAT, 1)
                select.select([], [self.connection], [], 2)
        except OSError:
            pass  # the client is gone already: nothing to wait for

    def hold(self, seconds):
        """The injected pause of `delay_ms` and `drip`: wait `seconds` (the fault itself, not a
        test waiting for something); raises ClientGone as soon as the client hangs up."""
        if self.watch(seconds, consume=False):
            raise ClientGone()

    def stall(self, seconds):
        """Send nothing more; return when the client closes the connection or after `seconds`."""
        self.close_connection = True
        if self.watch(seconds, consume=True):
            self.disconnected = True

    def watch(self, seconds, consume):
        """Waits up to `seconds` for the client to hang up; True when it did. With `consume`,
        what the client sends is read and dropped (nothing more is answered on this
        connection); without, it stays unread (a pipelined request). POLLRDHUP reports the
        client's end of stream whether or not unread bytes come before it, so one poll waits
        for either the hang-up or the deadline (without POLLRDHUP, not on Linux, a closed
        socket still reports POLLHUP)."""
        sock = self.connection
        hangup = POLLRDHUP | select.POLLHUP | select.POLLERR
        poller = select.poll()
        poller.register(sock, hangup | (select.POLLIN if consume else 0))
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            events = poller.poll(remaining * 1000)
            if not events:
                continue
            if events[0][1] & hangup:
                return True
            try:
                data = sock.recv(4096)
            except ssl.SSLWantReadError:
                continue
            except (OSError, ValueError):  # ssl.SSLError is an OSError
                return True
            if not data:
                return True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, state, scheme, tls_context=None, port=0):
        self.state = state
        self.scheme = scheme
        self.tls_context = tls_context
        # SO_REUSEADDR (HTTPServer's allow_reuse_address): a server started again on the port
        # of one that just stopped binds at once.
        super().__init__(("127.0.0.1", port), Handler)

    def process_request(self, request, client_address):
        """Numbers the connection just accepted (all listeners share the count, in the order of
        the accepts), draws whether --refuse-percent refuses it, and serves or refuses it on a
        thread of its own (ThreadingMixIn's process_request, with the number passed on)."""
        number = self.state.next_connection()
        accepted = time.monotonic()
        if self.state.refusal.refuses(number):
            target, args = self.refuse, (request, number, accepted)
        else:
            target, args = self.serve_connection, (request, client_address, number)
        threading.Thread(target=target, args=args, daemon=True).start()

    def serve_connection(self, request, client_address, number):
        try:
            Handler(request, client_address, self, number)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def refuse(self, request, number, accepted):
        """Resets a refused connection without reading from it: SO_LINGER 0, so close sends RST.
        First it waits (at most 2 s) for the client's first bytes, so the client has seen its
        connect succeed and sent its request: it reads "connection reset by peer" (curl exit
        56), not a failed connect (exit 7). Logged before the reset, so a client that saw it
        finds the line there."""
        try:
            poller = select.poll()
            poller.register(request, select.POLLIN | POLLRDHUP | select.POLLHUP | select.POLLERR)
            poller.poll(2000)
        except OSError:
            pass
        self.state.write_log({
            "refused": True, "time": accepted, "end_time": time.monotonic(), "port": self.server_address[1],
            "scheme": self.scheme, "connection": number,
        })
        try:
            request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            request.close()
        except OSError:
            pass

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if isinstance(error, (ssl.SSLError, ConnectionError, TimeoutError)):
            return  # a client that rejects our certificate, or goes away during the handshake
        sys.stderr.write("faultserver: connection error: %r\n" % (error,))


def make_tls_context(directory):
    openssl = shutil.which("openssl")
    if openssl is None:
        raise SystemExit("faultserver: --tls needs the openssl command")
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    command = [
        openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ]
    result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise SystemExit("faultserver: openssl failed:\n" + result.stdout.decode(errors="replace"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"])
    return context, cert


def main():
    parser = argparse.ArgumentParser(description="Loopback HTTP test server with path-selected faults.")
    parser.add_argument("--root", help="serve files from this directory")
    parser.add_argument("--log", help="append one JSON line per request to this file")
    parser.add_argument("--tls", action="store_true", help="also serve HTTPS (self-signed, needs openssl)")
    parser.add_argument("--port", type=int, default=0, help="the primary HTTP port (default: a free one)")
    parser.add_argument("--second-port", action="store_true", help="also serve HTTP on a second port")
    parser.add_argument("--max-seconds", type=float, default=600, help="exit after this long (default 600)")
    parser.add_argument("--ignore-stdin", action="store_true", help="do not exit when stdin closes")
    parser.add_argument("--chaos-percent", type=float, default=0.0,
                        help="fault this share of content requests at random (0-100, default 0)")
    parser.add_argument("--chaos-seed", type=int, default=0, help="seed of the chaos draws (default 0)")
    parser.add_argument("--chaos-faults", default=",".join(chaos.KINDS),
                        help="KIND[:WEIGHT],… to draw from (default: all of %s)" % ",".join(chaos.KINDS))
    parser.add_argument("--chaos-only", action="append", default=[], metavar="KIND=REGEX",
                        help="draw KIND only for paths matching REGEX (repeatable)")
    parser.add_argument("--refuse-percent", type=float, default=0.0,
                        help="reset this share of accepted connections before reading a request (0-100, default 0)")
    parser.add_argument("--refuse-seed", type=int, default=0, help="seed of the refusal draws (default 0)")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="wait this long before answering each counted request (default 0)")
    parser.add_argument("--slow-ms-per-kib", type=float, default=0.0,
                        help="pace every content body to take at least this long per KiB (default 0)")
    args = parser.parse_args()
    if not 0 <= args.chaos_percent <= 100:
        parser.error("--chaos-percent must be from 0 to 100")
    if not 0 <= args.refuse_percent <= 100:
        parser.error("--refuse-percent must be from 0 to 100")
    if not 0 <= args.latency_ms < float("inf"):
        parser.error("--latency-ms must be a number of milliseconds, 0 or more")
    if not 0 <= args.slow_ms_per_kib < float("inf"):
        parser.error("--slow-ms-per-kib must be a number of milliseconds, 0 or more")
    try:
        chaos_mode = chaos.Chaos(
            args.chaos_percent, args.chaos_seed, chaos.parse_faults(args.chaos_faults),
            [chaos.parse_scope(text) for text in args.chaos_only])
    except chaos.ChaosError as error:
        parser.error(str(error))

    if args.root and not os.path.isdir(args.root):
        raise SystemExit("faultserver: --root %s is not a directory" % args.root)
    temporary = None
    done = threading.Event()
    try:
        state = State(
            args.root, args.log, chaos_mode, Refusal(args.refuse_percent, args.refuse_seed),
            args.latency_ms, args.slow_ms_per_kib)
        servers = [Server(state, "http", port=args.port)]
        second = Server(state, "http") if args.second_port else None
        tls = ca_file = None
        if args.tls:
            temporary = tempfile.mkdtemp(prefix="faultserver-tls-")
            context, ca_file = make_tls_context(temporary)
            tls = Server(state, "https", context)
        servers += [server for server in (second, tls) if server is not None]
        for server in servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True).start()

        signal.signal(signal.SIGTERM, lambda *_: done.set())
        signal.signal(signal.SIGINT, lambda *_: done.set())
        ready = {
            "port": servers[0].server_address[1],
            "second_port": second.server_address[1] if second else None,
            "tls_port": tls.server_address[1] if tls else None,
            "ca_file": ca_file,
            "pid": os.getpid(),
        }
        sys.stdout.write(json.dumps(ready) + "\n")
        sys.stdout.flush()

        if not args.ignore_stdin:
            def watch_stdin():
                try:
                    while os.read(0, 4096):
                        pass
                except OSError:
                    pass
                done.set()
            threading.Thread(target=watch_stdin, daemon=True).start()
        done.wait(args.max_seconds)
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # Connection threads may be stalled on purpose; do not wait for them.
    os._exit(0)


if __name__ == "__main__":
    main()
