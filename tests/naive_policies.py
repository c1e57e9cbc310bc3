"""A per-host Python-loop implementation of sample-then-deepen: the reference the vectorised one is
tested against (same random draws, same result) and the peer it is benchmarked against."""

from __future__ import annotations

import numpy as np

from crawlplan.policies.population import Population


def sample_then_deepen_loop(pop: Population, flags: np.ndarray, offsets: np.ndarray, budget: float, k: int,
                            rng: np.random.Generator, share: float) -> float:
    """Expected high-quality pages; draws from ``rng`` in the order ``sim.sample_then_deepen`` does."""
    hosts = pop.hosts
    order = [int(h) for h in rng.permutation(hosts)]
    probe = {h: min(int(pop.n[h]), k) for h in range(hosts)}
    sample = {}
    for h in range(hosts):
        start = int(offsets[h])
        sample[h] = int(sum(int(x) for x in flags[start: start + probe[h]]))
    perm = rng.permutation(hosts)  # order_by's tie-break permutation
    total_probe = sum(probe.values())
    limit = budget if total_probe <= budget else share * budget
    sampled, spent = [], 0
    for h in order:
        if spent + probe[h] > limit:
            break
        sampled.append(h)
        spent += probe[h]
    got = float(sum(sample[h] for h in sampled))
    # deepening order: sampled density descending, ties in the permutation's order as numpy sorts them
    keyed = [(-(sample[h] / probe[h]), h) for h in range(hosts)]
    position = {int(h): i for i, h in enumerate(perm)}
    ranked = sorted(range(hosts), key=lambda h: (keyed[h][0], position[h]))
    chosen = set(sampled)
    room = budget - spent
    for h in ranked:
        if room <= 0:
            break
        if h not in chosen:
            continue
        rest = int(pop.n[h]) - probe[h]
        if rest <= 0:
            continue
        take = min(rest, room)
        got += take * (int(pop.hq[h]) - sample[h]) / rest
        room -= take
    if room > 0:  # deepening ran out of room: probe further hosts in the same random order
        for h in order[len(sampled):]:
            if room <= 0:
                break
            take = min(probe[h], int(room))
            start = int(offsets[h])
            got += float(sum(int(x) for x in flags[start: start + take]))
            room -= take
    return got
