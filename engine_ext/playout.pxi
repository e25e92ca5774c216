# Included by core.pyx: the search's informed playout policy, not a rule.
#
# The policy plays a game to its end by the best one-step value among a few
# uniform draws a turn (position_place_value, position_playout_informed in
# core.pxd). It is compiled with the rules, not with the search, because it
# calls the rules' inline helpers (_sides, _resolutions, _random_actions) for
# every candidate: another module could reach them only through the .pxd's
# function pointers, without inlining. Nothing here changes what a rule does;
# it reads positions and applies legal actions.


cdef inline int _market_places(uint64_t markets) noexcept nogil:
    """All market places in GAIN_SIDES' market bytes (`gains >> 32`)."""
    return <int>((markets & 0xFF) + ((markets >> 8) & 0xFF) + ((markets >> 16) & 0xFF))


cdef inline double _best_result(const position_t* pos, action_t a, sides_t* s,
                                int cacao0) noexcept nogil:
    """The most gold + 0.5 x cacao kept among the resolution's results
    (_resolutions) for the sides `s` of `a` (taken without entries) for a seat
    holding `cacao0`. Selling pays at least 2 gold a cacao, so unless cacao
    can be lost (more than 5 before selling, with a market) the best result
    sells all it can at the best prices (_sales' first result); only then are
    the sides listed and the whole Pareto set taken."""
    cdef uint8_t gold[MAX_RESULTS]
    cdef uint8_t cacao[MAX_RESULTS]
    cdef int j, n, c = cacao0 + _gain_plant(s.gains), sold
    cdef uint64_t markets = s.gains >> 32
    cdef double best = -1e9, v
    if markets == 0 or c <= MAX_CACAO:
        # without a market nothing is sold (no market places)
        sold = min(c, _market_places(markets))
        return _gain_gold(s.gains) + _sale_gold(sold, markets) + 0.5 * (min(MAX_CACAO, c) - sold)
    _sides(pos, a, s, True)
    n = _resolutions(cacao0, _gain_gold(s.gains), s.kinds, s.workers, s.n_pm, gold, cacao)
    for j in range(n):
        v = gold[j] + 0.5 * cacao[j]
        if v > best:
            best = v
    return best


cdef inline double _place_value(const position_t* pos, action_t a, int32_t awards) noexcept nogil:
    cdef sides_t s
    cdef const seat_t* st = &pos.seats[pos.mover]
    cdef int water, sun
    _sides(pos, a, &s, False)
    water = min(MAX_WATER, <int>st.water + _gain_water(s.gains))
    sun = min(MAX_SUN, <int>st.sun - ((a & 3) == ACT_OVERBUILD) + _gain_sun(s.gains))
    return (st.gold + WATER_VALUES[water] + sun + 0.5 * (awards + s.award)
            + _best_result(pos, a, &s, st.cacao))


cdef double position_place_value(const position_t* pos, action_t a, int32_t awards) noexcept nogil:
    """The mover's one-step value after the place or overbuild `a` (phase
    PHASE_TURN), from position_preview: gold + water-track value + sun +
    0.5 x cacao + 0.5 x temple awards now, the resolution's result with the
    most gold + 0.5 x cacao counting as chosen. `awards` is the mover's temple
    awards before `a`. The informed playout's value (and the greedy bot's)."""
    return _place_value(pos, a, awards)


cdef inline action_t _resolve_choice(const position_t* pos) noexcept nogil:
    """The pending result of the seat to act with the most gold + 0.5 cacao."""
    cdef int j, best_j = 0
    cdef double v, best = -1e9
    for j in range(pos.n_results[0]):
        v = pos.result_gold[0][j] + 0.5 * pos.result_cacao[0][j]
        if v > best:
            best = v
            best_j = j
    return action_resolve(pos.result_gold[0][best_j], pos.result_cacao[0][best_j])


cdef inline bint _drawn_before(const action_t* cand, int j) noexcept nogil:
    cdef int i
    for i in range(j):
        if cand[i] == cand[j]:
            return True
    return False


cdef void position_playout_informed(position_t* pos, rng_t* rng, int samples) noexcept nogil:
    """Play to the end: each place decision takes the best one-step value
    (position_place_value) among `samples` uniform draws (first drawn wins
    ties); a resolve decision takes the result with the most gold + 0.5 cacao."""
    cdef action_t cand[MAX_PLAYOUT_SAMPLES]
    cdef action_t a
    cdef double v, best
    cdef int j
    cdef bint better
    if samples > MAX_PLAYOUT_SAMPLES:
        samples = MAX_PLAYOUT_SAMPLES
    while pos.phase != PHASE_OVER:
        if pos.phase == PHASE_RESOLVE:
            a = _resolve_choice(pos)
        else:
            _random_actions(pos, rng, samples, cand)
            a = cand[0]
            if samples > 1 and action_kind(a) != ACT_DISCARD:
                # the temple awards before the action add the same to every
                # candidate's value (exactly: values are multiples of 0.5)
                best = -1e300
                for j in range(samples):
                    if j and _drawn_before(cand, j):
                        continue                # same value: it cannot win
                    v = _place_value(pos, cand[j], 0)
                    better = v > best           # selects, not branches: unpredictable
                    a = cand[j] if better else a
                    best = v if better else best
        position_apply(pos, a)
