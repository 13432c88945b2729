#!/usr/bin/env python3
"""check_chrome_trace.py FILE: validate a Chrome trace-event file.

Checks the rules of the Trace Event Format (the JSON object form, as
Perfetto and chrome://tracing read it), plus what schedctl promises:

- the top level is an object with a "traceEvents" list (displayTimeUnit,
  if present, is "ms" or "ns");
- every event is an object with a string "name", a "ph" from the format's
  phase set, numeric "ts" (all but metadata), and integer "pid"/"tid";
- "X" (complete) events have a numeric "dur" >= 0; "i"/"I" instants have
  a scope "s" of g, p or t when given; "B"/"E" nest per thread;
- metadata ("M") events are process_name/thread_name (args.name a
  string), process_sort_index/thread_sort_index (args.sort_index an
  integer) or process_labels;
- "args", when present, is an object; "cat" a string;
- every thread with events has a thread_name (one named track per
  logical thread), and within a thread X events do not go back in time.

Prints "ok: N events, T threads" and exits 0, or prints each problem
(at most 20) and exits 1.
"""
import json
import sys

PHASES = set("BEXiICbneSTpFsftPONDMRc") | {"(", ")"}
META = {"process_name", "thread_name", "process_sort_index",
        "thread_sort_index", "process_labels"}


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check(doc):
    errs = []
    if not isinstance(doc, dict):
        return ["top level is not an object"], 0, 0
    evs = doc.get("traceEvents")
    if not isinstance(evs, list):
        return ["no traceEvents list"], 0, 0
    unit = doc.get("displayTimeUnit")
    if unit is not None and unit not in ("ms", "ns"):
        errs.append("displayTimeUnit %r is not ms or ns" % (unit,))
    named, used, stacks, last_ts = set(), set(), {}, {}
    for i, e in enumerate(evs):
        where = "event %d" % i
        if not isinstance(e, dict):
            errs.append(where + ": not an object")
            continue
        name, ph = e.get("name"), e.get("ph")
        if not isinstance(name, str):
            errs.append(where + ": name missing or not a string")
        if ph not in PHASES:
            errs.append(where + ": ph %r not a trace-event phase" % (ph,))
            continue
        if not is_int(e.get("pid")) or not is_int(e.get("tid")):
            errs.append(where + ": pid/tid missing or not integers")
            continue
        key = (e["pid"], e["tid"])
        if "args" in e and not isinstance(e["args"], dict):
            errs.append(where + ": args is not an object")
        if "cat" in e and not isinstance(e["cat"], str):
            errs.append(where + ": cat is not a string")
        if ph == "M":
            args = e.get("args")
            if name not in META:
                errs.append(where + ": unknown metadata event %r" % (name,))
            elif not isinstance(args, dict):
                errs.append(where + ": metadata without args")
            elif name.endswith("_name") and not isinstance(args.get("name"), str):
                errs.append(where + ": %s without a string args.name" % name)
            elif name.endswith("_sort_index") and not is_int(args.get("sort_index")):
                errs.append(where + ": %s without an integer sort_index" % name)
            if name == "thread_name":
                named.add(key)
            continue
        if not is_num(e.get("ts")):
            errs.append(where + ": ts missing or not a number")
            continue
        used.add(key)
        if ph == "X":
            if not is_num(e.get("dur")) or e["dur"] < 0:
                errs.append(where + ": X event without a dur >= 0")
            if e["ts"] < last_ts.get(key, e["ts"]):
                errs.append(where + ": goes back in time on its thread")
            last_ts[key] = e["ts"]
        elif ph in "iI":
            if e.get("s", "t") not in ("g", "p", "t"):
                errs.append(where + ": instant scope %r" % (e.get("s"),))
        elif ph == "B":
            stacks.setdefault(key, []).append(name)
        elif ph == "E":
            if not stacks.get(key):
                errs.append(where + ": E without a B on its thread")
            else:
                stacks[key].pop()
    for key, st in stacks.items():
        if st:
            errs.append("thread %s: %d B events never ended" % (key, len(st)))
    for key in sorted(used - named):
        errs.append("thread %s has events but no thread_name" % (key,))
    return errs, len(evs), len(used)


def main():
    if len(sys.argv) != 2:
        print("usage: check_chrome_trace.py FILE", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: not JSON: %s" % (sys.argv[1], e))
        return 1
    errs, n, threads = check(doc)
    for e in errs[:20]:
        print("%s: %s" % (sys.argv[1], e))
    if errs:
        return 1
    print("ok: %d events, %d threads" % (n, threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
