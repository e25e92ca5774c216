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
