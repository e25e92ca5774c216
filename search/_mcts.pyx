# cython: language_level=3
"""Information-set Monte Carlo tree search over the compiled Cacao core.

The algorithm is single-observer information-set MCTS (SO-ISMCTS: P. I. Cowling,
E. J. Powley, D. Whitehouse, "Information Set Monte Carlo Tree Search", IEEE
Trans. Computational Intelligence and AI in Games 4(2), 2012). Every iteration

1. copies the root and determinizes it for the observer
   (``position_determinize``: pile orders, the jungle deck order and the hands
   the observer does not know are resampled from the observation alone);
2. walks down a tree keyed by action codes. Codes name public facts (cell, tile,
   rotation, display slot), so one tree serves every determinization. At each
   node the legal actions of the current determinization are matched with
   the children; a child that is legal now counts one more *availability*, and
   the seat to act picks by UCB with availability counts,
   ``mean + c * sqrt(ln(avail) / visits)``, maximising its own value. A legal
   action without a child is expanded (one per iteration): the best, by
   one-step value, of ``expand_samples`` untried actions drawn at random.
   At the root, progressive widening considers only the
   ``ceil(widen * sqrt(visits))`` best actions by the greedy bot's one-step
   value (taken without the jungle deck, so nothing hidden is read); below
   the root, with ``widen_inner`` > 0, a node expands a new child only while
   fewer than ``widen_inner * sqrt(visits) + 1`` of the current
   determinization's actions have one, and otherwise selects among those
   (found by asking the engine whether each child is legal, without listing
   the legal actions: ``_select_widened``);
3. plays out to the end, with the engine's uniform random playout or the
   informed playout below;
4. adds the final values for every seat to the nodes on the path: the win share
   (1 / number of winners, or 0) and the gold margin (final gold minus the best
   other seat's final gold). The tree maximises
   ``win share + margin_weight * margin / margin_scale``: the margin is a
   denser signal than the win alone, which matters at small budgets.

Blind draws are chance: they are fixed by the determinization, so the tree never
branches on them. Resolve decisions are ordinary decisions of the seat that
takes them.

The informed playout, at each place decision, samples a few legal actions
uniformly and plays the one with the best one-step value for the mover; a
resolve decision takes the result with the most gold + 0.5 x cacao kept.
The one-step value is the greedy bot's (bots.py): gold + water-track value +
sun tokens + 0.5 x cacao + 0.5 x the temple awards the seat would get now.
For a place or overbuild of the mover it is the engine's
``position_place_value`` (the mover's gains read from the cells around the
action, which is never applied); other actions (resolutions chosen in the tree)
are applied in place and the bytes they can change restored. The playout itself
is the engine's ``position_playout_informed`` (one compilation unit with the
rules; the k candidates of a turn are drawn with one count of the legal
actions). Both give exactly what applying gives (``check_values``), so the
search is the same per iteration as before these shortcuts, only cheaper
(search/README.md, "Where an iteration's time goes").

Analysis and reuse: the root's actions, when fixed, can be restricted
(allow/avoid, ``_prepare_root``) and carry priors (a softmax of the one-step
values that order them). The final gold of the seat to act is summed per root
child in a slot array of ``tree_t`` (so ``node_t`` stays 88 bytes). A kept tree
is continued from a descendant by ``Tree.reroot``: ``_compact_from`` copies
that node's subtree into a fresh pool with the node as the root.

Memory: nodes live in one pool; a node's children are a block of the edge
pool (each child's code beside its index), and a block of 16 slots or more
carries a hash index. Matching the current determinization's legal actions
with a node's children (``_map_children``) costs one probe per child or per
legal action, whichever are fewer, however many children the node has
gathered. Each time the tree doubles, both pools are
copied breadth-first (``_relayout``) so that siblings sit side by side.

Threads: the loop runs without the GIL and touches only its own ``tree_t``.
Root-parallel search (one tree per thread, statistics merged at the root) lives
in the Python layer (``cacaoai.search``).
"""

from libc.math cimport exp, log, sqrt
from libc.stdint cimport INT32_MAX, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from cacaoai.engine.core cimport (
    ACT_OVERBUILD, ACT_PLACE, ACT_RESOLVE, GRID_CELLS, GRID_SIZE, MAX_ACTIONS, MAX_SEATS,
    N_ACTION_FEATURES, N_FEATURES, action_features, position_features,
    PHASE_OVER, PHASE_RESOLVE, PHASE_TURN, CorePosition, action_cell, action_kind, action_t,
    position_apply, position_determinize, position_is_legal, position_legal_actions, position_place_value,
    position_playout, position_playout_informed, position_result, position_t,
    position_temple_awards, position_tiles_left, result_t, rng_below, rng_seed, rng_t, seat_t, water_value,
)

from cacaoai.search.limits import PLAYOUTS

cdef extern from *:
    """
    #include <pthread.h>
    #include <sched.h>
    #include <sys/resource.h>
    #include <sys/syscall.h>
    #include <unistd.h>
    #define CACAO_REDUCED_NICE 5
    #ifndef SCHED_IDLE
    #define SCHED_IDLE 5
    #endif
    /* Lowers the calling thread only (Linux schedules threads one by one).
       Where SCHED_IDLE is not permitted (a sandbox's filter), nice 19, the
       next lowest; where nothing is, the thread stays as it was. */
    static void cacao_lower_thread(int priority) {
    #ifdef __linux__
        if (priority == 2) {
            struct sched_param param = {0};
            if (sched_setscheduler(0, SCHED_IDLE, &param) != 0) {
                setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
            }
        } else if (priority == 1) {
            setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
        } else if (priority == 3) {
            setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), CACAO_REDUCED_NICE);
        }
    #endif
    }
    typedef void *(*cacao_thread_main)(void *);
    static int cacao_thread_start(pthread_t *thread, cacao_thread_main main, void *arg) {
        return pthread_create(thread, NULL, main, arg);
    }
    """
    ctypedef unsigned long pthread_t
    ctypedef void* (*cacao_thread_main)(void*) noexcept nogil
    void cacao_lower_thread(int priority) noexcept nogil
    int cacao_thread_start(pthread_t* thread, cacao_thread_main main, void* arg) noexcept nogil
    int pthread_join(pthread_t thread, void** result) noexcept nogil


# --- tables -----------------------------------------------------------------

cdef enum:
    LOG_TABLE_SIZE = 65536
    N_NEAR = 13
    INITIAL_NODES = 4096
    INITIAL_EDGES = 8192
    MIN_BLOCK = 4           # edge slots of a node's first block of children
    INDEXED_FROM = 16       # a block of this many slots or more carries a hash index
    RELAYOUT_NODES = 8192   # smaller trees stay in the caches as they are
    INITIAL_SLOTS = 64
    REROOT_SAMPLES = 16     # determinizations that vouch for a re-rooted root's children
    SELECT_WORDS = 16       # _select_widened's bit set: nodes of up to 1,024 children

cdef float LOG_TABLE[LOG_TABLE_SIZE]     # ln(n) for small n (read-only after import)
cdef int NEAR[N_NEAR]                    # grid offsets within two steps of a cell
cdef size_t TAIL_OFFSET = 0              # position_t bytes after the grid ...
cdef size_t TAIL_BYTES = 0               # ... which a one-step evaluation restores


cdef int _init_tables() except -1:
    global TAIL_OFFSET, TAIL_BYTES
    cdef int i, k = 0, dx, dy
    cdef position_t probe
    LOG_TABLE[0] = 0.0
    for i in range(1, LOG_TABLE_SIZE):
        LOG_TABLE[i] = <float>log(<double>i)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if abs(dx) + abs(dy) <= 2:
                NEAR[k] = dy * GRID_SIZE + dx
                k += 1
    if <char*>&probe.grid[0] != <char*>&probe:
        raise ImportError("position_t must start with its grid")
    TAIL_OFFSET = <size_t>(<char*>&probe.n_seats - <char*>&probe)
    if TAIL_OFFSET != GRID_CELLS:
        raise ImportError("position_t: unexpected layout after the grid")
    TAIL_BYTES = sizeof(position_t) - TAIL_OFFSET
    return 0


_init_tables()


cdef inline double _log(uint32_t n) noexcept nogil:
    if n < LOG_TABLE_SIZE:
        return LOG_TABLE[n]
    return log(<double>n)


def monotonic():
    """The clock the search's deadlines use (CLOCK_MONOTONIC, seconds)."""
    return now_seconds()


# --- one-step values and the informed playout ---------------------------------

cdef double seat_value(const position_t* pos, int seat) noexcept nogil:
    """gold + water value + sun + 0.5 cacao + 0.5 temple awards now, for `seat`.

    When `seat` still has a resolution to choose, its best result by
    gold gained + 0.5 x cacao kept counts as chosen."""
    cdef int32_t awards[MAX_SEATS]
    cdef const seat_t* st = &pos.seats[seat]
    cdef double value, best, v
    cdef double cacao_part = 0.5 * st.cacao
    cdef int k, j
    awards[0] = awards[1] = awards[2] = awards[3] = 0
    position_temple_awards(pos, awards)
    value = st.gold + water_value(st.water) + st.sun + 0.5 * awards[seat]
    if pos.phase == PHASE_RESOLVE:
        for k in range(pos.n_pending):
            if pos.pending_seat[k] == seat:
                best = -1e9
                for j in range(pos.n_results[k]):
                    v = pos.result_gold[k][j] + 0.5 * pos.result_cacao[k][j]
                    if v > best:
                        best = v
                cacao_part = best
                break
    return value + cacao_part


cdef double applied_value(position_t* pos, action_t a, int seat, uint8_t* undo) noexcept nogil:
    """seat_value of `seat` after `a`, by applying `a` in place; `pos` is left
    exactly as it was.

    `undo` must hold TAIL_BYTES bytes. position_apply changes only the bytes
    after the grid and the grid cells within two steps of the placed tile (the
    tile, the jungle cells it closes, and their neighbours' markers)."""
    cdef int kind = action_kind(a), cell = 0, i
    cdef uint8_t cells[N_NEAR]
    cdef double v
    cdef bint on_board = kind == ACT_PLACE or kind == ACT_OVERBUILD
    if on_board:
        cell = action_cell(a)
        for i in range(N_NEAR):
            cells[i] = pos.grid[cell + NEAR[i]]
    memcpy(undo, (<uint8_t*>pos) + TAIL_OFFSET, TAIL_BYTES)
    position_apply(pos, a)
    v = seat_value(pos, seat)
    memcpy((<uint8_t*>pos) + TAIL_OFFSET, undo, TAIL_BYTES)
    if on_board:
        for i in range(N_NEAR):
            pos.grid[cell + NEAR[i]] = cells[i]
    return v


cdef inline bint _previewable(const position_t* pos, action_t a, int seat) noexcept nogil:
    cdef int kind = action_kind(a)
    return (pos.phase == PHASE_TURN and seat == pos.mover
            and (kind == ACT_PLACE or kind == ACT_OVERBUILD))


cdef inline int32_t _awards_of(const position_t* pos, int seat) noexcept nogil:
    cdef int32_t awards[MAX_SEATS]
    awards[0] = awards[1] = awards[2] = awards[3] = 0
    position_temple_awards(pos, awards)
    return awards[seat]


cdef double place_value(const position_t* pos, action_t a, int32_t awards) noexcept nogil:
    """seat_value of the mover after the place or overbuild `a`, from
    position_preview (the engine's position_place_value); `awards` is the
    mover's temple awards before `a`. Equal to applied_value (tests check it
    action by action)."""
    return position_place_value(pos, a, awards)


cdef double action_value(position_t* pos, action_t a, int seat, uint8_t* undo) noexcept nogil:
    """seat_value of `seat` after `a`; `pos` is left exactly as it was."""
    if _previewable(pos, a, seat):
        return place_value(pos, a, _awards_of(pos, seat))
    return applied_value(pos, a, seat, undo)


cdef void action_values_into(position_t* pos, const action_t* acts, int n, int seat,
                             uint8_t* undo, double* out) noexcept nogil:
    """out[i] = action_value(pos, acts[i], seat), the temple awards counted once."""
    cdef int i
    cdef int32_t awards = _awards_of(pos, seat)
    for i in range(n):
        if _previewable(pos, acts[i], seat):
            out[i] = place_value(pos, acts[i], awards)
        else:
            out[i] = applied_value(pos, acts[i], seat, undo)


cdef void playout_informed(position_t* pos, rng_t* rng, int samples) noexcept nogil:
    """Play to the end with the engine's informed playout policy: each place
    decision takes the best one-step value (place_value) among `samples`
    uniform draws (first drawn wins ties); resolve decisions take the result
    with the most gold + 0.5 cacao."""
    position_playout_informed(pos, rng, samples)


include "model.pxi"


# --- the tree -----------------------------------------------------------------

cdef void _sort_root(tree_t* t) noexcept nogil:
    """Order the root actions by their score, best first (stable), and set
    their priors to the softmax of the scores. The score is the greedy bot's
    one-step value (temperature one point of value, about one gold), or with
    PRIOR_MODEL the policy network's logit. Both are taken without the jungle
    deck, as the greedy bot does, so they depend only on the board, the public
    counts and the mover's hand."""
    cdef position_t* p = &t.work
    cdef double* value = <double*>malloc(t.n_root * sizeof(double) + 1)
    cdef int i, j, seat = t.root.to_act
    cdef double v, total = 0.0
    cdef action_t a
    cdef const float* bias
    if value == NULL:
        return                                      # unsorted: only weaker, still correct
    if t.cfg.prior == PRIOR_MODEL and t.model != NULL:   # the features hide the deck's order
        bias = model_policy_bias(t.model, p, seat, t.scratch)
        for i in range(t.n_root):
            value[i] = model_logit(t.model, p, seat, t.root_actions[i], bias, t.scratch)
    else:
        p.deck_pos = p.deck_end
        action_values_into(p, t.root_actions, t.n_root, seat, t.undo, value)
    for i in range(1, t.n_root):
        v = value[i]
        a = t.root_actions[i]
        j = i - 1
        while j >= 0 and value[j] < v:
            value[j + 1] = value[j]
            t.root_actions[j + 1] = t.root_actions[j]
            j -= 1
        value[j + 1] = v
        t.root_actions[j + 1] = a
    for i in range(t.n_root):
        t.root_prior[i] = exp(value[i] - value[0])
        total += t.root_prior[i]
    for i in range(t.n_root):
        t.root_prior[i] /= total
    free(value)


cdef inline bint _listed(action_t a, const action_t* codes, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if codes[i] == a:
            return True
    return False


cdef void _prepare_root(tree_t* t, const action_t* allow, int n_allow,
                        const action_t* avoid, int n_avoid) noexcept nogil:
    """List the root's actions when they are fixed, keeping only those in
    `allow` (when n_allow > 0) and not in `avoid`; order them and set their
    priors (uniform without widening). Uses t.root, t.cfg and t.rng.

    The seat to act knows its hand, so the root's actions are the same in
    every determinization; they are listed once, from a determinized copy, so
    nothing hidden is read."""
    cdef int i, n, k = 0
    t.root_fixed = (t.cfg.known_hands >> t.root.to_act) & 1
    t.n_root = 0
    if not t.root_fixed:
        return
    t.work = t.root
    position_determinize(&t.work, t.cfg.observer, t.cfg.known_hands, &t.rng)
    n = position_legal_actions(&t.work, t.root_actions)
    for i in range(n):
        if n_allow > 0 and not _listed(t.root_actions[i], allow, n_allow):
            continue
        if _listed(t.root_actions[i], avoid, n_avoid):
            continue
        t.root_actions[k] = t.root_actions[i]
        k += 1
    t.n_root = k
    for i in range(k):
        t.root_child[i] = -1
        t.root_prior[i] = 1.0 / k
    if k > 1 and (t.cfg.widen > 0 or (t.cfg.prior == PRIOR_MODEL and t.model != NULL)):
        _sort_root(t)


cdef int32_t _slot_of(tree_t* t, int32_t node) noexcept nogil:
    """The gold slot of the root child `node`, added when new; -1 when out of memory."""
    cdef int32_t k, cap
    cdef void* grown
    for k in range(t.n_slots):
        if t.slot_node[k] == node:
            return k
    if t.n_slots == t.slot_capacity:
        cap = 2 * t.slot_capacity
        grown = realloc(t.slot_node, cap * sizeof(int32_t))
        if grown == NULL:
            return -1
        t.slot_node = <int32_t*>grown
        grown = realloc(t.slot_gold, cap * sizeof(double))
        if grown == NULL:
            return -1
        t.slot_gold = <double*>grown
        grown = realloc(t.slot_gold_n, cap * sizeof(uint32_t))
        if grown == NULL:
            return -1
        t.slot_gold_n = <uint32_t*>grown
        t.slot_capacity = cap
    k = t.n_slots
    t.n_slots += 1
    t.slot_node[k] = node
    t.slot_gold[k] = 0.0
    t.slot_gold_n[k] = 0
    return k


cdef void _restart_counts(tree_t* t) noexcept nogil:
    """Zero what counts the iterations since the tree was (re)rooted."""
    cdef int i
    t.iterations = 0
    t.gold_n = 0
    t.n_slots = 0
    t.cur_slot = -1
    t.relayout_at = 0
    for i in range(MAX_SEATS):
        t.gold_sum[i] = 0.0


cdef inline uint32_t _hash(action_t a, uint32_t mask) noexcept nogil:
    """A table slot for code `a`. The product's high half is folded into its
    low bits: codes that differ only in their high bits (the display slots
    that fill a placement's holes) then land apart."""
    cdef uint32_t x = a * <uint32_t>2654435761u
    return (x ^ (x >> 16)) & mask


cdef inline int32_t _block_size(int32_t n) noexcept nogil:
    """Edge slots of a block for n children: MIN_BLOCK, then doubling."""
    cdef int32_t size = MIN_BLOCK
    while size < n:
        size <<= 1
    return size


cdef inline int32_t _block_span(int32_t size) noexcept nogil:
    """Edges a block of `size` slots takes in the pool: from INDEXED_FROM
    slots on, the block is followed by its index, 2 x size edges used as an
    open-addressing table from code to child (node -1: empty)."""
    return size if size < INDEXED_FROM else 3 * size


cdef inline void _index_put(edge_t* block, int32_t size, action_t a, int32_t node) noexcept nogil:
    cdef edge_t* index = block + size
    cdef uint32_t mask = 2 * size - 1
    cdef uint32_t h = _hash(a, mask)
    while index[h].node >= 0:
        h = (h + 1) & mask
    index[h].action = a
    index[h].node = node


cdef void _index_block(edge_t* block, int32_t size, int32_t n) noexcept nogil:
    """Fill the index of a block of `size` slots from its first n edges."""
    cdef int32_t i
    for i in range(2 * size):
        block[size + i].node = -1
    for i in range(n):
        _index_put(block, size, block[i].action, block[i].node)


cdef inline int32_t _index_get(const edge_t* block, int32_t size, action_t a) noexcept nogil:
    """The child for code `a` from an indexed block's table, or -1."""
    cdef const edge_t* index = block + size
    cdef uint32_t mask = 2 * size - 1
    cdef uint32_t h = _hash(a, mask)
    while index[h].node >= 0:
        if index[h].action == a:
            return index[h].node
        h = (h + 1) & mask
    return -1


cdef int32_t _edge_block(tree_t* t, int32_t size) noexcept nogil:
    """Hand out `size` edge slots at the end of the edge pool; -1 when out of memory."""
    cdef int64_t cap = t.edge_capacity
    cdef int32_t at
    cdef edge_t* grown
    if t.n_edges + <int64_t>size > cap:
        if cap < MIN_BLOCK:
            cap = MIN_BLOCK
        while t.n_edges + <int64_t>size > cap:
            cap *= 2
        if cap > INT32_MAX:
            return -1
        grown = <edge_t*>realloc(t.edges, cap * sizeof(edge_t))
        if grown == NULL:
            return -1
        t.edges = grown
        t.edge_capacity = <int32_t>cap
    at = t.n_edges
    t.n_edges += size
    return at


cdef int32_t _new_node(tree_t* t, int32_t parent, action_t a, int seat) noexcept nogil:
    """Add a child to `parent` (or the root, parent -1); -1 when out of memory,
    -2 when the pool is full. A full block of children moves to one twice its
    size at the end of the edge pool."""
    cdef node_t* grown
    cdef node_t* nd
    cdef edge_t* block
    cdef int32_t idx, cap, n = 0, at, size
    if t.n_nodes >= t.max_nodes:
        return -2
    if t.n_nodes == t.capacity:
        cap = t.capacity * 2
        if cap > t.max_nodes:
            cap = t.max_nodes
        grown = <node_t*>realloc(t.nodes, cap * sizeof(node_t))
        if grown == NULL:
            return -1
        t.nodes = grown
        t.capacity = cap
    idx = t.n_nodes
    if parent >= 0:
        nd = &t.nodes[parent]
        n = nd.n_children
        size = _block_size(n + 1)
        if n == 0 or size > _block_size(n):
            at = _edge_block(t, _block_span(size))
            if at < 0:
                return -1
            if n > 0:
                memcpy(&t.edges[at], &t.edges[nd.edges], n * sizeof(edge_t))
            nd.edges = at
        block = &t.edges[nd.edges]
        block[n].action = a
        block[n].node = idx
        nd.n_children = n + 1
        if size >= INDEXED_FROM:
            if size > _block_size(n):
                _index_block(block, size, n + 1)
            else:
                _index_put(block, size, a, idx)
    t.n_nodes += 1
    nd = &t.nodes[idx]
    memset(nd, 0, sizeof(node_t))
    nd.action = a
    nd.edges = -1
    nd.seat = <uint32_t>seat
    nd.avail = 1
    return idx


cdef int32_t _child_by_code(const tree_t* t, int32_t node, action_t a) noexcept nogil:
    """The child of `node` reached by `a`, or -1."""
    cdef const node_t* nd = &t.nodes[node]
    cdef int32_t j
    for j in range(nd.n_children):
        if t.edges[nd.edges + j].action == a:
            return t.edges[nd.edges + j].node
    return -1


cdef inline void _new_stamp(tree_t* t) noexcept nogil:
    """Empty the scratch table (table_stamp, table_key, table_value) for a new use."""
    t.stamp += 1
    if t.stamp == 0:
        memset(t.table_stamp, 0, 2 * MAX_ACTIONS * sizeof(uint32_t))
        t.stamp = 1


cdef inline void _table_put(tree_t* t, uint32_t mask, action_t key, int32_t value) noexcept nogil:
    cdef uint32_t h = _hash(key, mask)
    while t.table_stamp[h] == t.stamp:
        h = (h + 1) & mask
    t.table_stamp[h] = t.stamp
    t.table_key[h] = key
    t.table_value[h] = value


cdef inline int32_t _table_get(const tree_t* t, uint32_t mask, action_t key) noexcept nogil:
    cdef uint32_t h = _hash(key, mask)
    while t.table_stamp[h] == t.stamp:
        if t.table_key[h] == key:
            return t.table_value[h]
        h = (h + 1) & mask
    return -1


cdef void _map_children(tree_t* t, int32_t node, int n) noexcept nogil:
    """child_of[i] = the child of `node` for legal[i], or -1. A node with
    fewer children than legal actions (most nodes) puts the legal actions in
    a table sparse enough that inserting rarely collides, and looks its
    children up there: few lookups, and predictable branches. A node with
    more children looks each legal action up in its block's index."""
    cdef const node_t* nd = &t.nodes[node]
    cdef const edge_t* e
    cdef int i, j, k = nd.n_children
    cdef int32_t size = _block_size(k)
    cdef uint32_t mask = 63
    if k >= n and size >= INDEXED_FROM:
        e = &t.edges[nd.edges]
        for i in range(n):
            t.child_of[i] = _index_get(e, size, t.legal[i])
        return
    for i in range(n):
        t.child_of[i] = -1
    if k == 0:
        return
    e = &t.edges[nd.edges]
    while mask < <uint32_t>(4 * n) and mask < 2 * MAX_ACTIONS - 1:
        mask = 2 * mask + 1
    _new_stamp(t)
    for i in range(n):
        _table_put(t, mask, t.legal[i], i)
    for j in range(k):
        i = _table_get(t, mask, e[j].action)
        if i >= 0:
            t.child_of[i] = e[j].node


cdef inline double _ucb(const node_t* nd, int seat, double c, double mw) noexcept nogil:
    """A child's UCB score with availability counts, for `seat`."""
    cdef double inv = 1.0 / nd.visits
    return (nd.win[seat] + mw * nd.margin[seat]) * inv + c * sqrt(_log(nd.avail) * inv)


cdef int _select(tree_t* t, const int32_t* child_of, int n, int seat) noexcept nogil:
    """UCB with availability counts, for the seat to act; ties go to the first."""
    cdef double c = t.cfg.exploration
    cdef double mw = t.cfg.margin_weight / t.cfg.margin_scale
    cdef double score, best = -1e300
    cdef int i, best_i = 0
    cdef node_t* nd
    for i in range(n):
        if child_of[i] < 0:
            continue                    # not tried (progressive widening below the root)
        nd = &t.nodes[child_of[i]]
        nd.avail += 1
        score = _ucb(nd, seat, c, mw)
        if score > best:
            best = score
            best_i = i
    return best_i


cdef int32_t _select_widened(tree_t* t, const position_t* s, int32_t node, int width) noexcept nogil:
    """_select's choice at a widened node (not a fixed root), found from the
    node's children alone when `width` or more of them are legal in `s` (a
    node then selects and tries nothing new), so the legal actions need not be
    listed; -1 when fewer are (the caller lists them, and may expand). The
    child returned, the availability counted and ties broken by the legal
    actions' order are _select's, so the tree grows as it would."""
    cdef const node_t* nd = &t.nodes[node]
    cdef const edge_t* e
    cdef int k = nd.n_children, j, i, n, legal = 0, seat = s.to_act, ties = 0
    cdef uint64_t avail[SELECT_WORDS]
    cdef double c = t.cfg.exploration
    cdef double mw = t.cfg.margin_weight / t.cfg.margin_scale
    cdef double score, best = -1e300
    cdef int32_t best_node = -1
    cdef node_t* child
    if k < width or k > 64 * SELECT_WORDS:
        return -1
    e = &t.edges[nd.edges]
    memset(avail, 0, sizeof(avail))
    for j in range(k):
        if position_is_legal(s, e[j].action):
            avail[j >> 6] |= (<uint64_t>1) << (j & 63)
            legal += 1
    if legal < width:
        return -1
    for j in range(k):
        if not (avail[j >> 6] >> (j & 63)) & 1:
            continue
        child = &t.nodes[e[j].node]
        child.avail += 1
        score = _ucb(child, seat, c, mw)
        if score > best:
            best = score
            best_node = e[j].node
            ties = 0
        elif score == best:
            ties += 1
    if ties:                            # the first of the best in the legal actions' order
        n = position_legal_actions(s, t.legal)
        _map_children(t, node, n)
        for i in range(n):
            if t.child_of[i] >= 0 and _ucb(&t.nodes[t.child_of[i]], seat, c, mw) == best:
                return t.child_of[i]
    return best_node


cdef int _select_puct(tree_t* t, const int32_t* child_of, int n, int seat) noexcept nogil:
    """PUCT at a fixed root: mean + puct * prior * sqrt(visits) / (1 + child
    visits), among the tried children; ties go to the first."""
    cdef double c = t.cfg.puct * sqrt(<double>t.nodes[0].visits)
    cdef double mw = t.cfg.margin_weight / t.cfg.margin_scale
    cdef double score, best = -1e300
    cdef int i, best_i = 0
    cdef node_t* nd
    for i in range(n):
        if child_of[i] < 0:
            continue
        nd = &t.nodes[child_of[i]]
        nd.avail += 1
        score = ((nd.win[seat] + mw * nd.margin[seat]) / nd.visits
                 + c * t.root_prior[i] / (1.0 + nd.visits))
        if score > best:
            best = score
            best_i = i
    return best_i


cdef int _least_visited(tree_t* t, const int32_t* child_of, int n) noexcept nogil:
    cdef int i, best_i = 0
    cdef uint32_t best = 0xFFFFFFFFu
    for i in range(n):
        if t.nodes[child_of[i]].visits < best:
            best = t.nodes[child_of[i]].visits
            best_i = i
    return best_i


cdef void _result_values(const position_t* s, double* win, double* margin,
                         double* gold) noexcept nogil:
    """A finished game's value per seat: win share (shared wins split), final
    gold margin over the best other seat, final gold."""
    cdef result_t r
    cdef int n = s.n_seats, k, o, best_other
    position_result(s, &r)
    for k in range(n):
        win[k] = (1.0 / r.n_winners) if (r.winners >> k) & 1 else 0.0
        best_other = -1000000
        for o in range(n):
            if o != k and r.gold[o] > best_other:
                best_other = r.gold[o]
        margin[k] = r.gold[k] - best_other
        gold[k] = r.gold[k]


cdef void _backpropagate(tree_t* t, int n, int depth, const double* win, const double* margin,
                         const double* gold) noexcept nogil:
    """Add an iteration's values for every seat to the nodes on its path."""
    cdef int k, d
    cdef node_t* nd
    for k in range(n):
        t.gold_sum[k] += gold[k]
    t.gold_n += 1
    if t.cur_slot >= 0:
        t.slot_gold[t.cur_slot] += gold[t.root.to_act]
        t.slot_gold_n[t.cur_slot] += 1
    for d in range(depth + 1):
        nd = &t.nodes[t.path[d]]
        nd.visits += 1
        for k in range(n):
            nd.win[k] += win[k]
            nd.margin[k] += margin[k]


cdef int _pick_untried(tree_t* t, position_t* s, const action_t* acts, const int32_t* child_of,
                       int n, int u, int seat) noexcept nogil:
    """One of the `u` untried actions: the r-th for a uniform r, or the best
    one-step value of a few such picks (first drawn wins ties). A pick drawn
    twice is valued once: with few untried actions most of the picks repeat."""
    cdef int picks[MAX_SAMPLES]
    cdef int of_pick[MAX_SAMPLES]       # picks[j] is the of_pick[j]-th distinct pick, cand[of_pick[j]]
    cdef action_t cand[MAX_SAMPLES]     # the distinct picks' actions
    cdef double value[MAX_SAMPLES]
    cdef int j, q, i = 0, d = 0, m = t.cfg.expand_samples
    cdef int r = rng_below(&t.rng, u)
    cdef int32_t* untried = t.untried
    cdef const float* bias
    for j in range(n):
        if child_of[j] < 0:
            untried[i] = j
            i += 1
    picks[0] = untried[r]
    if m <= 1 or u == 1:
        return picks[0]
    _new_stamp(t)                       # table_stamp[r]: draw r seen, as distinct pick table_value[r]
    i = 0
    for j in range(m):
        if j:
            r = rng_below(&t.rng, u)
            picks[j] = untried[r]
        if t.table_stamp[r] == t.stamp:
            q = t.table_value[r]
        else:
            q = d
            t.table_stamp[r] = t.stamp
            t.table_value[r] = d
            cand[d] = acts[picks[j]]
            d += 1
        of_pick[j] = q
    if t.cfg.prior == PRIOR_MODEL and t.model != NULL:
        bias = model_policy_bias(t.model, s, seat, t.scratch)
        for q in range(d):
            value[q] = model_logit(t.model, s, seat, cand[q], bias, t.scratch)
    else:
        action_values_into(s, cand, d, seat, t.undo, value)
    for j in range(1, m):
        if value[of_pick[j]] > value[of_pick[i]]:
            i = j
    return picks[i]


cdef inline int _root_width(tree_t* t) noexcept nogil:
    cdef int w = <int>(t.cfg.widen * sqrt(<double>t.nodes[0].visits + 1.0)) + 1
    return w if w < t.n_root else t.n_root


cdef inline int _inner_width(tree_t* t, int32_t node) noexcept nogil:
    return <int>(t.cfg.widen_inner * sqrt(<double>t.nodes[node].visits + 1.0)) + 1


cdef inline int _descend(tree_t* t, int depth, int32_t child) noexcept nogil:
    """Put `child` next on the iteration's path (one below the root, also its
    slot); the new depth, or -1: out of memory."""
    if depth == 0:
        t.cur_slot = _slot_of(t, child)
        if t.cur_slot < 0:
            return -1
    t.path[depth + 1] = child
    return depth + 1


cdef int tree_iterate(tree_t* t) noexcept nogil:
    """One determinize-select-expand-playout-backpropagate pass; -1: out of memory."""
    cdef position_t* s = &t.work
    cdef int32_t node = 0, child
    cdef int depth = 0, n, i, u, r, seat, width
    cdef const action_t* acts
    cdef int32_t* child_of
    cdef double win[MAX_SEATS]
    cdef double margin[MAX_SEATS]
    cdef double gold[MAX_SEATS]
    memcpy(s, &t.root, sizeof(position_t))
    position_determinize(s, t.cfg.observer, t.cfg.known_hands, &t.rng)
    t.path[0] = 0
    t.cur_slot = -1
    while s.phase != PHASE_OVER and depth < MAX_DEPTH - 1:
        if node == 0 and t.root_fixed:
            acts = t.root_actions
            child_of = t.root_child
            n = t.n_root
            if t.cfg.widen > 0:
                n = _root_width(t)
            width = n
        else:
            if t.cfg.flat and node != 0:
                break
            if t.cfg.widen_inner > 0 and not t.cfg.flat:
                child = _select_widened(t, s, node, _inner_width(t, node))
                if child >= 0:
                    depth = _descend(t, depth, child)
                    if depth < 0:
                        return -1
                    position_apply(s, t.nodes[child].action)
                    node = child
                    continue
            n = position_legal_actions(s, t.legal)
            _map_children(t, node, n)
            acts = t.legal
            child_of = t.child_of
            width = _inner_width(t, node) if t.cfg.widen_inner > 0 else n
        seat = s.to_act
        u = 0
        for i in range(n):
            if child_of[i] < 0:
                u += 1
        if u > 0 and n - u < width:         # expand, else select among the tried
            i = _pick_untried(t, s, acts, child_of, n, u, seat)
            child = _new_node(t, node, acts[i], seat)
            if child == -1:
                return -1
            position_apply(s, acts[i])
            if child >= 0:
                child_of[i] = child
                depth = _descend(t, depth, child)
                if depth < 0:
                    return -1
            break
        if t.cfg.flat:
            i = _least_visited(t, child_of, n)
        elif node == 0 and t.root_fixed and t.cfg.puct > 0:
            i = _select_puct(t, child_of, n, seat)
        else:
            i = _select(t, child_of, n, seat)
        node = child_of[i]
        depth = _descend(t, depth, node)
        if depth < 0:
            return -1
        position_apply(s, acts[i])
    _leaf_values(t, s, win, margin, gold)
    _backpropagate(t, s.n_seats, depth, win, margin, gold)
    return 0


cdef void _leaf_values(tree_t* t, position_t* s, double* win, double* margin,
                       double* gold) noexcept nogil:
    """The value of the iteration's leaf `s` for every seat: a finished game's
    result; else the value network's estimate, a playout's result, or a blend
    of the two (cfg.value_weight, or cfg.late_value in the last third of the
    game: two thirds of the worker tiles gone)."""
    cdef double w = t.cfg.value_weight
    cdef double mw[MAX_SEATS]
    cdef double mm[MAX_SEATS]
    cdef double mg[MAX_SEATS]
    cdef int k, left, total
    if s.phase == PHASE_OVER:
        _result_values(s, win, margin, gold)
        return
    if t.cfg.late_value != w:
        position_tiles_left(s, &left, &total)
        if 3 * (total - left) >= 2 * total:
            w = t.cfg.late_value
    if w > 0 and t.model != NULL:
        model_value(t.model, s, s.to_act, t.scratch, mw, mm, mg)
        if w >= 1:
            for k in range(s.n_seats):
                win[k], margin[k], gold[k] = mw[k], mm[k], mg[k]
            return
    if t.cfg.playout == PLAYOUT_INFORMED:
        playout_informed(s, &t.rng, t.cfg.samples)
    else:
        position_playout(s, &t.rng)
    _result_values(s, win, margin, gold)
    if w > 0 and t.model != NULL:
        for k in range(s.n_seats):
            win[k] = w * mw[k] + (1 - w) * win[k]
            margin[k] = w * mm[k] + (1 - w) * margin[k]
            gold[k] = w * mg[k] + (1 - w) * gold[k]


cdef bint _keeps_every_root_child(tree_t* t) noexcept nogil:
    """True when every child of node 0 stays a root child (and root_child then
    maps them): not a fixed root, or every child's action among root_actions."""
    cdef int i, mapped = 0
    if not t.root_fixed:
        return True
    memcpy(t.legal, t.root_actions, t.n_root * sizeof(action_t))
    _map_children(t, 0, t.n_root)
    for i in range(t.n_root):
        t.root_child[i] = t.child_of[i]
        if t.child_of[i] >= 0:
            mapped += 1
    return mapped == t.nodes[0].n_children


cdef inline bint _uses_display(action_t a) noexcept nogil:
    """A placement that fills jungle spaces from display slots."""
    return action_kind(a) == ACT_PLACE and (a >> 18) != 0


cdef int _rebuild(tree_t* t, const int32_t* old_of, const int32_t* parent, int32_t count,
                  int32_t cap, int32_t min_edges) noexcept nogil:
    """Replace the pools by `count` nodes: new node j is old node old_of[j], a
    child of new node parent[j] (parent[0] = -1, parent[j] < j), and siblings
    newest first are in the order of their new indices. The node pool gets
    room for `cap` nodes, the edge pool for at least `min_edges` edges.
    Returns 0, or -1 when out of memory (nothing changed)."""
    cdef node_t* pool = <node_t*>malloc(cap * sizeof(node_t))
    cdef edge_t* edges
    cdef node_t* nd
    cdef int64_t total = 0, room
    cdef int32_t j, size
    if pool == NULL:
        return -1
    for j in range(count):
        pool[j] = t.nodes[old_of[j]]
        pool[j].edges = -1
        pool[j].n_children = 0
    for j in range(1, count):
        pool[parent[j]].n_children += 1
    for j in range(count):
        if pool[j].n_children > 0:
            pool[j].edges = <int32_t>total
            total += _block_span(_block_size(pool[j].n_children))
    room = total if total > min_edges else min_edges
    edges = <edge_t*>malloc(room * sizeof(edge_t)) if room <= INT32_MAX else NULL
    if edges == NULL:
        free(pool)
        return -1
    for j in range(count):
        pool[j].n_children = 0
    for j in range(count - 1, 0, -1):   # each block holds its children oldest first
        nd = &pool[parent[j]]
        edges[nd.edges + nd.n_children].action = pool[j].action
        edges[nd.edges + nd.n_children].node = j
        nd.n_children += 1
    for j in range(count):
        size = _block_size(pool[j].n_children)
        if pool[j].n_children > 0 and size >= INDEXED_FROM:
            _index_block(&edges[pool[j].edges], size, pool[j].n_children)
    free(t.nodes)
    free(t.edges)
    t.nodes = pool
    t.n_nodes = count
    t.capacity = cap
    t.edges = edges
    t.n_edges = <int32_t>total
    t.edge_capacity = <int32_t>room
    return 0


cdef int _compact_from(tree_t* t, int32_t top, bint drawn) noexcept nogil:
    """Make the subtree under `top` the whole tree: copy it breadth-first into
    a fresh pool, `top` becoming the root (index 0) with its statistics. With
    a fixed root (t.root_actions listed by _prepare_root), only the children
    whose actions are root actions are kept, their statistics alone staying in
    the root's, and root_child maps them. Otherwise (the root's actions vary
    with hidden facts) the children legal in at least one of REROOT_SAMPLES
    determinizations of the new root are kept: a descent past a chance event
    (a display refilled from the deck) can leave codes that no determinization
    of the real position allows. With `drawn` (jungle tiles were drawn on the
    way down), children that fill from the display are dropped too: the tree
    grew them over every display its determinizations drew, so their figures
    mix actions that took other tiles. The same root keeping every child is
    left in place. Returns 0, or -1 when out of memory (the tree is then
    unchanged)."""
    cdef int32_t* old_of = <int32_t*>malloc(t.n_nodes * sizeof(int32_t))
    cdef int32_t* parent = <int32_t*>malloc(t.n_nodes * sizeof(int32_t))
    cdef node_t* nd
    cdef node_t* c
    cdef int32_t count = 1, j, ch, cap
    cdef int i, k, r, n, m, n_seats = t.root.n_seats
    cdef uint8_t* mark
    cdef node_t dropped
    if old_of == NULL or parent == NULL:
        free(old_of)
        free(parent)
        return -1
    if top == 0 and _keeps_every_root_child(t):
        free(old_of)                            # the same root, nothing dropped: no copy
        free(parent)
        return 0
    memset(&dropped, 0, sizeof(node_t))
    old_of[0] = top
    parent[0] = -1
    nd = &t.nodes[top]
    if t.root_fixed:
        for m in range(nd.n_children - 1, -1, -1):     # every child's statistics ...
            c = &t.nodes[t.edges[nd.edges + m].node]
            dropped.visits += c.visits
            for k in range(n_seats):
                dropped.win[k] += c.win[k]
                dropped.margin[k] += c.margin[k]
        memcpy(t.legal, t.root_actions, t.n_root * sizeof(action_t))
        _map_children(t, top, t.n_root)
        for i in range(t.n_root):
            ch = t.child_of[i]
            if ch >= 0 and not (drawn and _uses_display(t.root_actions[i])):   # ... less the kept ones'
                c = &t.nodes[ch]
                dropped.visits -= c.visits
                for k in range(n_seats):
                    dropped.win[k] -= c.win[k]
                    dropped.margin[k] -= c.margin[k]
                t.root_child[i] = count
                old_of[count] = ch
                parent[count] = 0
                count += 1
        j = 1
    elif top != 0:
        mark = <uint8_t*>calloc(t.n_nodes, 1)
        if mark == NULL:
            free(old_of)
            free(parent)
            return -1
        for r in range(REROOT_SAMPLES):
            t.work = t.root
            position_determinize(&t.work, t.cfg.observer, t.cfg.known_hands, &t.rng)
            n = position_legal_actions(&t.work, t.legal)
            _map_children(t, top, n)
            for i in range(n):
                if t.child_of[i] >= 0:
                    mark[t.child_of[i]] = 1
        for m in range(nd.n_children - 1, -1, -1):
            ch = t.edges[nd.edges + m].node
            c = &t.nodes[ch]
            if mark[ch] and not (drawn and _uses_display(c.action)):
                old_of[count] = ch
                parent[count] = 0
                count += 1
            else:
                dropped.visits += c.visits
                for k in range(n_seats):
                    dropped.win[k] += c.win[k]
                    dropped.margin[k] += c.margin[k]
        free(mark)
        j = 1
    else:
        j = 0
    while j < count:                            # breadth first, siblings newest first
        nd = &t.nodes[old_of[j]]
        for m in range(nd.n_children - 1, -1, -1):
            old_of[count] = t.edges[nd.edges + m].node
            parent[count] = j
            count += 1
        j += 1
    cap = count if count > INITIAL_NODES else INITIAL_NODES
    if cap > t.max_nodes and count <= t.max_nodes:
        cap = t.max_nodes
    r = _rebuild(t, old_of, parent, count, cap, INITIAL_EDGES)
    free(old_of)
    free(parent)
    if r < 0:
        return -1
    nd = &t.nodes[0]
    nd.action = 0
    nd.seat = <uint32_t>-1
    nd.avail = 1
    nd.visits -= dropped.visits
    for k in range(n_seats):
        nd.win[k] -= dropped.win[k]
        nd.margin[k] -= dropped.margin[k]
    return 0


cdef void _relayout(tree_t* t) noexcept nogil:
    """Copy the node pool in breadth-first order, each node's children side by
    side, and the edge pool without the blocks left by growth, so that the
    child look-up (_map_children) and selection (_select, which reads every
    child legal now) walk memory in order instead of jumping over pools
    larger than the caches.
    Sibling order and every statistic stay, so the search is unchanged; the
    node indices in root_child and slot_node follow. Skipped when memory is
    short."""
    cdef int32_t n = t.n_nodes, head = 0, count = 1, c
    cdef int i, m
    cdef int32_t* new_of = <int32_t*>malloc(n * sizeof(int32_t))
    cdef int32_t* old_of = <int32_t*>malloc(n * sizeof(int32_t))
    cdef int32_t* parent = <int32_t*>malloc(n * sizeof(int32_t))
    cdef node_t* nd
    if new_of != NULL and old_of != NULL and parent != NULL:
        old_of[0] = 0
        new_of[0] = 0
        parent[0] = -1
        while head < count:
            nd = &t.nodes[old_of[head]]
            for m in range(nd.n_children - 1, -1, -1):
                c = t.edges[nd.edges + m].node
                if count == n:
                    break
                old_of[count] = c
                new_of[c] = count
                parent[count] = head
                count += 1
            head += 1
        if count == n and _rebuild(t, old_of, parent, n, t.capacity, t.edge_capacity) == 0:
            if t.root_fixed:
                for i in range(t.n_root):
                    if t.root_child[i] >= 0:
                        t.root_child[i] = new_of[t.root_child[i]]
            for i in range(t.n_slots):
                if t.slot_node[i] >= 0:
                    t.slot_node[i] = new_of[t.slot_node[i]]
    free(new_of)
    free(old_of)
    free(parent)


cdef int tree_run(tree_t* t, uint64_t max_iterations, double deadline,
                  const int* stop, const int* pause) noexcept nogil:
    """Iterate until the budget (iterations, deadline > 0, *stop != 0) ends or
    *pause is set (the tree is then continued by another call).
    Each time the tree doubles (from RELAYOUT_NODES nodes on) its pool is laid
    out again (_relayout)."""
    while True:
        if t.n_nodes >= t.relayout_at:
            if t.n_nodes >= RELAYOUT_NODES:
                _relayout(t)
            t.relayout_at = max(2 * t.n_nodes, RELAYOUT_NODES)
        if t.iterations >= max_iterations:
            return STOP_ITERATIONS
        if stop != NULL and cacao_load_flag(stop):
            return STOP_FLAG
        if pause != NULL and cacao_load_flag(pause):
            return STOP_PAUSE
        if deadline > 0 and now_seconds() >= deadline:
            return STOP_TIME
        if tree_iterate(t) < 0:
            return STOP_ERROR
        t.iterations += 1


# --- Python layer -------------------------------------------------------------

cdef class StopFlag:
    """A flag that ends running searches when set.

    Thread-safe: any thread may call set() at any time; searches poll the flag
    between iterations (atomic load, no GIL). A flag stays set until clear().
    """

    def set(self) -> None:
        cacao_store_flag(&self.flag, 1)

    def clear(self) -> None:
        cacao_store_flag(&self.flag, 0)

    def is_set(self) -> bool:
        return cacao_load_flag(&self.flag) != 0

    def __repr__(self) -> str:
        return f"StopFlag(set={self.is_set()})"


STOP_REASONS = {STOP_ITERATIONS: "iterations", STOP_TIME: "time", STOP_FLAG: "stop",
                STOP_PAUSE: "pause"}
PRIORS = {"greedy": PRIOR_GREEDY, "model": PRIOR_MODEL}
PRIORITIES = {"normal": PRIORITY_NORMAL, "reduced": PRIORITY_REDUCED, "low": PRIORITY_LOW,
              "idle": PRIORITY_IDLE}


cdef void lower_thread(int priority) noexcept nogil:
    cacao_lower_thread(priority)


cdef void* job_main(void* arg) noexcept nogil:
    cdef job_t* job = <job_t*>arg
    cacao_lower_thread(job.priority)
    job.reason = tree_run(job.tree, job.limit, job.deadline, job.stop, job.pause)
    return NULL


def run_trees(list trees, list budgets, double deadline=0.0, StopFlag stop=None,
              str priority="normal", StopFlag pause=None):
    """Run each tree until its budget (total iterations, < 0: none), `deadline`
    (monotonic() seconds, 0: none), `stop` or `pause` is set; returns why each
    stopped ("iterations", "time", "stop", "pause").

    Each tree runs on a C thread of its own at `priority` ("normal", "reduced":
    nice 5, "low": nice 19, "idle": SCHED_IDLE on Linux) that never takes the GIL, while the
    calling thread waits without it; one tree at normal priority runs in the
    calling thread. Only these threads are lowered: a lowered thread holding
    the GIL would stall every thread waiting for it.
    """
    cdef int n = len(trees), i, level
    cdef Tree tree
    cdef job_t* jobs
    cdef pthread_t* threads
    cdef int* started
    if priority not in PRIORITIES:
        raise ValueError(f"priority: must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    if len(budgets) != n:
        raise ValueError("one budget per tree")
    level = PRIORITIES[priority]
    jobs = <job_t*>malloc(n * sizeof(job_t))
    threads = <pthread_t*>malloc(n * sizeof(pthread_t))
    started = <int*>malloc(n * sizeof(int))
    try:
        if n and (jobs == NULL or threads == NULL or started == NULL):
            raise MemoryError()
        for i in range(n):
            tree = trees[i]
            if tree.t.n_nodes == 0:
                raise ValueError("reset() the tree first")
            jobs[i].tree = &tree.t
            jobs[i].limit = <uint64_t>budgets[i] if budgets[i] >= 0 else <uint64_t>-1
            jobs[i].deadline = deadline
            jobs[i].stop = &stop.flag if stop is not None else NULL
            jobs[i].pause = &pause.flag if pause is not None else NULL
            jobs[i].priority = level
            jobs[i].reason = STOP_ERROR
        with nogil:
            if n == 1 and level == PRIORITY_NORMAL:
                job_main(&jobs[0])
            else:
                for i in range(n):
                    started[i] = cacao_thread_start(&threads[i], job_main, &jobs[i]) == 0
                    if not started[i]:  # no thread to be had: run it here, unlowered
                        jobs[i].priority = PRIORITY_NORMAL
                        job_main(&jobs[i])
                for i in range(n):
                    if started[i]:
                        pthread_join(threads[i], NULL)
        if any(jobs[i].reason == STOP_ERROR for i in range(n)):
            raise MemoryError("search tree")
        return [STOP_REASONS[jobs[i].reason] for i in range(n)]
    finally:
        free(jobs)
        free(threads)
        free(started)


cdef class Tree:
    """One search tree with its buffers. Not thread-safe: one thread runs it
    at a time (run() releases the GIL while it iterates)."""
    cdef tree_t t
    cdef ModelHandle model_ref     # keeps t.model's weights alive

    def __cinit__(self):
        memset(&self.t, 0, sizeof(tree_t))
        self.t.nodes = <node_t*>malloc(INITIAL_NODES * sizeof(node_t))
        self.t.capacity = INITIAL_NODES
        self.t.edges = <edge_t*>malloc(INITIAL_EDGES * sizeof(edge_t))
        self.t.edge_capacity = INITIAL_EDGES
        self.t.legal = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
        self.t.child_of = <int32_t*>malloc(MAX_ACTIONS * sizeof(int32_t))
        self.t.untried = <int32_t*>malloc(MAX_ACTIONS * sizeof(int32_t))
        self.t.root_actions = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
        self.t.root_child = <int32_t*>malloc(MAX_ACTIONS * sizeof(int32_t))
        self.t.table_key = <uint32_t*>malloc(2 * MAX_ACTIONS * sizeof(uint32_t))
        self.t.table_value = <int32_t*>malloc(2 * MAX_ACTIONS * sizeof(int32_t))
        self.t.table_stamp = <uint32_t*>malloc(2 * MAX_ACTIONS * sizeof(uint32_t))
        self.t.undo = <uint8_t*>malloc(TAIL_BYTES)
        self.t.root_prior = <double*>malloc(MAX_ACTIONS * sizeof(double))
        self.t.slot_capacity = INITIAL_SLOTS
        self.t.slot_node = <int32_t*>malloc(INITIAL_SLOTS * sizeof(int32_t))
        self.t.slot_gold = <double*>malloc(INITIAL_SLOTS * sizeof(double))
        self.t.slot_gold_n = <uint32_t*>malloc(INITIAL_SLOTS * sizeof(uint32_t))
        if (self.t.nodes == NULL or self.t.edges == NULL or self.t.legal == NULL or self.t.child_of == NULL
                or self.t.untried == NULL or self.t.root_prior == NULL or self.t.slot_node == NULL
                or self.t.slot_gold == NULL or self.t.slot_gold_n == NULL
                or self.t.root_actions == NULL or self.t.root_child == NULL
                or self.t.table_key == NULL or self.t.table_value == NULL
                or self.t.table_stamp == NULL or self.t.undo == NULL):
            raise MemoryError()
        memset(self.t.table_stamp, 0, 2 * MAX_ACTIONS * sizeof(uint32_t))

    def __dealloc__(self):
        free(self.t.nodes)
        free(self.t.edges)
        free(self.t.legal)
        free(self.t.child_of)
        free(self.t.untried)
        free(self.t.root_actions)
        free(self.t.root_child)
        free(self.t.table_key)
        free(self.t.table_value)
        free(self.t.table_stamp)
        free(self.t.undo)
        free(self.t.root_prior)
        free(self.t.slot_node)
        free(self.t.slot_gold)
        free(self.t.slot_gold_n)
        free(self.t.scratch)

    def reset(self, CorePosition core, *, int observer, int known_hands, uint64_t seed, settings,
              allow=(), avoid=(), ModelHandle model=None):
        """Start a new search from `core` for `observer` with `settings` (a
        SearchSettings; `model`, its loaded model when it uses one).

        `allow` (when not empty) and `avoid` restrict the root's actions to
        these codes and to the others; they apply only when the root's actions
        are fixed (the seat to act's hand is known) and the caller checks them."""
        cdef tree_t* t = &self.t
        cdef int max_nodes = settings.max_nodes
        if core.pos.phase == PHASE_OVER:
            raise ValueError("the game is over")
        if not 0 <= observer < core.pos.n_seats:
            raise ValueError(f"observer {observer} is not a seat")
        if max_nodes < 2:
            raise ValueError("max_nodes must be at least 2")
        expand_samples, widen_inner = settings.expansion
        t.cfg.observer = observer
        t.cfg.known_hands = known_hands | (1 << observer)
        t.cfg.playout = PLAYOUTS[settings.playout]
        t.cfg.samples = min(max(1, settings.samples), MAX_SAMPLES)
        t.cfg.flat = settings.algorithm == "flat"
        t.cfg.exploration = settings.ucb_constant
        t.cfg.margin_weight = settings.margin_weight_for(core.pos.n_seats)
        t.cfg.margin_scale = settings.margin_scale if settings.margin_scale > 0 else 1.0
        t.cfg.expand_samples = min(max(1, expand_samples), MAX_SAMPLES)
        t.cfg.widen = settings.widen
        t.cfg.widen_inner = widen_inner
        t.cfg.value_weight = settings.value
        t.cfg.late_value = settings.value if settings.late_value is None else settings.late_value
        t.cfg.prior = PRIORS[settings.prior]
        t.cfg.puct = settings.puct
        if (t.cfg.value_weight > 0 or t.cfg.late_value > 0 or t.cfg.prior == PRIOR_MODEL) and model is None:
            raise ValueError("value_weight and the model prior need a model")
        self._use(model)
        t.max_nodes = max_nodes
        rng_seed(&t.rng, seed)
        t.root = core.pos
        _restart_counts(t)
        t.n_nodes = 0
        t.n_edges = 0
        _new_node(t, -1, 0, -1)
        self._prepare(allow, avoid)

    cdef _use(self, ModelHandle model):
        """Point the tree at `model`'s weights (None: no model) with scratch for it."""
        free(self.t.scratch)
        self.t.scratch = NULL
        self.t.model = NULL
        self.model_ref = model
        if model is not None:
            self.t.scratch = <float*>malloc(model_scratch_floats(&model.m) * sizeof(float))
            if self.t.scratch == NULL:
                raise MemoryError()
            self.t.model = &model.m

    cdef _prepare(self, allow, avoid):
        """_prepare_root with Python sequences of codes."""
        cdef int n_allow = len(allow), n_avoid = len(avoid), i
        cdef action_t* codes = <action_t*>malloc((n_allow + n_avoid + 1) * sizeof(action_t))
        if codes == NULL:
            raise MemoryError()
        try:
            for i in range(n_allow):
                codes[i] = <action_t>allow[i]
            for i in range(n_avoid):
                codes[n_allow + i] = <action_t>avoid[i]
            _prepare_root(&self.t, codes, n_allow, codes + n_allow, n_avoid)
        finally:
            free(codes)

    def reroot(self, CorePosition core, path=(), *, uint64_t seed, allow=(), avoid=()):
        """Continue this tree from `core`, the position reached from its root
        by the action codes in `path` (the same observer and settings): the
        subtree under that node becomes the tree, with its statistics; the
        root's actions are listed again for `core` (children that are not
        among them are dropped, and those that fill from the display when
        jungle tiles were drawn since), iterations and gold counts start again.
        Returns False, leaving the tree unchanged, when it has no such node."""
        cdef tree_t* t = &self.t
        cdef int32_t node = 0
        cdef int rc
        cdef bint drawn
        if t.n_nodes == 0:
            raise ValueError("reset() the tree first")
        if core.pos.phase == PHASE_OVER:
            raise ValueError("the game is over")
        if core.pos.n_seats != t.root.n_seats:
            raise ValueError("the position has another number of players")
        for code in path:
            node = _child_by_code(t, node, <action_t>code)
            if node < 0:
                return False
        drawn = t.root.deck_end - t.root.deck_pos != core.pos.deck_end - core.pos.deck_pos
        rng_seed(&t.rng, seed)
        t.root = core.pos
        _restart_counts(t)
        self._prepare(allow, avoid)
        with nogil:
            rc = _compact_from(t, node, drawn)
        if rc < 0:
            raise MemoryError("search tree")
        return True

    def compact(self):
        """Shrink the node and edge pools to what is in use (for a tree kept for later)."""
        cdef node_t* pool
        cdef edge_t* edges
        cdef int32_t cap = self.t.n_nodes if self.t.n_nodes > 0 else 1
        if cap < self.t.capacity:
            pool = <node_t*>realloc(self.t.nodes, cap * sizeof(node_t))
            if pool != NULL:
                self.t.nodes = pool
                self.t.capacity = cap
        cap = self.t.n_edges if self.t.n_edges > 0 else 1
        if cap < self.t.edge_capacity:
            edges = <edge_t*>realloc(self.t.edges, cap * sizeof(edge_t))
            if edges != NULL:
                self.t.edges = edges
                self.t.edge_capacity = cap

    def run(self, long long max_iterations=-1, double deadline=0.0, StopFlag stop=None):
        """Iterate until `max_iterations` (total, < 0: no limit), `deadline`
        (monotonic() seconds, 0: none) or `stop`, in the calling thread with
        the GIL released; returns why it stopped (see run_trees)."""
        return run_trees([self], [max_iterations], deadline, stop)[0]

    @property
    def iterations(self):
        return self.t.iterations

    @property
    def nodes(self):
        return self.t.n_nodes

    def memory_bytes(self):
        """Bytes this tree holds: the node and edge pools (capacity) and the buffers."""
        return (self.t.capacity * sizeof(node_t) + self.t.edge_capacity * sizeof(edge_t)
                + sizeof(tree_t)
                + MAX_ACTIONS * (2 * sizeof(action_t) + 2 * sizeof(int32_t) + sizeof(double))
                + self.t.slot_capacity * (sizeof(int32_t) + sizeof(double) + sizeof(uint32_t))
                + 2 * MAX_ACTIONS * (2 * sizeof(uint32_t) + sizeof(int32_t)) + TAIL_BYTES)

    @staticmethod
    def node_bytes():
        return sizeof(node_t)

    def root_stats(self):
        """(visits, win sums, margin sums, final gold sums, gold count) at the
        root, sums per seat. Visits and win and margin sums include a reused
        tree's kept visits; the gold sums count the `gold count` iterations
        since the tree was (re)rooted."""
        cdef node_t* nd = &self.t.nodes[0]
        n = self.t.root.n_seats
        return (nd.visits, [nd.win[k] for k in range(n)], [nd.margin[k] for k in range(n)],
                [self.t.gold_sum[k] for k in range(n)], self.t.gold_n)

    def root_children(self):
        """The root's children: [(code, visits, win sums, margin sums, gold
        sum, gold count, prior)]. With fixed root actions, those among them
        in their order (by one-step value when widening) with their priors;
        otherwise every child, prior None. The gold sum is the final gold of
        the seat to act over the `gold count` iterations through the child
        since the tree was (re)rooted."""
        cdef tree_t* t = &self.t
        cdef int i
        out = []
        if t.root_fixed:
            for i in range(t.n_root):
                if t.root_child[i] >= 0:
                    out.append(self._child(t.root_child[i], t.root_prior[i]))
        else:
            for i in range(t.nodes[0].n_children - 1, -1, -1):     # newest first
                out.append(self._child(t.edges[t.nodes[0].edges + i].node, None))
        return out

    cdef _child(self, int32_t c, prior):
        cdef tree_t* t = &self.t
        cdef node_t* nd = &t.nodes[c]
        cdef int32_t k
        cdef double gold = 0.0
        cdef uint32_t gold_n = 0
        n = t.root.n_seats
        for k in range(t.n_slots):
            if t.slot_node[k] == c:
                gold = t.slot_gold[k]
                gold_n = t.slot_gold_n[k]
                break
        return (nd.action, nd.visits, [nd.win[i] for i in range(n)],
                [nd.margin[i] for i in range(n)], gold, gold_n, prior)

    def children(self, path=()):
        """Children of the node reached from the root by the action codes in
        `path`, newest first: [(code, seat, visits, avail, win sums, margin
        sums)], or []."""
        cdef tree_t* t = &self.t
        cdef int32_t node = 0, m
        cdef node_t* nd
        n = t.root.n_seats
        for code in path:
            node = _child_by_code(t, node, <action_t>code)
            if node < 0:
                return []
        out = []
        for m in range(t.nodes[node].n_children - 1, -1, -1):
            nd = &t.nodes[t.edges[t.nodes[node].edges + m].node]
            out.append((nd.action, nd.seat, nd.visits, nd.avail,
                        [nd.win[k] for k in range(n)], [nd.margin[k] for k in range(n)]))
        return out


# --- bots' helpers --------------------------------------------------------------

def greedy_code(CorePosition core, uint64_t seed):
    """The greedy bot's action code: one ply maximising the mover's seat_value,
    ties at random. It never peeks at a blind draw: values are taken on a copy
    whose jungle deck is empty, so a cell that would take a blind draw stays
    empty. The legal actions are the real position's (the mover's own hand)."""
    cdef position_t* blind = <position_t*>malloc(sizeof(position_t))
    cdef action_t* legal = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    cdef double* value = <double*>malloc(MAX_ACTIONS * sizeof(double))
    cdef uint8_t* undo = <uint8_t*>malloc(TAIL_BYTES)
    cdef rng_t rng
    cdef int n, i, n_best = 0, seat
    cdef double v, best = -1e300
    cdef action_t choice = 0
    try:
        if blind == NULL or legal == NULL or value == NULL or undo == NULL:
            raise MemoryError()
        if core.pos.phase == PHASE_OVER:
            raise ValueError("the game is over")
        rng_seed(&rng, seed)
        with nogil:
            n = position_legal_actions(&core.pos, legal)
            blind[0] = core.pos
            blind.deck_pos = blind.deck_end
            seat = blind.to_act
            action_values_into(blind, legal, n, seat, undo, value)
            for i in range(n):
                v = value[i]
                if v > best:
                    best = v
                    n_best = 1
                    choice = legal[i]
                elif v == best:
                    # reservoir sampling over the ties
                    n_best += 1
                    if rng_below(&rng, n_best) == 0:
                        choice = legal[i]
        return choice
    finally:
        free(blind)
        free(legal)
        free(value)
        free(undo)


def principal_codes(list trees, uint32_t first, int plies, uint32_t min_visits):
    """The action codes of the principal variation from the root's child by
    `first`: at each node the child with the most visits summed over `trees`
    (ties: the lower code) while it has at least `min_visits`; at most `plies`
    codes, `first` included. A tree without the node adds nothing from there
    on. The report's walk, without a Python object a child."""
    cdef int n = len(trees), i, m, k, count, best, room
    cdef Tree tree
    cdef tree_t* t
    cdef node_t* nd
    cdef node_t* child
    cdef int32_t* at = <int32_t*>malloc((n if n > 0 else 1) * sizeof(int32_t))
    cdef action_t* codes = NULL
    cdef uint64_t* visits = NULL
    out = [first]
    try:
        if at == NULL:
            raise MemoryError()
        for i in range(n):
            tree = trees[i]
            at[i] = _child_by_code(&tree.t, 0, <action_t>first) if tree.t.n_nodes > 0 else -1
        while len(out) < plies:
            room = 0
            for i in range(n):
                if at[i] >= 0:
                    tree = trees[i]
                    room += tree.t.nodes[at[i]].n_children
            if room == 0:
                break
            free(codes)
            free(visits)
            codes = <action_t*>malloc(room * sizeof(action_t))
            visits = <uint64_t*>malloc(room * sizeof(uint64_t))
            if codes == NULL or visits == NULL:
                raise MemoryError()
            count = 0
            for i in range(n):
                if at[i] < 0:
                    continue
                tree = trees[i]
                t = &tree.t
                nd = &t.nodes[at[i]]
                for m in range(nd.n_children):
                    child = &t.nodes[t.edges[nd.edges + m].node]
                    for k in range(count):
                        if codes[k] == child.action:
                            visits[k] += child.visits
                            break
                    else:
                        codes[count] = child.action
                        visits[count] = child.visits
                        count += 1
            best = 0
            for k in range(1, count):
                if visits[k] > visits[best] or (visits[k] == visits[best] and codes[k] < codes[best]):
                    best = k
            if visits[best] < min_visits:
                break
            out.append(codes[best])
            for i in range(n):
                if at[i] >= 0:
                    tree = trees[i]
                    at[i] = _child_by_code(&tree.t, at[i], codes[best])
        return out
    finally:
        free(at)
        free(codes)
        free(visits)


def playable_prefix(CorePosition core, codes):
    """How many of `codes` can be played in order from `core` (each legal
    where it is played), on a copy: the principal variation's check of a
    determinization, one legal-action list a ply and no Python objects."""
    cdef position_t* p = <position_t*>malloc(sizeof(position_t))
    cdef action_t* legal = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    cdef int n, i, length = 0
    cdef action_t a
    cdef bint found
    try:
        if p == NULL or legal == NULL:
            raise MemoryError()
        p[0] = core.pos
        for code in codes:
            if not 0 <= code <= 0xFFFFFFFF:
                break
            a = <action_t>code
            n = position_legal_actions(p, legal)
            found = False
            for i in range(n):
                if legal[i] == a:
                    found = True
                    break
            if not found:
                break
            position_apply(p, a)
            length += 1
        return length
    finally:
        free(p)
        free(legal)


def action_values(CorePosition core, codes, int seat, bint blind=False):
    """seat_value of `seat` after each action code (for tests and reports).
    With `blind`, values are the greedy bot's: without the jungle deck."""
    cdef position_t* p = <position_t*>malloc(sizeof(position_t))
    cdef uint8_t* undo = <uint8_t*>malloc(TAIL_BYTES)
    try:
        if p == NULL or undo == NULL:
            raise MemoryError()
        p[0] = core.pos
        if blind:
            p.deck_pos = p.deck_end
        return [action_value(p, <action_t>c, seat, undo) for c in codes]
    finally:
        free(p)
        free(undo)


def check_values(CorePosition core, uint64_t seed, int plies, bint blind=False):
    """Play `plies` random actions from a copy of `core`; before each, evaluate
    every legal action (with or without the jungle deck) and count the
    evaluations, those by applied_value that did not leave the position
    byte-for-byte unchanged (the in-place evaluation's invariant), and the
    places and overbuilds whose place_value (position_preview) differs from
    applied_value. Returns (checked, changed, mismatched)."""
    cdef position_t* p = <position_t*>malloc(sizeof(position_t))
    cdef position_t* view = <position_t*>malloc(sizeof(position_t))
    cdef position_t* before = <position_t*>malloc(sizeof(position_t))
    cdef action_t* legal = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
    cdef uint8_t* undo = <uint8_t*>malloc(TAIL_BYTES)
    cdef rng_t rng
    cdef int n, i, k, changed = 0, mismatched = 0, checked = 0
    cdef int32_t awards
    cdef double v
    try:
        if p == NULL or view == NULL or before == NULL or legal == NULL or undo == NULL:
            raise MemoryError()
        rng_seed(&rng, seed)
        p[0] = core.pos
        for k in range(plies):
            if p.phase == PHASE_OVER:
                break
            n = position_legal_actions(p, legal)
            view[0] = p[0]
            if blind:
                view.deck_pos = view.deck_end
            before[0] = view[0]
            awards = _awards_of(view, view.mover)
            for i in range(n):
                checked += 1
                v = applied_value(view, legal[i], view.to_act, undo)
                if memcmp(view, before, sizeof(position_t)) != 0:
                    changed += 1
                    view[0] = before[0]
                if _previewable(view, legal[i], view.to_act) and place_value(view, legal[i], awards) != v:
                    mismatched += 1
            position_apply(p, legal[rng_below(&rng, n)])
        return checked, changed, mismatched
    finally:
        free(p)
        free(view)
        free(before)
        free(legal)
        free(undo)
