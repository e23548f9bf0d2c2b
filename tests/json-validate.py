#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Validate volctl JSON documents against Documentation/volctl.schema.json.

usage: json-validate.py SCHEMA FILE...   (FILE "-" is stdin)

Each file holds one document.  Prints every violation with its path and
exits 1 when there is one; exits 77 when python3-jsonschema is missing.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("needs python3-jsonschema", file=sys.stderr)
    sys.exit(77)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for name in sys.argv[2:]:
        text = sys.stdin.read() if name == "-" else open(name).read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print(f"{name}: not JSON: {e}")
            bad += 1
            continue
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path)
            print(f"{name}: /{where}: {err.message[:300]}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
