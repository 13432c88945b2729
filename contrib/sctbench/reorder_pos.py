#!/usr/bin/env python3
"""reorder_pos.py: how often does POS hit SCTBench's reorder_N_bad, on
the scheduling points schedctl's default (race granularity) uses there?

reorder_10_bad runs 9 setters (a = 1; b = -1) and a checker that fails
when it sees a == 1 and b == 0 (its loads: a, then again a, then b; the
load of b after a == 0 never leads to the failure: a setter writes a
before b, so b == -1 implies a == 1).  The race pilot finds those five
instructions racing, and creation first has every thread created before
any of them runs, so a run is the setters' two stores and the checker's
loads, scheduled by POS: each pending event has a random priority, the
highest runs, and after an event ran, the pending events on the same
variable get new priorities (as do the next events of the thread that
ran).  Thread exits and main's joins race with none of these.

Measured (2026-11-26, 20000 samples each, seed 1), against schedctl's
default at 1000 runs (reorder_K_bad has K - 1 setters and one checker):
2 setters 0.099 (reorder_3_bad: 0.106), 3 setters 0.079 (reorder_4_bad:
0.070), 4 setters 0.063 (reorder_5_bad: 0.068), 9 setters 0.033
(reorder_10_bad: 0.032), 19 setters 0.015.  A uniform random walk over
the same events, 9 setters: 0.014.  So the low rate of reorder_10_bad is
POS's on these points, not a defect of the engine.

Usage: python3 reorder_pos.py [SAMPLES]   (a few seconds)
"""
import random
import sys


def pos_run(rng, nset):
    """One POS schedule; True when the checker fails."""
    a = b = 0
    prog = {i: [('W', 'a'), ('W', 'b')] for i in range(nset)}
    checker = nset
    prog[checker] = [('R', 'a')]
    seen = 0                        # checker loads done
    prio = {t: rng.random() for t in prog}
    while prog:
        t = max(prog, key=lambda u: prio[u])
        obj = prog[t][0][1]
        if t == checker:
            if seen == 0:
                if a == 0:
                    return False    # then b == 0 too: no failure
                prog[checker] = [('R', 'a')]
            elif seen == 1:
                if a != 1:
                    return True
                prog[checker] = [('R', 'b')]
            else:
                return b != -1
            seen += 1
        else:
            if obj == 'a':
                a = 1
            else:
                b = -1
            prog[t] = prog[t][1:]
            if not prog[t]:
                del prog[t]
        if t in prog:
            prio[t] = rng.random()
        for u in prog:
            if u != t and prog[u][0][1] == obj:
                prio[u] = rng.random()
    return False


def walk_run(rng, nset):
    """One uniform random walk over the same events."""
    a = b = 0
    done = [0] * nset
    seen = 0
    while True:
        enabled = [i for i in range(nset) if done[i] < 2] + ['c']
        t = rng.choice(enabled)
        if t == 'c':
            if seen == 0 and a == 0:
                return False
            if seen == 1 and a != 1:
                return True
            if seen == 2:
                return b != -1
            seen += 1
        else:
            if done[t] == 0:
                a = 1
            else:
                b = -1
            done[t] += 1


def main():
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(1)
    for nset in (2, 3, 4, 9, 19):
        hits = sum(pos_run(rng, nset) for _ in range(samples))
        print("POS, %2d setters: %.3f" % (nset, hits / samples))
    hits = sum(walk_run(rng, 9) for _ in range(samples))
    print("random walk, 9 setters: %.3f" % (hits / samples))


if __name__ == '__main__':
    main()
