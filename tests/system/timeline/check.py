"""Checks on a timeline (lraf --timeline FILE) for test_pf_tlout_trace.c.

  check.py schema TRACE SCHEMA      valid against the schema
  check.py tracks TRACE             prints the number of tracks
  check.py count TRACE              prints the instructions of its slices
  check.py gaps TRACE MIN_MS        prints "start_ms dur_ms" per gap >= MIN_MS
  check.py share TRACE              prints "share cpu_share"
Exits 1 with a message on stderr when the file is not what it says.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    what, path = sys.argv[1], sys.argv[2]
    d = load(path)
    ev = d["traceEvents"]
    if what == "schema":
        import jsonschema
        jsonschema.validate(d, load(sys.argv[3]))
    elif what == "tracks":
        print(sum(1 for e in ev if e["ph"] == "M" and e["name"] == "thread_name"))
    elif what == "count":
        print(sum(e.get("args", {}).get("instructions", 0)
                  for e in ev if e["ph"] == "X" and e["name"] == "run"))
    elif what == "gaps":
        least = float(sys.argv[3]) * 1e3   # ms -> the trace's us
        for e in ev:
            if e["ph"] == "X" and e["name"] == "gap" and e["dur"] >= least:
                print("%.1f %.1f" % (e["ts"] / 1e3, e["dur"] / 1e3))
    elif what == "share":
        o = d["otherData"]
        print("%.4f %.4f" % (o["share"], o["cpu_share"]))
    else:
        sys.exit("unknown check " + what)


if __name__ == "__main__":
    main()
