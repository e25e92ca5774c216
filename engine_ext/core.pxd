# cython: language_level=3
"""C-level contract of the Cacao rules core (see docs/rules.md).

Everything declared here is plain C data and ``noexcept nogil`` functions, so a
search may call it from several threads at once without the GIL: each thread
owns its ``position_t`` and ``rng_t`` values; nothing here has global mutable
state. A ``position_t`` is one flat struct: cloning is a struct copy.

The hot-path functions trust their input: ``position_apply`` does not check
legality. The Python layer (``CorePosition.apply`` and ``cacaoai.engine``)
checks everything that comes from outside.
"""

from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    MAX_SEATS = 4
    GRID_SIZE = 64          # the board is GRID_SIZE x GRID_SIZE cells ...
    GRID_ORIGIN = 32        # ... and board cell (0, 0) is grid (32, 32)
    GRID_CELLS = 4096
    GRID_REACH = 30         # |x|, |y| <= 28 in any legal game (docs/rules.md#board-geometry)
    PILE_MAX = 11           # worker tiles per seat (2 players)
    DECK_MAX = 26           # jungle deck with 3-4 players
    MAX_JUNGLE = 28
    MAX_WORKER_TILES = 44
    MAX_FRONTIER = 120      # empty cells next to a jungle tile
    MAX_ACTIVATIONS = 16    # activated worker sides in one turn, all seats
    MAX_RESULTS = 6         # Pareto results of one resolution (one per cacao count)
    MAX_ACTIONS = 16384     # size of a buffer for position_legal_actions
    MAX_PLAYOUT_SAMPLES = 64    # candidates per turn of position_playout_informed

# Limits of the rules (docs/rules.md), used by the C and read by cacaoai.engine.rules.
cdef enum:
    HAND_SIZE = 3           # worker tiles in a full hand
    MAX_CACAO = 5           # cacao a seat can hold; more is lost
    MAX_SUN = 3             # sun tokens a seat can hold
    MAX_WATER = 8           # the last space of the water track (spaces 0..MAX_WATER)
    SUN_GOLD = 1            # gold for each sun token left at the end

# Worker tile types (docs/rules.md#worker-tiles).
cdef enum:
    W1111 = 0
    W2101 = 1
    W3001 = 2
    W3100 = 3

# Jungle tile kinds; a grid cell holds one of these, EMPTY, or a worker byte.
cdef enum:
    EMPTY = 0
    PLANTATION1 = 1
    PLANTATION2 = 2
    MARKET2 = 3
    MARKET3 = 4
    MARKET4 = 5
    GOLD1 = 6
    GOLD2 = 7
    WATER = 8
    SUN = 9
    TEMPLE = 10
    N_KINDS = 11
    FRONTIER = 11           # empty cell next to a jungle tile, as CorePosition.cell reports it:
                            # a worker tile may go here. The grid holds FRONTIER_H + the bit
                            # mask of directions with a HOLE there, kept by _put_jungle/_put_worker
    HOLE = 12               # HOLE + k: empty jungle cell with k >= 1 adjacent worker tiles
    FRONTIER_H = 32         # FRONTIER_H + 0..15: a placement cell in the grid (see FRONTIER)

# A worker byte: WORKER_BIT | covering << 6 | seat << 4 | type << 2 | rot,
# where covering = 1 marks a tile placed by an overbuild (it cannot be covered).
cdef enum:
    WORKER_BIT = 0x80
    COVERING_BIT = 0x40

# Directions (docs/rules.md): N = (0,-1), E = (1,0), S = (0,1), W = (-1,0).
cdef enum:
    DIR_N = 0
    DIR_E = 1
    DIR_S = 2
    DIR_W = 3

# Phases of a position.
cdef enum:
    PHASE_TURN = 0          # the mover places, overbuilds or discards
    PHASE_RESOLVE = 1       # seat to_act chooses one resolution result
    PHASE_OVER = 2

# Action kinds, bits 0-1 of an action_t.
cdef enum:
    ACT_PLACE = 0
    ACT_OVERBUILD = 1
    ACT_DISCARD = 2
    ACT_RESOLVE = 3

# An action packed in 32 bits; the same position and the same public facts
# give the same code, so codes can key a search tree.
#   place / overbuild: kind | type << 2 | rot << 4 | cell << 6 | fills << 18
#       fills: 2 bits per direction N, E, S, W of the placed cell:
#       0 = not filled from the display, 1 = display slot 0, 2 = display slot 1
#       (the display is kept sorted by kind, so slots are public facts)
#   discard: kind | type << 2
#   resolve: kind | gold << 2 (8 bits) | cacao << 10 (3 bits)
ctypedef uint32_t action_t

ctypedef struct rng_t:
    uint64_t s[4]           # xoshiro256**

ctypedef struct seat_t:
    int16_t gold            # gold so far (final scoring not included)
    uint8_t cacao           # 0..MAX_CACAO
    uint8_t sun             # 0..MAX_SUN
    uint8_t water           # water track space 0..MAX_WATER
    uint8_t hand[4]         # count of each worker type in hand
    uint8_t pile[PILE_MAX]  # draw pile in draw order; remaining = pile[pile_pos:pile_end]
    uint8_t pile_pos
    uint8_t pile_end
    uint8_t discarded[4]    # count of each type discarded (engine convention)

ctypedef struct activation_t:
    int16_t cell            # the worker tile's cell
    uint8_t seat            # owner, who gains
    uint8_t dir             # side that faces the jungle tile
    uint8_t kind            # jungle kind faced
    uint8_t workers         # workers on that side

# Each seat's gold if the game ended now, by part (position_score); at the end
# of a game `total` is the final gold.
ctypedef struct score_t:
    int32_t gold[MAX_SEATS]     # gold so far
    int32_t temples[MAX_SEATS]  # the temple majorities' awards
    int32_t sun[MAX_SEATS]      # gold for sun tokens
    int32_t water[MAX_SEATS]    # the value of the seat's water track space
    int32_t total[MAX_SEATS]

ctypedef struct result_t:
    int32_t gold[MAX_SEATS]     # final gold after scoring (score_t's total)
    int32_t cacao[MAX_SEATS]
    uint8_t winners             # bit mask of winning seats
    uint8_t n_winners

# The mover's seat after a place or overbuild (position_preview).
ctypedef struct preview_t:
    uint8_t water               # water track space after
    uint8_t sun                 # sun tokens after
    int32_t award_change        # change of the mover's temple awards now
    uint8_t n_results           # the resolution's (gold gained, cacao kept) results,
    uint8_t result_gold[MAX_RESULTS]    # one when there is nothing to choose
    uint8_t result_cacao[MAX_RESULTS]

ctypedef struct position_t:
    uint8_t grid[GRID_CELLS]
    uint8_t n_seats
    uint8_t first_player
    uint8_t mover               # seat whose turn it is
    uint8_t to_act              # seat that decides now (mover, or a resolving seat)
    uint8_t phase
    uint16_t turn               # completed turns
    seat_t seats[MAX_SEATS]
    uint8_t display[2]          # sorted by kind; n_display of them are used
    uint8_t n_display
    uint8_t deck[DECK_MAX]      # jungle deck in draw order; remaining = deck[deck_pos:deck_end]
    uint8_t deck_pos
    uint8_t deck_end
    uint8_t n_frontier              # placement cells: bit x of frontier_rows[y] is cell y * GRID_SIZE + x,
    uint8_t frontier_lo             # so rows frontier_lo..frontier_hi in bit order list them sorted
    uint8_t frontier_hi             # by cell (action order is canonical); adding or taking one is
    uint64_t frontier_rows[GRID_SIZE]   # a bit and the row's units
    uint64_t row_units[GRID_SIZE]   # (cell, fill option) units of the row's placement cells in each
                                    # display state ds, 16 bits each (at bit 16 * ds; ds 0: the cells)
    uint8_t holes_hist[5]                   # frontier cells by holes around (0..4)
    uint8_t n_jungle
    int16_t jungle[MAX_JUNGLE]      # cells holding jungle tiles, in placement order
    uint8_t n_workers
    int16_t workers[MAX_WORKER_TILES]   # cells holding worker tiles, in placement order
    uint8_t n_targets[MAX_SEATS]    # each seat's worker tiles that no overbuild placed (its targets)
    uint8_t n_covered
    int16_t covered_cell[MAX_WORKER_TILES]   # overbuilt cells ...
    uint8_t covered_tile[MAX_WORKER_TILES]   # ... and the worker byte underneath
    # What the last place/overbuild did (for reports): its cell and the jungle tiles
    # it laid, from which position_activations reads its activations back; blind draw.
    int16_t moved_cell          # 0 (never a board cell) after a discard, a deal or a load
    uint8_t n_new
    int16_t new_jungle[4]       # in the order they were laid
    int16_t blind_cell          # cell that took a blind draw, -1 if none
    # Resolutions still to choose, in order; results are (gold gained, cacao kept).
    uint8_t n_pending
    uint8_t pending_seat[MAX_SEATS]
    uint8_t n_results[MAX_SEATS]            # indexed by pending slot
    uint8_t result_gold[MAX_SEATS][MAX_RESULTS]
    uint8_t result_cacao[MAX_SEATS][MAX_RESULTS]

# --- random numbers (deterministic on every machine) ---
cdef void rng_seed(rng_t* rng, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(rng_t* rng) noexcept nogil
cdef uint32_t rng_below(rng_t* rng, uint32_t n) noexcept nogil      # uniform in [0, n)

# --- cells and tiles ---
cdef inline int cell_of(int x, int y) noexcept nogil:
    return (y + GRID_ORIGIN) * GRID_SIZE + (x + GRID_ORIGIN)
cdef inline int cell_x(int cell) noexcept nogil:
    return cell % GRID_SIZE - GRID_ORIGIN
cdef inline int cell_y(int cell) noexcept nogil:
    return cell // GRID_SIZE - GRID_ORIGIN
cdef int worker_side(uint8_t worker_byte, int direction) noexcept nogil  # workers facing direction

# --- actions ---
cdef inline int action_kind(action_t a) noexcept nogil:
    return a & 3
cdef inline int action_type(action_t a) noexcept nogil:
    return (a >> 2) & 3
cdef inline int action_rot(action_t a) noexcept nogil:
    return (a >> 4) & 3
cdef inline int action_cell(action_t a) noexcept nogil:
    return (a >> 6) & 0xFFF
cdef inline int action_fill(action_t a, int direction) noexcept nogil:
    return (a >> (18 + 2 * direction)) & 3
cdef inline int action_gold(action_t a) noexcept nogil:
    return (a >> 2) & 0xFF
cdef inline int action_cacao(action_t a) noexcept nogil:
    return (a >> 10) & 7
cdef inline action_t action_place(int kind, int wtype, int rot, int cell, int fills) noexcept nogil:
    return <action_t>(kind | (wtype << 2) | (rot << 4) | (cell << 6) | (fills << 18))
cdef inline action_t action_discard(int wtype) noexcept nogil:
    return <action_t>(ACT_DISCARD | (wtype << 2))
cdef inline action_t action_resolve(int gold, int cacao) noexcept nogil:
    return <action_t>(ACT_RESOLVE | (gold << 2) | (cacao << 10))

# --- positions ---
cdef void position_deal(position_t* pos, int n_seats, rng_t* rng) noexcept nogil
# Start from explicit orders (a record header); piles[s] holds PILE_MAX bytes.
cdef void position_start(position_t* pos, int n_seats, int first_player,
                         const uint8_t* piles, const int* pile_lengths,
                         const uint8_t* deck, int deck_length) noexcept nogil
cdef int position_legal_actions(const position_t* pos, action_t* out) noexcept nogil
cdef int position_count_actions(const position_t* pos) noexcept nogil
# True when `a` is among position_legal_actions(pos), without listing them.
cdef bint position_is_legal(const position_t* pos, action_t a) noexcept nogil
cdef action_t position_random_action(const position_t* pos, rng_t* rng) noexcept nogil
cdef void position_random_actions(const position_t* pos, rng_t* rng, int k,
                                  action_t* out) noexcept nogil
cdef void position_apply(position_t* pos, action_t a) noexcept nogil
cdef void position_playout(position_t* pos, rng_t* rng) noexcept nogil
# The worker sides the last place or overbuild activated (at most MAX_ACTIVATIONS), in
# the order the rules take them: the placed tile's sides, then each laid jungle tile's.
cdef int position_activations(const position_t* pos, activation_t* out) noexcept nogil
# What a place or overbuild (phase PHASE_TURN) would give the mover, unapplied.
cdef void position_preview(const position_t* pos, action_t a, preview_t* out) noexcept nogil
cdef void position_score(const position_t* pos, score_t* out) noexcept nogil
cdef void position_result(const position_t* pos, result_t* out) noexcept nogil
# Worker tiles left in all seats' hands and draw piles, and dealt by the rules in all: the
# game's progress is 1 - left / total (public: every seat can count them).
cdef void position_tiles_left(const position_t* pos, int* left, int* total) noexcept nogil
cdef void position_temple_awards(const position_t* pos, int32_t* gold_out) noexcept nogil
cdef int water_value(int space) noexcept nogil
# Resample what `seat` cannot see: every draw-pile order, the jungle deck order
# and the hands of seats not in known_hands (bit mask; the seat's own hand is
# always kept). The result depends only on the seat's observation and the rng.
cdef void position_determinize(position_t* pos, int seat, int known_hands,
                               rng_t* rng) noexcept nogil

# --- the search's informed playout policy (playout.pxi, compiled with the rules) ---
# The mover's one-step value of a place or overbuild (gold + water-track value
# + sun + 0.5 x cacao + 0.5 x temple awards, `awards` being the mover's awards
# before `a`), and playing to the end by the best of `samples` uniform draws a
# turn (at most MAX_PLAYOUT_SAMPLES).
cdef double position_place_value(const position_t* pos, action_t a, int32_t awards) noexcept nogil
cdef void position_playout_informed(position_t* pos, rng_t* rng, int samples) noexcept nogil

# --- features for a learned evaluation (features.pxi, compiled with the rules) ---
# Both read only what `viewer` may know (docs/rules.md#information): public facts
# and the viewer's own hand, never the jungle deck, a draw pile or another
# seat's hand; every determinization of the viewer's observation gives the same
# floats. Seat blocks run viewer, viewer + 1, ... (absent seats: zeros); values
# lie in about [0, 1]. Names and meanings: cacaoai.engine.features and
# docs/engine.md#features. A new layout or scale takes a new FEATURES_VERSION.
cdef enum:
    FEATURES_VERSION = 1
    N_FEATURES = 148            # floats position_features writes
    N_ACTION_FEATURES = 24      # floats action_features writes
# out[:N_FEATURES]: the position seen by `viewer` (0 <= viewer < n_seats).
cdef void position_features(const position_t* pos, int viewer, float* out) noexcept nogil
# out[:N_ACTION_FEATURES]: the legal action `a` (any legal action of the seat to
# act). It hides the jungle deck for the call (deck_pos, put back before it
# returns), so `pos` is unchanged afterwards but must not be read by another
# thread meanwhile. `viewer` names who asks; an action's features read only
# public facts and the action, so they are the same for every viewer.
cdef void action_features(position_t* pos, int viewer, action_t a, float* out) noexcept nogil

cdef inline int position_to_act(const position_t* pos) noexcept nogil:
    return -1 if pos.phase == PHASE_OVER else pos.to_act

cdef class CorePosition:
    """Owns one position_t; the Python layer (cacaoai.engine.Position) wraps it."""
    cdef position_t pos
