# Included by core.pyx: benchmarks of the rules core, not rules.
#
# cacao-engine bench and scripts/bench_search.py time random games and position
# copies here, in the engine's compile unit, so that they measure the same
# inlined code the search runs and spend no time crossing into Python.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def bench_random_games(int players, int games, unsigned long long seed):
    """Play `games` uniformly random games from fresh deals without the GIL.

    Returns (seconds, total actions) for the benchmark CLI."""
    cdef position_t pos
    cdef rng_t rng
    cdef long long actions = 0
    cdef int g
    cdef double start, elapsed
    rng_seed(&rng, seed)
    with nogil:
        start = _now()
        for g in range(games):
            position_deal(&pos, players, &rng)
            while pos.phase != PHASE_OVER:
                position_apply(&pos, position_random_action(&pos, &rng))
                actions += 1
        elapsed = _now() - start
    return elapsed, actions


def bench_clone(int copies):
    """Seconds to clone a mid-game position `copies` times (a struct copy)."""
    cdef position_t src
    cdef position_t* dst = <position_t*>malloc(2 * sizeof(position_t))
    cdef rng_t rng
    cdef int i
    cdef long long sink = 0
    cdef double start, elapsed
    rng_seed(&rng, 1)
    position_deal(&src, 4, &rng)
    for i in range(20):
        position_apply(&src, position_random_action(&src, &rng))
    with nogil:
        start = _now()
        for i in range(copies):
            memcpy(&dst[i & 1], &src, sizeof(position_t))
            sink += dst[i & 1].grid[(i * 31) & (GRID_CELLS - 1)]
            src.turn ^= <uint16_t>(sink & 1)
        elapsed = _now() - start
    free(dst)
    return elapsed


def position_bytes():
    """Bytes in one position_t (what a clone copies)."""
    return sizeof(position_t)


_features_sink = 0.0


def bench_features(int players, int calls, unsigned long long seed):
    """Time position_features and action_features without the GIL, each
    called `calls` times over 64 positions from uniformly random games (at
    every stage of a game, each seat viewing in turn) and up to 32 legal
    actions of each. Returns (ns per position_features, ns per action_features)."""
    cdef int n_pos = 64, per = 32, i, j, k, steps
    cdef position_t* ps = <position_t*>malloc(n_pos * sizeof(position_t))
    cdef action_t* acts = <action_t*>malloc(n_pos * per * sizeof(action_t))
    cdef action_t* buf = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    cdef int n_acts[64]
    cdef float out[N_FEATURES]
    cdef rng_t rng
    cdef double sink = 0, start, pos_s, act_s
    if ps == NULL or acts == NULL or buf == NULL:
        free(ps)
        free(acts)
        free(buf)
        raise MemoryError()
    rng_seed(&rng, seed)
    for i in range(n_pos):
        while True:
            position_deal(&ps[i], players, &rng)
            steps = rng_below(&rng, 12 * players * 3)
            for j in range(steps):
                if ps[i].phase == PHASE_OVER:
                    break
                position_apply(&ps[i], position_random_action(&ps[i], &rng))
            if ps[i].phase != PHASE_OVER:
                break
        k = position_legal_actions(&ps[i], buf)
        n_acts[i] = min(k, per)
        for j in range(n_acts[i]):
            acts[i * per + j] = buf[j * k // n_acts[i]]
    with nogil:
        start = _now()
        for i in range(calls):
            position_features(&ps[i & 63], i % players, out)
            sink += out[i % N_FEATURES]
        pos_s = _now() - start
        start = _now()
        for i in range(calls):
            j = (i >> 5) & 63
            action_features(&ps[j], 0, acts[j * per + (i & 31) % n_acts[j]], out)
            sink += out[i % N_ACTION_FEATURES]
        act_s = _now() - start
    free(ps)
    free(acts)
    free(buf)
    global _features_sink
    _features_sink = sink                       # the calls' results are used
    return pos_s / calls * 1e9, act_s / calls * 1e9
