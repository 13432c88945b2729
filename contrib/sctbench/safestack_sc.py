#!/usr/bin/env python3
"""safestack_sc.py: is SCTBench's safestack-bug1 reachable under
sequential consistency, and how often do samplers hit it?

A model of SafeStack.cpp (benchmarks/safestack, 3 threads, 2 pops and
pushes each) at the granularity of its shared-memory operations: every
atomic load, store, exchange, compare-exchange and fetch-add of head,
count and Next[], and the plain write and read of Value that the assert
checks, is one step.  It searches the whole state space depth first, then
samples schedules with a uniform random walk and with PCT (depth 2-6).

Measured (2026-11-26): the assert is reachable (2.05 million states; the
first failing schedule the search finds has 17 context switches), but
neither sampler hit it in 20000 schedules each.  schedctl schedules the
same operations (mem granularity, or sync plus atomics) and has not hit
it either; the POS paper's 0.244 for POS is not reproduced by any
sampler of this model.

Usage: python3 safestack_sc.py [SAMPLES]   (about a minute)
"""
import random
import sys

N = 3


def step(shared, th, idx):
    """Run one operation of thread idx: (shared, thread state, bug)."""
    head, count, nxt, value = shared
    nxt = list(nxt)
    value = list(value)
    pc, i, elem, c, h, n = th
    bug = None
    if pc == 'P0':                      # while (count.load() > 1)
        c = count
        pc = 'P1' if c > 1 else 'P0'    # else: Pop() returns -1, yield
    elif pc == 'P1':                    # head1 = head.load()
        h = head
        pc = 'P2'
        if h < 0:
            bug = 'head<0'
    elif pc == 'P2':                    # next1 = Next[head1].exchange(-1)
        n = nxt[h]
        nxt[h] = -1
        pc = 'P3' if n >= 0 else 'P0'
    elif pc == 'P3':                    # head.compare_exchange(head1, next1)
        if head == h:
            head = n
            pc = 'P4'
        else:
            pc = 'P5'
    elif pc == 'P4':                    # count.fetch_sub(1); return head1
        count -= 1
        elem = h
        pc = 'W'
    elif pc == 'P5':                    # Next[head1].exchange(next1)
        nxt[h] = n
        pc = 'P0'
    elif pc == 'W':                     # array[elem].Value = idx
        value[elem] = idx
        pc = 'R'
    elif pc == 'R':                     # assert(array[elem].Value == idx)
        if value[elem] != idx:
            bug = 'assert'
        pc = 'U0'
    elif pc == 'U0':                    # Push: head1 = head.load()
        h = head
        pc = 'U1'
    elif pc == 'U1':                    # Next[index].store(head1)
        nxt[elem] = h
        pc = 'U2'
    elif pc == 'U2':                    # head.compare_exchange(head1, index)
        if head == h:
            head = elem
            pc = 'U3'
        else:
            h = head
            pc = 'U1'
    elif pc == 'U3':                    # count.fetch_add(1)
        count += 1
        i += 1
        pc = 'DONE' if i == 2 else 'P0'
    return (head, count, tuple(nxt), tuple(value)), (pc, i, elem, c, h, n), bug


INIT = ((0, 3, (1, 2, -1), (0, 0, 0)),
        tuple(('P0', 0, -1, 0, 0, 0) for _ in range(N)))


def search():
    seen = {INIT}
    stack = [INIT]
    while stack:
        shared, ths = stack.pop()
        for t in range(N):
            if ths[t][0] == 'DONE':
                continue
            ns, nt, bug = step(shared, ths[t], t)
            if bug:
                return len(seen), bug
            st = (ns, ths[:t] + (nt,) + ths[t + 1:])
            if st not in seen:
                seen.add(st)
                stack.append(st)
    return len(seen), None


def sample(rng, choose, limit=5000):
    s = INIT
    for k in range(limit):
        live = [t for t in range(N) if s[1][t][0] != 'DONE']
        if not live:
            return False
        t = choose(live, s, k)
        ns, nt, bug = step(s[0], s[1][t], t)
        if bug:
            return True
        s = (ns, s[1][:t] + (nt,) + s[1][t + 1:])
    return False


def pct(rng, depth, k=120):
    prio = {t: depth + rng.random() for t in range(N)}
    changes = set(rng.sample(range(1, k), depth - 1))
    low = [depth - 1]

    def choose(live, s, step_no):
        t = max(live, key=lambda x: prio[x])
        if step_no + 1 in changes:
            prio[t] = low[0]
            low[0] -= 1
        # A failing pop yields: the others go first.
        if s[1][t][0] in ('P0', 'P2'):
            prio[t] = min(prio.values()) - 0.5
        return t
    return sample(rng, choose)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    states, bug = search()
    print("search: %d states, bug: %s" % (states, bug))
    rng = random.Random(1)
    hits = sum(sample(rng, lambda live, s, k: rng.choice(live))
               for _ in range(runs))
    print("uniform random walk: %d of %d" % (hits, runs))
    for depth in range(2, 7):
        rng = random.Random(depth)
        hits = sum(pct(rng, depth) for _ in range(runs))
        print("pct depth %d: %d of %d" % (depth, hits, runs))


if __name__ == '__main__':
    main()
