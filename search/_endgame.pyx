# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact endgame solver (issue 55): expectimax alpha-beta where nothing is hidden.

"Nothing hidden" (``fully_known``): every seat's draw pile is empty, so each hand
is the rest of its seat's known tiles; the jungle deck may still hold tiles,
whose draws are chance nodes weighted by the count of each kind left.

A value is the pair (win share of the root seat, gold margin of the root seat
over the best other seat), compared lexicographically; a chance node takes the
expectation of each part. With 3-4 players the rule is *paranoid*: every other
seat minimises the root seat's pair. Root actions are each searched with a full
window, so each one's value is exact when the solve is proved.

Speed: a transposition table per solve (a position's hash is a sum of mixed
(cell, tile) terms and its seats', display's and deck's facts, so two orders
of the same placements meet), its best action tried first, then the mover's
one-step value (the informed playout's, the search's greedy prior) orders the
rest where a subtree is large. Runs without the GIL; a node budget, a deadline
or a stop flag ends it cleanly (then nothing is proved).
"""

from libc.stdint cimport int32_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from cacaoai.engine.core cimport (
    ACT_OVERBUILD, ACT_PLACE, ACT_RESOLVE, MAX_ACTIONS, MAX_SEATS, PHASE_OVER, PHASE_TURN,
    CorePosition, action_t, position_apply, position_legal_actions, position_place_value,
    position_result, position_t, position_temple_awards, result_t,
)
from cacaoai.search._mcts cimport StopFlag, cacao_load_flag, lower_thread, now_seconds


cdef enum:
    BOUND_EXACT = 1
    BOUND_LOWER = 2
    BOUND_UPPER = 3
    ORDER_FROM = 2          # order by one-step value where this many placements or more are left
    TABLE_FROM = 2          # keep a node in the table where this many placements or more are left
    CHECK_EVERY = 1023      # nodes between looks at the clock and the stop flag
    STOPPED_NODES = 1
    STOPPED_TIME = 2
    STOPPED_FLAG = 3


ctypedef struct value_t:
    double share
    double margin
    double gold             # the root seat's final gold along the line valued (not compared)


ctypedef struct entry_t:
    uint64_t key
    value_t value
    action_t best
    uint8_t bound


ctypedef struct solver_t:
    int root_seat
    long long nodes
    long long max_nodes
    double deadline         # CLOCK_MONOTONIC seconds, 0: none
    const int* stop
    int aborted             # 0, or why it stopped (STOPPED_*)
    entry_t* table
    uint64_t mask


cdef inline bint _less(value_t a, value_t b) noexcept nogil:
    return a.share < b.share - 1e-12 or (a.share <= b.share + 1e-12 and a.margin < b.margin - 1e-9)


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    """splitmix64's finaliser: every input bit changes about half the output."""
    x += 0x9E3779B97F4A7C15ULL
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef uint64_t _hash(const position_t* pos) noexcept nogil:
    """A key of everything the rest of the game depends on: the tiles on the
    board (a sum over cells, so placement orders meet), every seat's
    holdings, the display, the deck's kinds left (each draw is a chance
    node, so their order does not matter), whose turn and what is pending."""
    cdef uint64_t h = 0
    cdef int i, s, j
    cdef uint64_t counts = 0
    for i in range(pos.n_jungle):
        h += _mix(<uint64_t>(1 << 20) | (<uint64_t>pos.jungle[i] << 8) | pos.grid[pos.jungle[i]])
    for i in range(pos.n_workers):
        h += _mix(<uint64_t>(2 << 20) | (<uint64_t>pos.workers[i] << 8) | pos.grid[pos.workers[i]])
    for i in range(pos.n_covered):
        h += _mix(<uint64_t>(3 << 20) | (<uint64_t>pos.covered_cell[i] << 8) | pos.covered_tile[i])
    for s in range(pos.n_seats):
        h = _mix(h ^ (<uint64_t>(pos.seats[s].gold & 0xFFFF) | (<uint64_t>pos.seats[s].cacao << 16)
                      | (<uint64_t>pos.seats[s].sun << 24) | (<uint64_t>pos.seats[s].water << 32)
                      | (<uint64_t>pos.n_targets[s] << 40) | (<uint64_t>s << 56)))
        h = _mix(h ^ (<uint64_t>pos.seats[s].hand[0] | (<uint64_t>pos.seats[s].hand[1] << 8)
                      | (<uint64_t>pos.seats[s].hand[2] << 16) | (<uint64_t>pos.seats[s].hand[3] << 24)
                      | (<uint64_t>pos.seats[s].discarded[0] << 32) | (<uint64_t>pos.seats[s].discarded[1] << 40)
                      | (<uint64_t>pos.seats[s].discarded[2] << 48) | (<uint64_t>pos.seats[s].discarded[3] << 56)))
    for i in range(pos.deck_pos, pos.deck_end):
        counts += <uint64_t>1 << (4 * (pos.deck[i] & 15))
    h = _mix(h ^ counts)
    # only the display's n_display tiles: the slots past them keep stale kinds, which a
    # position restored from a snapshot does not have
    h = _mix(h ^ (<uint64_t>pos.phase | (<uint64_t>pos.to_act << 8) | (<uint64_t>pos.mover << 16)
                  | (<uint64_t>pos.n_display << 24)
                  | ((<uint64_t>pos.display[0] << 32) if pos.n_display > 0 else 0)
                  | ((<uint64_t>pos.display[1] << 40) if pos.n_display > 1 else 0)
                  | (<uint64_t>pos.n_pending << 48) | (<uint64_t>pos.first_player << 56)))
    for j in range(pos.n_pending):
        h = _mix(h ^ (<uint64_t>pos.pending_seat[j] | (<uint64_t>pos.n_results[j] << 8)))
        for i in range(pos.n_results[j]):
            h = _mix(h ^ (<uint64_t>pos.result_gold[j][i] | (<uint64_t>pos.result_cacao[j][i] << 8)
                          | (<uint64_t>(i + 1) << 16)))
    return h


cdef bint _fully_known(const position_t* pos) noexcept nogil:
    cdef int s
    for s in range(pos.n_seats):
        if pos.seats[s].pile_pos != pos.seats[s].pile_end:
            return False
    return True


cdef inline int _placements_left(const position_t* pos) noexcept nogil:
    cdef int s, n = 0
    for s in range(pos.n_seats):
        n += pos.seats[s].hand[0] + pos.seats[s].hand[1] + pos.seats[s].hand[2] + pos.seats[s].hand[3]
    return n


cdef value_t _terminal(const position_t* pos, int seat) noexcept nogil:
    cdef result_t r
    cdef value_t v
    cdef int s, best = -1000000
    position_result(pos, &r)
    v.share = 1.0 / r.n_winners if (r.winners >> seat) & 1 else 0.0
    for s in range(pos.n_seats):
        if s != seat and r.gold[s] > best:
            best = r.gold[s]
    v.margin = r.gold[seat] - best
    v.gold = r.gold[seat]
    return v


cdef inline value_t _low() noexcept nogil:
    cdef value_t v
    v.share = -1.0
    v.margin = -1e9
    v.gold = 0.0
    return v


cdef inline value_t _high() noexcept nogil:
    cdef value_t v
    v.share = 2.0
    v.margin = 1e9
    v.gold = 0.0
    return v


cdef value_t _arrange(solver_t* sv, position_t* pos, action_t a, int k, int at) noexcept nogil:
    """Expectation over the kind at deck slot `at` (then the next, up to k draws),
    each arranged by a swap, then `a` applied from the deck's real start."""
    cdef position_t child
    cdef value_t v, total
    cdef int counts[16]
    cdef int i, t, n, j
    cdef double w
    total.share = 0.0
    total.margin = 0.0
    total.gold = 0.0
    if at - pos.deck_pos == k or at >= pos.deck_end:
        child = pos[0]
        position_apply(&child, a)
        return _search(sv, &child, _low(), _high())
    n = pos.deck_end - at
    for t in range(16):
        counts[t] = 0
    for i in range(at, pos.deck_end):
        counts[pos.deck[i] & 15] += 1
    for t in range(16):
        if counts[t] == 0 or sv.aborted:
            continue
        w = counts[t] / <double>n
        child = pos[0]
        for j in range(at, child.deck_end):
            if child.deck[j] == t:
                child.deck[j] = child.deck[at]
                child.deck[at] = <uint8_t>t
                break
        v = _arrange(sv, &child, a, k, at + 1)
        total.share += w * v.share
        total.margin += w * v.margin
        total.gold += w * v.gold
    return total


cdef value_t _child(solver_t* sv, const position_t* pos, action_t a, value_t alpha, value_t beta) noexcept nogil:
    """Value of `a`: a plain child when it draws nothing (or the deck is one kind), else chance."""
    cdef position_t child = pos[0]
    cdef position_t copy
    cdef int k, i
    cdef bint same = True
    position_apply(&child, a)
    k = child.deck_pos - pos.deck_pos
    for i in range(pos.deck_pos + 1, pos.deck_end):
        if pos.deck[i] != pos.deck[pos.deck_pos]:
            same = False
            break
    if k == 0 or same:
        return _search(sv, &child, alpha, beta)
    copy = pos[0]
    return _arrange(sv, &copy, a, k, copy.deck_pos)


cdef void _score_actions(const position_t* pos, const action_t* acts, int n, double* score) noexcept nogil:
    """The mover's one-step value of each action (its resolution's gold for a resolve)."""
    cdef int i, kind
    cdef int32_t awards[MAX_SEATS]
    if pos.phase == PHASE_TURN:
        position_temple_awards(pos, awards)
    for i in range(n):
        kind = acts[i] & 3
        if kind == ACT_PLACE or kind == ACT_OVERBUILD:
            score[i] = position_place_value(pos, acts[i], awards[pos.mover])
        elif kind == ACT_RESOLVE:
            score[i] = ((acts[i] >> 2) & 0xFF) + 0.5 * ((acts[i] >> 10) & 7)
        else:
            score[i] = -1e9


cdef inline void _check(solver_t* sv) noexcept nogil:
    if sv.nodes > sv.max_nodes:
        sv.aborted = STOPPED_NODES
    elif (sv.nodes & CHECK_EVERY) == 0:
        if sv.stop != NULL and cacao_load_flag(sv.stop):
            sv.aborted = STOPPED_FLAG
        elif sv.deadline > 0 and now_seconds() >= sv.deadline:
            sv.aborted = STOPPED_TIME


cdef value_t _search(solver_t* sv, const position_t* pos, value_t alpha, value_t beta) noexcept nogil:
    cdef action_t* acts
    cdef double* score = NULL
    cdef int n, i, j, pick
    cdef bint maxing
    cdef value_t best, v, alpha0 = alpha, beta0 = beta
    cdef uint64_t key
    cdef entry_t* e
    cdef action_t best_action = 0, tt_action = 0, a
    cdef double top
    cdef int left
    sv.nodes += 1
    _check(sv)
    if sv.aborted:
        return alpha
    if pos.phase == PHASE_OVER:
        return _terminal(pos, sv.root_seat)
    left = _placements_left(pos)
    e = NULL
    if left >= TABLE_FROM:
        key = _hash(pos)
        e = &sv.table[key & sv.mask]
    if e != NULL and e.key == key and e.bound:
        if e.bound == BOUND_EXACT:
            return e.value
        if e.bound == BOUND_LOWER and not _less(e.value, beta):
            return e.value
        if e.bound == BOUND_UPPER and not _less(alpha, e.value):
            return e.value
        tt_action = e.best
    acts = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    if acts == NULL:
        sv.aborted = STOPPED_NODES
        return alpha
    n = position_legal_actions(pos, acts)
    if n > 2 and left >= ORDER_FROM:
        score = <double*>malloc(n * sizeof(double))
        if score != NULL:
            _score_actions(pos, acts, n, score)
    maxing = pos.to_act == sv.root_seat
    best = _low() if maxing else _high()
    for i in range(n):
        # the table's action first, then (where scored) the best scored one left
        pick = i
        if i == 0 and tt_action != 0:
            for j in range(n):
                if acts[j] == tt_action:
                    pick = j
                    break
        elif score != NULL:
            top = score[i]
            for j in range(i + 1, n):
                if score[j] > top:
                    top = score[j]
                    pick = j
        if pick != i:
            a = acts[i]
            acts[i] = acts[pick]
            acts[pick] = a
            if score != NULL:
                top = score[i]
                score[i] = score[pick]
                score[pick] = top
        v = _child(sv, pos, acts[i], alpha, beta)
        if sv.aborted:
            break
        if maxing:
            if _less(best, v) or i == 0:
                best = v
                best_action = acts[i]
            if _less(alpha, best):
                alpha = best
        else:
            if _less(v, best) or i == 0:
                best = v
                best_action = acts[i]
            if _less(best, beta):
                beta = best
        if not _less(alpha, beta):
            break
    free(acts)
    if score != NULL:
        free(score)
    if e != NULL and not sv.aborted:
        e.key = key
        e.value = best
        e.best = best_action
        if not _less(alpha0, best):
            e.bound = BOUND_UPPER
        elif not _less(best, beta0):
            e.bound = BOUND_LOWER
        else:
            e.bound = BOUND_EXACT
    return best


# --- Python layer -------------------------------------------------------------

STOPPED = {0: "proved", STOPPED_NODES: "nodes", STOPPED_TIME: "time", STOPPED_FLAG: "stop"}


def fully_known(CorePosition core) -> bool:
    """True when no seat has tiles left in its draw pile (every hand is known)."""
    return bool(_fully_known(&core.pos))


def placements_left(CorePosition core) -> int:
    """Worker tiles left in every hand (with empty draw piles: the placements before the end)."""
    return _placements_left(&core.pos)


def table_entries(long long max_nodes) -> int:
    """Transposition table entries for a solve of `max_nodes` (a power of two, 2**10..2**20, one for 16 nodes)."""
    cdef long long size = 1024
    while size < max_nodes // 16 and size < (1 << 20):
        size *= 2
    return size


def solve_root(CorePosition core, int seat, list codes, long long max_nodes, double deadline=0.0,
               StopFlag stop=None, int priority=0, int exact_first=-1):
    """The exact (share, margin) for `seat` of each root action in `codes`
    (legal codes of `core`, in the order to solve them), with the seat's
    final gold along the line valued. With `exact_first` >= 0 only the
    first `exact_first` codes and those at least as good as every code
    before them are valued exactly; the others are proved worse than one
    before them (their value is an upper bound). Returns (shares, margins,
    golds, exact flags, nodes, why it stopped: "proved", "nodes", "time" or
    "stop"). `deadline`: CLOCK_MONOTONIC seconds (0: none); `priority`: a
    PRIORITY_* the calling thread lowers itself to (only for a thread of
    its own). Raises ValueError on bad input."""
    cdef solver_t sv
    cdef int n = len(codes), i
    cdef value_t v
    cdef position_t root = core.pos
    cdef action_t* acts
    cdef double* shares
    cdef double* margins
    cdef double* golds
    cdef uint8_t* exact
    cdef value_t best, alpha
    cdef long long entries
    if root.phase == PHASE_OVER:
        raise ValueError("position: the game is over")
    if not 0 <= seat < root.n_seats:
        raise ValueError(f"seat: {seat} is not a seat of this game")
    if not _fully_known(&root):
        raise ValueError("position: a draw pile still holds tiles (something is hidden)")
    if max_nodes <= 0:
        raise ValueError("max_nodes: must be positive")
    entries = table_entries(max_nodes)
    sv.root_seat = seat
    sv.nodes = 0
    sv.max_nodes = max_nodes
    sv.deadline = deadline
    sv.stop = &stop.flag if stop is not None else NULL
    sv.aborted = 0
    sv.mask = <uint64_t>(entries - 1)
    sv.table = <entry_t*>calloc(entries, sizeof(entry_t))
    acts = <action_t*>malloc((n + 1) * sizeof(action_t))
    shares = <double*>malloc((n + 1) * sizeof(double))
    margins = <double*>malloc((n + 1) * sizeof(double))
    golds = <double*>malloc((n + 1) * sizeof(double))
    exact = <uint8_t*>malloc((n + 1) * sizeof(uint8_t))
    if sv.table == NULL or acts == NULL or shares == NULL or margins == NULL or golds == NULL or exact == NULL:
        free(exact)
        free(sv.table)
        free(acts)
        free(shares)
        free(margins)
        free(golds)
        raise MemoryError("the endgame solver's table")
    for i in range(n):
        acts[i] = <action_t>codes[i]
    with nogil:
        if priority:
            lower_thread(priority)
        best = _low()
        for i in range(n):
            alpha = _low()
            if exact_first >= 0 and i >= exact_first and i > 0:
                alpha = best            # just below the best so far: its equals come out exact
                alpha.margin -= 1e-6
            v = _child(&sv, &root, acts[i], alpha, _high())
            if sv.aborted:
                break
            shares[i] = v.share
            margins[i] = v.margin
            golds[i] = v.gold
            exact[i] = _less(alpha, v)
            if exact[i] and _less(best, v):
                best = v
    out_shares = [shares[i] for i in range(n)] if not sv.aborted else []
    out_margins = [margins[i] for i in range(n)] if not sv.aborted else []
    out_golds = [golds[i] for i in range(n)] if not sv.aborted else []
    out_exact = [bool(exact[i]) for i in range(n)] if not sv.aborted else []
    free(exact)
    free(sv.table)
    free(acts)
    free(shares)
    free(margins)
    free(golds)
    return out_shares, out_margins, out_golds, out_exact, sv.nodes, STOPPED[sv.aborted]
