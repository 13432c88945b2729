# replay_score.py DIR N WANT: score N replays saved in DIR as I.rc (exit
# status), I.json (replay --json) and I.err, for I in 1..N.  WANT "pass":
# a replay counts when it exits 0 with verdict pass and no divergence;
# otherwise when it exits 1 with the bug reproduced.  Prints "k/N", then
# one "COUNTx FAILURE" line per distinct failure, most frequent first.
# Shared by tests/e2e/replay_load.sh and tests/bench/replay_rate.sh.
import json, os, sys
from collections import Counter

d, n, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
good, bad = 0, Counter()
for i in range(1, n + 1):
    base = os.path.join(d, str(i))
    rc = int(open(base + ".rc").read())
    try:
        r = json.load(open(base + ".json"))
    except Exception:
        r = {}
    if want == "pass":
        ok = rc == 0 and r.get("verdict") == "pass" and r.get("diverged_at") is None
    else:
        ok = rc == 1 and r.get("reproduced") is True
    if ok:
        good += 1
        continue
    msg = r.get("message")
    if not msg:
        err = open(base + ".err", errors="replace").read().splitlines()
        msg = err[0] if err else ""
    bad["exit %d, verdict %s: %s" % (rc, r.get("verdict") or "?", msg)] += 1
print("%d/%d" % (good, n))
for what, count in bad.most_common():
    print("%dx %s" % (count, what))
