# Included by core.pyx: features of a position and of an action, for a learned
# evaluation. Not rules: they read positions and change nothing a rule does.
#
# Contract (core.pxd): position_features and action_features read only what
# `viewer` may know (docs/rules.md#information): the board, every seat's gold,
# cacao, sun and water, the display, the counts of the jungle deck and the draw
# piles, the pending resolutions, and the viewer's own hand. The jungle still
# unseen is counted from the box minus the board and the display, and each
# seat's unplaced worker tiles from its tiles minus those on the board and the
# discards: never from the deck, a pile or another seat's hand. So every
# determinization of the viewer's observation gives the same features, to the
# bit: every sum is taken in integers, and divided once at the end.
#
# Seat blocks are seat-relative: block i describes seat (viewer + i) mod n,
# and blocks of absent seats (i >= n) are zeros. Values are divided by natural
# maxima, so they lie in about [0, 1] (a lead and a change in [-1, 1]).
# Changing what a feature means, its order or its scale changes
# FEATURES_VERSION (core.pxd), so that a model trained on one layout is never
# fed another.

# Layout of position_features: a global block, then SEAT_FEATURES per seat.
cdef enum:
    FG_PLAYERS = 0          # one-hot: 2, 3, 4 players
    FG_PHASE = 3            # one-hot: turn, resolve, over
    FG_PROGRESS = 6         # completed turns / the game's turns
    FG_TO_ACT = 7           # one-hot: (to_act - viewer) mod n; zeros once over
    FG_MOVER = 11           # one-hot: (mover - viewer) mod n
    FG_DISPLAY = 15         # the display, by jungle kind (table order) / 2
    FG_DECK = 25            # tiles in the jungle deck / DECK_MAX
    FG_UNSEEN = 26          # the deck's tiles by kind, counted from the public facts / most in a deck
    FG_HAND = 36            # the viewer's hand by worker type / HAND_SIZE
    FG_TEMPLES = 40         # temples on the board / 5
    FG_OPEN_TEMPLES = 41    # temples with a placement cell beside them / 5
    FG_PLACES = 42          # placement cells by the holes they would close: 0, 1, 2, 3 / 32
    FG_NEXT_TO = 46         # (placement cell, jungle tile) neighbours by the tile's group / 16
    FG_SEATS = 52
    N_GROUPS = 6            # plantation, market, mine, water, sun, temple

# Within one seat's block.
cdef enum:
    FS_PRESENT = 0          # 1 for a seat in the game
    FS_GOLD = 1             # gold so far / 64
    FS_CACAO = 2            # / MAX_CACAO
    FS_SUN = 3              # / MAX_SUN
    FS_WATER = 4            # water track space / MAX_WATER
    FS_WATER_NEXT = 5       # gold the next water step adds / 6
    FS_SCORE = 6            # gold if the game ended now (position_score's total), + 10, / 80
    FS_LEAD = 7             # that score minus the best other seat's / 40
    FS_TEMPLE_CLOSED = 8    # temple awards now from temples with no placement cell beside them
                            # (a worker tile on every side: only an overbuild changes them) / 30
    FS_TEMPLE_OPEN = 9      # temple awards now from temples that can still change / 30
    FS_TEMPLES_FIRST = 10   # temples where the seat is first (alone or tied) / 5
    FS_TEMPLE_CHANCES = 11  # open temples where the seat is not first alone / 5
    FS_TILES_LEFT = 12      # unplaced worker tiles (hand + pile) / PILE_MAX
    FS_UNPLACED = 13        # unplaced worker tiles by type / the seat's tiles of that type at most
    FS_HOLE_WORKERS = 17    # workers facing holes that may still get a jungle tile / 12
    # ... times what a hole is expected to get: the tiles left (display and
    # deck) by kind, divided by the tiles left or by the holes if there are more
    FS_HOLE_CACAO = 18      # cacao / 6
    FS_HOLE_MARKET = 19     # market places, by their price in gold / 12
    FS_HOLE_GOLD = 20       # mine gold / 6
    FS_HOLE_WATER = 21      # water steps / 3
    FS_HOLE_TEMPLE = 22     # temples / 3
    FS_PENDING_GOLD = 23    # the most gold of the seat's pending resolution / 20
    SEAT_FEATURES = 24

# Layout of action_features.
cdef enum:
    FA_KIND = 0             # one-hot: place, overbuild, discard, resolve
    FA_TILE = 4             # one-hot: the worker tile's type (place, overbuild, discard)
    FA_GOLD = 8             # gold gained / 20
    FA_CACAO = 9            # cacao held after / MAX_CACAO
    FA_CACAO_CHANGE = 10    # cacao held after minus before / MAX_CACAO
    FA_WATER_GOLD = 11      # change of the water track space's gold / 16
    FA_SUN_CHANGE = 12      # / MAX_SUN
    FA_TEMPLE_CHANGE = 13   # change of the actor's temple awards now / 12
    FA_VALUE_CHANGE = 14    # change of the greedy one-step value / 20
    FA_JUNGLE_WORKERS = 15  # the new tile's workers facing jungle tiles already there / 4
    FA_CLOSES = 16          # cells the placement closes / 3
    FA_DISPLAY_FILLS = 17   # ... of them filled from the display / 2
    FA_BLIND_FILLS = 18     # ... of them taking a blind draw
    FA_OWN_NEAR_CLOSED = 19 # the actor's other workers facing the closed cells / 6
    FA_OTHERS_NEAR_CLOSED = 20  # every other seat's workers facing them / 6
    FA_NEW_HOLE_WORKERS = 21    # the new tile's workers facing empty cells that become holes / 4
    FA_TEMPLE_WORKERS = 22  # the new tile's workers facing temples (old or filled from the display) / 4
    FA_RESULTS = 23         # results of the actor's resolution to choose from / MAX_RESULTS

# Per jungle kind (index = kind): its group for FG_NEXT_TO, and the gold a
# worker facing it may sell one cacao for. What else a worker gets from a kind
# comes from the rules' own tables (PLANT_CACAO, GAIN_GOLD, GAIN_WATER).
cdef int KIND_GROUP[N_KINDS]
KIND_GROUP[:] = [0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 5]
cdef int KIND_PRICE[N_KINDS]
KIND_PRICE[:] = [0, 0, 0, 2, 3, 4, 0, 0, 0, 0, 0]


cdef inline int _water_next(int space) noexcept nogil:
    """Gold the next step of the water carrier adds (0 on the last space)."""
    return WATER_VALUES[space + 1] - WATER_VALUES[space] if space < MAX_WATER else 0


cdef void position_features(const position_t* pos, int viewer, float* out) noexcept nogil:
    """Write the N_FEATURES features of `pos` as `viewer` sees it to `out`
    (layout above). One pass over the jungle tiles (what is left of the box,
    temples, placement cells beside them), one over the worker tiles (unplaced
    tiles, workers facing holes), then the blocks."""
    cdef const uint8_t* g = pos.grid
    cdef int n = pos.n_seats, s, i, j, k, d, t, b, cell, c, rel, open_sides
    cdef int supply_total = 0, best, greater, equal, award
    cdef int supply[N_KINDS]
    cdef int next_to[N_GROUPS]
    cdef int unplaced[MAX_SEATS][4]
    cdef int hole_workers[MAX_SEATS]
    cdef int total[MAX_SEATS]
    cdef int closed_award[MAX_SEATS]
    cdef int open_award[MAX_SEATS]
    cdef int first[MAX_SEATS]
    cdef int chances[MAX_SEATS]
    cdef int pending_gold[MAX_SEATS]
    cdef int temples = 0, open_temples = 0, n_holes = 0, h
    cdef int per_cacao = 0, per_price = 0, per_mine = 0, per_water = 0, per_temple = 0
    cdef uint32_t counts, cs
    cdef const int* box = _deck_counts(n)
    cdef const seat_t* st
    cdef float* blk
    cdef double scale
    memset(out, 0, N_FEATURES * sizeof(float))
    memset(next_to, 0, sizeof(next_to))
    for s in range(MAX_SEATS):
        hole_workers[s] = closed_award[s] = open_award[s] = first[s] = chances[s] = 0
        pending_gold[s] = 0
        for t in range(4):
            unplaced[s][t] = 0
    for s in range(n):
        for t in range(4):
            unplaced[s][t] = WORKERS_PER_SEAT[n][t] - pos.seats[s].discarded[t]

    # the jungle: what is left of the box (public counts), temples, and what
    # placement cells lie beside
    for k in range(N_KINDS):
        supply[k] = box[k]
    for i in range(N_START_TILES):
        supply[START_TILES[i][2]] += 1
    for j in range(pos.n_jungle):
        cell = pos.jungle[j]
        k = g[cell]
        supply[k] -= 1
        open_sides = 0
        for d in range(4):
            open_sides += _is_frontier(g[cell + DELTA[d]])
        next_to[KIND_GROUP[k]] += open_sides
        if k != TEMPLE:
            continue
        temples += 1
        open_temples += open_sides > 0
        counts = _temple_counts(pos, cell)
        for s in range(n):
            c = (counts >> (8 * s)) & 0xFF
            greater = equal = 0
            for i in range(n):
                cs = (counts >> (8 * i)) & 0xFF
                greater += cs > <uint32_t>c
                equal += cs == <uint32_t>c
            award = _award_of(counts, s)
            if open_sides:
                open_award[s] += award
                chances[s] += not (c > 0 and greater == 0 and equal == 1)
            else:
                closed_award[s] += award
            first[s] += c > 0 and greater == 0
    for i in range(pos.n_display):
        out[FG_DISPLAY + pos.display[i] - 1] += 0.5
        supply[pos.display[i]] -= 1
    for k in range(1, N_KINDS):
        if supply[k] < 0:                       # only in a hand-made position
            supply[k] = 0
        out[FG_UNSEEN + k - 1] = <float>(<double>supply[k] / DECK_3_4[k])
    for i in range(pos.n_display):
        supply[pos.display[i]] += 1             # now the display and the deck
    for k in range(1, N_KINDS):
        supply_total += supply[k]
        per_cacao += supply[k] * PLANT_CACAO[k]
        per_price += supply[k] * KIND_PRICE[k]
        per_mine += supply[k] * GAIN_GOLD[k]
        per_water += supply[k] * GAIN_WATER[k]
        per_temple += supply[k] * (k == TEMPLE)

    # worker tiles: unplaced by type, workers facing holes (only while jungle
    # tiles are left to fill them)
    for j in range(pos.n_workers):
        cell = pos.workers[j]
        b = g[cell]
        s = (b >> 4) & 3
        unplaced[s][(b >> 2) & 3] -= 1
        if supply_total:
            for d in range(4):
                h = _is_hole(g[cell + DELTA[d]])
                hole_workers[s] += SIDE_TABLE[b][d] * h
                n_holes += h                    # a hole touches one worker tile while tiles are left
    for j in range(pos.n_covered):
        b = pos.covered_tile[j]
        unplaced[(b >> 4) & 3][(b >> 2) & 3] -= 1
    for i in range(pos.n_pending):
        s = pos.pending_seat[i]
        for j in range(pos.n_results[i]):
            pending_gold[s] = max(pending_gold[s], <int>pos.result_gold[i][j])

    # the global block
    out[FG_PLAYERS + n - 2] = 1
    out[FG_PHASE + pos.phase] = 1
    out[FG_PROGRESS] = <float>(<double>pos.turn / (n * (WORKERS_PER_SEAT[n][0] + WORKERS_PER_SEAT[n][1]
                                                        + WORKERS_PER_SEAT[n][2] + WORKERS_PER_SEAT[n][3])))
    if pos.phase != PHASE_OVER:
        out[FG_TO_ACT + (pos.to_act - viewer + n) % n] = 1
    out[FG_MOVER + (pos.mover - viewer + n) % n] = 1
    out[FG_DECK] = <float>(<double>(pos.deck_end - pos.deck_pos) / DECK_MAX)
    for t in range(4):
        out[FG_HAND + t] = <float>(<double>pos.seats[viewer].hand[t] / HAND_SIZE)
    out[FG_TEMPLES] = <float>(temples / 5.0)
    out[FG_OPEN_TEMPLES] = <float>(open_temples / 5.0)
    for i in range(4):
        out[FG_PLACES + i] = <float>(pos.holes_hist[i] / 32.0)
    out[FG_PLACES + 3] += <float>(pos.holes_hist[4] / 32.0)
    for i in range(N_GROUPS):
        out[FG_NEXT_TO + i] = <float>(next_to[i] / 16.0)

    # the seats' blocks, the viewer's first
    for s in range(n):
        st = &pos.seats[s]
        total[s] = st.gold + st.sun * SUN_GOLD + WATER_VALUES[st.water] + closed_award[s] + open_award[s]
    for rel in range(n):
        s = (viewer + rel) % n
        st = &pos.seats[s]
        blk = out + FG_SEATS + rel * SEAT_FEATURES
        best = -1000000
        for i in range(n):
            if i != s and total[i] > best:
                best = total[i]
        blk[FS_PRESENT] = 1
        blk[FS_GOLD] = <float>(st.gold / 64.0)
        blk[FS_CACAO] = <float>(<double>st.cacao / MAX_CACAO)
        blk[FS_SUN] = <float>(<double>st.sun / MAX_SUN)
        blk[FS_WATER] = <float>(<double>st.water / MAX_WATER)
        blk[FS_WATER_NEXT] = <float>(_water_next(st.water) / 6.0)
        blk[FS_SCORE] = <float>((total[s] + 10) / 80.0)
        blk[FS_LEAD] = <float>((total[s] - best) / 40.0)
        blk[FS_TEMPLE_CLOSED] = <float>(closed_award[s] / 30.0)
        blk[FS_TEMPLE_OPEN] = <float>(open_award[s] / 30.0)
        blk[FS_TEMPLES_FIRST] = <float>(first[s] / 5.0)
        blk[FS_TEMPLE_CHANCES] = <float>(chances[s] / 5.0)
        k = 0
        for t in range(4):
            if unplaced[s][t] < 0:              # only in a hand-made position
                unplaced[s][t] = 0
            k += unplaced[s][t]
            # 2 players keep every tile: the most of each type a seat can have
            blk[FS_UNPLACED + t] = <float>(<double>unplaced[s][t] / WORKERS_PER_SEAT[2][t])
        blk[FS_TILES_LEFT] = <float>(<double>k / PILE_MAX)
        blk[FS_HOLE_WORKERS] = <float>(hole_workers[s] / 12.0)
        if supply_total:
            scale = <double>hole_workers[s] / max(supply_total, n_holes)
            blk[FS_HOLE_CACAO] = <float>(scale * per_cacao / 6.0)
            blk[FS_HOLE_MARKET] = <float>(scale * per_price / 12.0)
            blk[FS_HOLE_GOLD] = <float>(scale * per_mine / 6.0)
            blk[FS_HOLE_WATER] = <float>(scale * per_water / 3.0)
            blk[FS_HOLE_TEMPLE] = <float>(scale * per_temple / 3.0)
        blk[FS_PENDING_GOLD] = <float>(pending_gold[s] / 20.0)


cdef void action_features(position_t* pos, int viewer, action_t a, float* out) noexcept nogil:
    """Features of the legal action `a` for the seat taking it (the seat to
    act). A place or overbuild is previewed (position_preview) with the jungle
    deck hidden for the call, so a cell that would take a blind draw counts as
    blind, not as the tile on top of the deck: deck_pos is set to deck_end and
    put back before returning. The resolution's result counted is the one with
    the most gold + 0.5 x cacao, as the greedy one-step value counts it."""
    cdef int kind = action_kind(a), t = action_type(a), cell, d, nb, j, best_j, slot, mover, deck_left
    cdef int holes, closes = 0, from_display = 0, blind = 0, own = 0, others = 0, new_holes = 0
    cdef int temple_workers = 0, jungle_workers = 0, gold, cacao, supply
    cdef uint8_t saved_pos, own_byte, v
    cdef uint32_t counts
    cdef double value, best
    cdef const seat_t* st
    cdef const uint8_t* side
    cdef preview_t p
    memset(out, 0, N_ACTION_FEATURES * sizeof(float))
    out[FA_KIND + kind] = 1
    if kind == ACT_RESOLVE:
        st = &pos.seats[pos.to_act]
        gold = action_gold(a)
        cacao = action_cacao(a)
        out[FA_GOLD] = <float>(gold / 20.0)
        out[FA_CACAO] = <float>(<double>cacao / MAX_CACAO)
        out[FA_CACAO_CHANGE] = <float>(<double>(cacao - st.cacao) / MAX_CACAO)
        out[FA_VALUE_CHANGE] = <float>((gold + 0.5 * (cacao - st.cacao)) / 20.0)
        out[FA_RESULTS] = <float>(<double>pos.n_results[0] / MAX_RESULTS)
        return
    out[FA_TILE + t] = 1
    st = &pos.seats[pos.mover]
    if kind == ACT_DISCARD:
        out[FA_CACAO] = <float>(<double>st.cacao / MAX_CACAO)
        return
    mover = pos.mover
    cell = action_cell(a)
    deck_left = pos.deck_end - pos.deck_pos
    saved_pos = pos.deck_pos
    pos.deck_pos = pos.deck_end                 # the deck hidden: nothing is drawn blind
    position_preview(pos, a, &p)
    pos.deck_pos = saved_pos
    best_j = 0
    best = -1e9
    for j in range(p.n_results):
        value = p.result_gold[j] + 0.5 * p.result_cacao[j]
        if value > best:
            best = value
            best_j = j
    gold = p.result_gold[best_j]
    cacao = p.result_cacao[best_j]
    out[FA_GOLD] = <float>(gold / 20.0)
    out[FA_CACAO] = <float>(<double>cacao / MAX_CACAO)
    out[FA_CACAO_CHANGE] = <float>(<double>(cacao - st.cacao) / MAX_CACAO)
    out[FA_WATER_GOLD] = <float>((WATER_VALUES[p.water] - WATER_VALUES[st.water]) / 16.0)
    out[FA_SUN_CHANGE] = <float>(<double>(<int>p.sun - <int>st.sun) / MAX_SUN)
    out[FA_TEMPLE_CHANGE] = <float>(p.award_change / 12.0)
    out[FA_VALUE_CHANGE] = <float>((gold + WATER_VALUES[p.water] - WATER_VALUES[st.water]
                                    + (<int>p.sun - <int>st.sun) * SUN_GOLD
                                    + 0.5 * (cacao - st.cacao) + 0.5 * p.award_change) / 20.0)
    out[FA_RESULTS] = <float>(<double>p.n_results / MAX_RESULTS)
    own_byte = <uint8_t>(WORKER_BIT | (mover << 4) | (t << 2) | action_rot(a))
    side = SIDE_TABLE[own_byte]
    holes = _frontier_mask(pos, cell) if kind == ACT_PLACE else 0
    supply = pos.n_display + deck_left
    for d in range(4):
        nb = cell + DELTA[d]
        v = pos.grid[nb]
        if is_jungle(v):
            jungle_workers += side[d]
            if v == TEMPLE:
                temple_workers += side[d]
        elif (holes >> d) & 1:
            # a closed cell: a display tile, a blind draw, or nothing left
            closes += 1
            slot = action_fill(a, d)
            if slot:
                from_display += 1
                if pos.display[slot - 1] == TEMPLE:
                    temple_workers += side[d]
            elif deck_left > blind:
                blind += 1
            counts = _temple_counts(pos, nb)      # every seat's workers facing it
            own += (counts >> (8 * mover)) & 0xFF
            others += ((counts & 0xFF) + ((counts >> 8) & 0xFF) + ((counts >> 16) & 0xFF)
                       + (counts >> 24) - ((counts >> (8 * mover)) & 0xFF))
        elif v == EMPTY and kind == ACT_PLACE:
            new_holes += side[d]
    if supply - from_display - blind <= 0:
        new_holes = 0                           # no jungle tile is left to fill them
    out[FA_JUNGLE_WORKERS] = <float>(jungle_workers / 4.0)
    out[FA_CLOSES] = <float>(closes / 3.0)
    out[FA_DISPLAY_FILLS] = <float>(from_display / 2.0)
    out[FA_BLIND_FILLS] = <float>blind
    out[FA_OWN_NEAR_CLOSED] = <float>(own / 6.0)
    out[FA_OTHERS_NEAR_CLOSED] = <float>(others / 6.0)
    out[FA_NEW_HOLE_WORKERS] = <float>(new_holes / 4.0)
    out[FA_TEMPLE_WORKERS] = <float>(temple_workers / 4.0)


# --- names, for docs, debugging and checks (cacaoai.engine.features) ---

def feature_layout():
    """(FEATURES_VERSION, position feature names, action feature names), in order."""
    kinds = ["plantation-1", "plantation-2", "market-2", "market-3", "market-4",
             "gold-1", "gold-2", "water", "sun", "temple"]
    types = ["1111", "2101", "3001", "3100"]
    groups = ["plantation", "market", "mine", "water", "sun", "temple"]
    g = (["players:2", "players:3", "players:4", "phase:turn", "phase:resolve", "phase:over", "progress"]
         + [f"to_act:s{i}" for i in range(MAX_SEATS)] + [f"mover:s{i}" for i in range(MAX_SEATS)]
         + [f"display:{k}" for k in kinds] + ["deck"] + [f"unseen:{k}" for k in kinds]
         + [f"hand:{t}" for t in types] + ["temples", "open_temples"]
         + [f"places:holes{i}" for i in range(4)] + [f"next_to:{x}" for x in groups])
    seat = (["present", "gold", "cacao", "sun", "water", "water_next", "score", "lead",
             "temple_closed", "temple_open", "temples_first", "temple_chances", "tiles_left"]
            + [f"unplaced:{t}" for t in types]
            + ["hole_workers", "hole_cacao", "hole_market", "hole_gold", "hole_water", "hole_temple",
               "pending_gold"])
    names = g + [f"s{i}:{x}" for i in range(MAX_SEATS) for x in seat]
    actions = (["kind:place", "kind:overbuild", "kind:discard", "kind:resolve"]
               + [f"tile:{t}" for t in types]
               + ["gold", "cacao", "cacao_change", "water_gold", "sun_change", "temple_change",
                  "value_change", "jungle_workers", "closes", "display_fills", "blind_fills",
                  "own_near_closed", "others_near_closed", "new_hole_workers", "temple_workers",
                  "results"])
    assert len(g) == FG_SEATS and len(seat) == SEAT_FEATURES
    assert len(names) == N_FEATURES and len(actions) == N_ACTION_FEATURES
    return FEATURES_VERSION, names, actions
