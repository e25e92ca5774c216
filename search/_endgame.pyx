# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact endgame solver (issue 55): expectimax alpha-beta where nothing is hidden.

"Nothing hidden" (``fully_known``): every seat's draw pile is empty, so each hand
is the rest of its seat's known tiles; the jungle deck may still hold tiles,
whose draws are chance nodes weighted by the count of each kind left.

A value is the pair (win share of the root seat, gold margin of the root seat
over the best other seat), compared lexicographically; a chance node takes the
expectation of each part. With 3-4 players the rule is *paranoid*: every other
seat minimises the root seat's pair. Root actions are each searched with a full
window, so each one's value is exact when the solve is proved. Runs without the
GIL; a node budget ends it cleanly (then nothing is proved).
"""

from libc.stdint cimport uint8_t
from libc.stdlib cimport free, malloc

from cacaoai.engine.core cimport (
    MAX_ACTIONS, MAX_SEATS, PHASE_OVER, CorePosition, action_t, position_apply,
    position_legal_actions, position_result, position_t, result_t,
)


ctypedef struct value_t:
    double share
    double margin


ctypedef struct solver_t:
    int root_seat
    long long nodes
    long long max_nodes
    bint aborted


cdef inline bint _less(value_t a, value_t b) noexcept nogil:
    return a.share < b.share - 1e-12 or (a.share <= b.share + 1e-12 and a.margin < b.margin - 1e-9)


cdef bint _fully_known(const position_t* pos) noexcept nogil:
    cdef int s
    for s in range(pos.n_seats):
        if pos.seats[s].pile_pos != pos.seats[s].pile_end:
            return False
    return True


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
    return v





cdef value_t _full(solver_t* sv, const position_t* pos) noexcept nogil:
    cdef value_t lo, hi
    lo.share = -1.0
    lo.margin = -1e9
    hi.share = 2.0
    hi.margin = 1e9
    return _search(sv, pos, lo, hi)


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
    if at - pos.deck_pos == k or at >= pos.deck_end:
        child = pos[0]
        position_apply(&child, a)
        return _full(sv, &child)
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


cdef value_t _search(solver_t* sv, const position_t* pos, value_t alpha, value_t beta) noexcept nogil:
    cdef action_t* acts
    cdef int n, i
    cdef bint maxing
    cdef value_t best, v
    sv.nodes += 1
    if sv.nodes > sv.max_nodes:
        sv.aborted = True
    if sv.aborted:
        return alpha
    if pos.phase == PHASE_OVER:
        return _terminal(pos, sv.root_seat)
    acts = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    n = position_legal_actions(pos, acts)
    maxing = pos.to_act == sv.root_seat
    best.share = -1.0 if maxing else 2.0
    best.margin = -1e9 if maxing else 1e9
    for i in range(n):
        v = _child(sv, pos, acts[i], alpha, beta)
        if sv.aborted:
            break
        if maxing:
            if _less(best, v):
                best = v
            if _less(alpha, best):
                alpha = best
        else:
            if _less(v, best):
                best = v
            if _less(best, beta):
                beta = best
        if not _less(alpha, beta):
            break
    free(acts)
    return best


# --- Python layer -------------------------------------------------------------

def fully_known(CorePosition core) -> bool:
    """True when no seat has tiles left in its draw pile (every hand is known)."""
    return bool(_fully_known(&core.pos))


def solve_root(CorePosition core, int seat, long long max_nodes):
    """Each root action's exact (share, margin) for `seat`; returns
    (codes, shares, margins, nodes, proved). Raises ValueError on bad input."""
    cdef solver_t sv
    cdef action_t* acts
    cdef int n, i
    cdef value_t v
    cdef position_t root = core.pos
    if root.phase == PHASE_OVER:
        raise ValueError("position: the game is over")
    if not 0 <= seat < root.n_seats:
        raise ValueError(f"seat: {seat} is not a seat of this game")
    if not _fully_known(&root):
        raise ValueError("position: a draw pile still holds tiles (something is hidden)")
    if max_nodes <= 0:
        raise ValueError("max_nodes: must be positive")
    sv.root_seat = seat
    sv.nodes = 0
    sv.max_nodes = max_nodes
    sv.aborted = False
    acts = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    n = position_legal_actions(&root, acts)
    codes, shares, margins = [], [], []
    with nogil:
        for i in range(n):
            v = _child(&sv, &root, acts[i], _low(), _high())
            if sv.aborted:
                break
            with gil:
                codes.append(acts[i])
                shares.append(v.share)
                margins.append(v.margin)
    free(acts)
    return codes, shares, margins, sv.nodes, not sv.aborted


cdef value_t _low() noexcept nogil:
    cdef value_t v
    v.share = -1.0
    v.margin = -1e9
    return v


cdef value_t _high() noexcept nogil:
    cdef value_t v
    v.share = 2.0
    v.margin = 1e9
    return v
