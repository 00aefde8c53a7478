"""Chaos mode of faultserver.py: a fault drawn at random for a share of the content requests.

A draw is a pure function of (seed, request path without its query, that path's request
number), so it does not depend on the order in which concurrent requests arrive: with the same
seed every URL meets the same sequence of faults in every run, and no lock guards the draw.
A drawn fault is a set of ordinary fault options (the /fault/<spec>/ vocabulary): the spec the
request log records can be replayed as a /fault/<spec>/ prefix.

README.md beside this file documents the command-line options and the /_chaos route.
"""

import random
import re
import threading

KINDS = ("reset", "truncate", "stall", "5xx", "429", "corrupt", "etag", "norange", "partial200")
# Only the answer to a resume (a request with Range) can ignore the range or splice in another
# version; serving a whole other version to a plain GET would be a legitimate change of the file.
RANGE_ONLY = frozenset({"etag", "norange"})
SERVER_ERRORS = (500, 502, 503, 504)
RETRY_AFTER_SECONDS = "1"


class ChaosError(ValueError):
    pass


def parse_faults(text):
    """'reset,truncate,429:0.2' -> [('reset', 1.0), ('truncate', 1.0), ('429', 0.2)]."""
    faults = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        kind, sep, weight_text = item.partition(":")
        if kind not in KINDS:
            raise ChaosError("unknown chaos fault %r (known: %s)" % (kind, ", ".join(KINDS)))
        weight = 1.0
        if sep:
            try:
                weight = float(weight_text)
            except ValueError:
                raise ChaosError("chaos fault weight of %s must be a number, not %r" % (kind, weight_text))
            if not weight >= 0:
                raise ChaosError("chaos fault weight of %s must not be negative" % kind)
        if any(known == kind for known, _ in faults):
            raise ChaosError("chaos fault %s is listed twice" % kind)
        faults.append((kind, weight))
    return faults


def parse_scope(text):
    """'corrupt=/sha256/' -> ('corrupt', compiled pattern searched in the path)."""
    kind, sep, pattern = text.partition("=")
    if not sep or kind not in KINDS:
        raise ChaosError("--chaos-only wants KIND=REGEX with KIND one of %s, not %r" % (", ".join(KINDS), text))
    try:
        return kind, re.compile(pattern)
    except re.error as error:
        raise ChaosError("--chaos-only %s: bad regular expression: %s" % (kind, error))


def spec_text(options):
    """The /fault/ spec of `options`, in a stable order."""
    return ";".join("%s=%s" % (key, options[key]) for key in sorted(options))


class Chaos:
    """The server-wide chaos settings; `percent` can change while the server runs (/_chaos)."""

    def __init__(self, percent=0.0, seed=0, faults=None, scopes=()):
        self.seed = seed
        self.faults = list(faults) if faults is not None else [(kind, 1.0) for kind in KINDS]
        self.scopes = dict(scopes)
        self.lock = threading.Lock()
        self._percent = percent
        self.applied = {kind: 0 for kind, _ in self.faults}

    @property
    def percent(self):
        with self.lock:
            return self._percent

    def set_percent(self, percent):
        with self.lock:
            self._percent = percent

    def draw(self, path, number, has_range):
        """The fault kind for the `number`th request of `path` and the generator its parameters
        come from, or None (served as it would be without chaos)."""
        percent = self.percent
        if percent <= 0:
            return None
        generator = random.Random("%d:%s:%d" % (self.seed, path, number))
        if generator.random() * 100 >= percent:
            return None
        candidates = [
            (kind, weight) for kind, weight in self.faults
            if weight > 0 and (has_range or kind not in RANGE_ONLY)
            and (kind not in self.scopes or self.scopes[kind].search(path))]
        if not candidates:
            return None
        kind = generator.choices([kind for kind, _ in candidates], [weight for _, weight in candidates])[0]
        return kind, generator

    def options(self, kind, generator, start, end, size, version, has_range):
        """The fault options (and the representation version) that make `kind` happen to an
        answer that would carry bytes [start, end) of a representation of `size` bytes."""
        length = max(1, end - start)
        if kind == "reset":
            return {"reset_at": generator.randrange(length)}, version
        if kind == "truncate":
            return {"truncate_at": generator.randrange(length)}, version
        if kind == "stall":
            return {"stall_at": generator.randrange(length)}, version
        if kind == "5xx":
            return {"status": generator.choice(SERVER_ERRORS)}, version
        if kind == "429":
            return {"status": 429, "retry_after": RETRY_AFTER_SECONDS}, version
        if kind == "corrupt":
            return {"wrong_byte_at": start + generator.randrange(length)}, version
        if kind == "etag":
            # A cache that ignores If-Range, answering with the next version of the file.
            return {"ignore_if_range": 1, "etag_version": version + 1}, version + 1
        if kind == "norange":
            return {"ignore_range": 1}, version
        if kind == "partial200":
            if has_range:
                return {"range_as_200": 1}, version
            # At least one byte: an empty 200 would carry no Content-Range, and be no fault.
            return {"partial_200": 1 + generator.randrange(max(1, size - 1))}, version
        raise ChaosError("unknown chaos fault %r" % kind)

    def count(self, kind):
        with self.lock:
            self.applied[kind] = self.applied.get(kind, 0) + 1

    def describe(self):
        with self.lock:
            return {
                "percent": self._percent,
                "seed": self.seed,
                "faults": {kind: weight for kind, weight in self.faults},
                "only": {kind: pattern.pattern for kind, pattern in sorted(self.scopes.items())},
                "applied": dict(self.applied),
            }
