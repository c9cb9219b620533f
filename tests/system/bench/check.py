"""Checks on lraf bench's JSON files for test_cli_bench_baseline.c.

  check.py schema FILE SCHEMA   FILE is valid against SCHEMA: with
                                python3-jsonschema when it is installed,
                                else with the small checker below (type,
                                const, enum, required, properties, items,
                                oneOf, minimum, $ref to #/definitions)
  check.py hyperfine FILE       FILE has hyperfine's --export-json shape
Exits 1 with a message on stderr when the file is not what it says.
"""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(v, s, root, where):
    if "$ref" in s:
        s = root["definitions"][s["$ref"].split("/")[-1]]
    if "oneOf" in s:
        ok = 0
        for alt in s["oneOf"]:
            try:
                check(v, alt, root, where)
                ok += 1
            except ValueError:
                pass
        if ok != 1:
            raise ValueError("%s: %d of oneOf match" % (where, ok))
        return
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(is_type(v, x) for x in ts):
            raise ValueError("%s: %r is not %s" % (where, v, t))
    if "const" in s and v != s["const"]:
        raise ValueError("%s: %r is not %r" % (where, v, s["const"]))
    if "enum" in s and v not in s["enum"]:
        raise ValueError("%s: %r not in %r" % (where, v, s["enum"]))
    if "minimum" in s and is_type(v, "number") and v < s["minimum"]:
        raise ValueError("%s: %r below %r" % (where, v, s["minimum"]))
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                raise ValueError("%s: no %s" % (where, k))
        for k, sub in s.get("properties", {}).items():
            if k in v:
                check(v[k], sub, root, where + "." + k)
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            check(x, s["items"], root, "%s[%d]" % (where, i))


def main():
    what, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if what == "schema":
        with open(sys.argv[3], encoding="utf-8") as f:
            schema = json.load(f)
        try:
            import jsonschema
        except ImportError:
            check(d, schema, schema, "$")
            print("structural")
            return
        jsonschema.validate(d, schema)
        print("jsonschema")
    elif what == "hyperfine":
        for r in d["results"]:
            for k in ("command", "mean", "stddev", "median", "user",
                      "system", "min", "max", "times", "exit_codes"):
                if k not in r:
                    sys.exit("no %s in a result" % k)
            if len(r["times"]) != len(r["exit_codes"]):
                sys.exit("times and exit_codes differ in length")
            print(r["command"], len(r["times"]), r["count"])
    else:
        sys.exit("unknown check " + what)


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:
        sys.exit(str(e))
