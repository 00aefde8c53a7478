#!/usr/bin/env python3
"""Validates jobrun event streams (NDJSON from --events) against a JSON Schema (draft 2020-12).

    python3 Tests/Support/eventschema.py docs/events.schema.json EVENTS.ndjson...

Prints one line per problem (file, line number, the event's path and the reason) and exits 1
when there is any, 0 when every line of every file is a valid event, and 3 when this Python
has no `jsonschema` (Debian: python3-jsonschema), so the caller can try another interpreter.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("eventschema.py: this Python has no jsonschema module (Debian: python3-jsonschema)", file=sys.stderr)
    sys.exit(3)


def main(arguments):
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(arguments[0], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = 0
    for path in arguments[1:]:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        else:
            print(f"{path}: the last line has no newline")
            problems += 1
        for number, line in enumerate(lines, 1):
            try:
                event = json.loads(line)
            except ValueError as error:
                print(f"{path}:{number}: not JSON: {error}")
                problems += 1
                continue
            for error in sorted(validator.iter_errors(event), key=lambda e: list(e.path)):
                where = "/".join(str(p) for p in error.path) or "(event)"
                print(f"{path}:{number}: {where}: {error.message}")
                problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
