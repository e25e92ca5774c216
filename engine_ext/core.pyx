# cython: language_level=3
"""The rules of Cacao (docs/rules.md) as C functions over a flat ``position_t``.

Layers, as in core.pxd: free ``noexcept nogil`` functions for the search,
then ``CorePosition``, a small class that owns one position and lets Python
read and load it. Legality checks, records and snapshots live in the Python
layer (position.py, records.py, snapshot.py). Three files are included near
the end, to compile with the rules without being rules: the search's playout
policy (playout.pxi), the features of a learned evaluation (features.pxi) and
the benchmarks (bench.pxi).
"""

from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

# --- tables ---------------------------------------------------------------

# the step to the next cell in each direction N, E, S, W: a C constant, so
# that an unrolled loop over the directions adds constants
cdef extern from *:
    """
    static const int CACAO_DELTA[4] = {-64, 1, 64, -1};
    """
    const int DELTA "CACAO_DELTA"[4]
assert DELTA[0] == -GRID_SIZE and DELTA[1] == 1 and DELTA[2] == GRID_SIZE and DELTA[3] == -1

cdef int SIDES[4][4]
SIDES[0][:] = [1, 1, 1, 1]      # 1111
SIDES[1][:] = [2, 1, 0, 1]      # 2101
SIDES[2][:] = [3, 0, 0, 1]      # 3001
SIDES[3][:] = [3, 1, 0, 0]      # 3100

cdef int ROTATIONS[4]
ROTATIONS[:] = [1, 4, 4, 4]

cdef int WATER_VALUES[MAX_WATER + 1]               # gold of each water track space
WATER_VALUES[:] = [-10, -4, -1, 0, 2, 4, 7, 11, 16]

# worker tiles per seat by player count, in type order 1111, 2101, 3001, 3100
cdef int WORKERS_PER_SEAT[5][4]
WORKERS_PER_SEAT[2][:] = [4, 5, 1, 1]
WORKERS_PER_SEAT[3][:] = [3, 5, 1, 1]
WORKERS_PER_SEAT[4][:] = [3, 4, 1, 1]

# the jungle deck (start tiles taken out) by kind; 2 players remove 7 more
cdef int DECK_3_4[11]
DECK_3_4[:] = [0, 5, 2, 1, 4, 1, 2, 1, 3, 2, 5]
cdef int DECK_2[11]
DECK_2[:] = [0, 3, 2, 1, 3, 1, 1, 1, 2, 1, 4]

# the start tiles, laid before the first turn: x, y, kind
cdef enum:
    N_START_TILES = 2
cdef int START_TILES[N_START_TILES][3]
START_TILES[0][:] = [0, 0, PLANTATION1]
START_TILES[1][:] = [1, 1, MARKET2]

# What k workers facing a jungle tile of each kind gain, as _collect_gains takes it:
# gold per worker (mines), water and sun steps per worker, and whether the
# tile is a plantation or market (decided later, by the resolution).
cdef int GAIN_GOLD[16]
cdef int GAIN_WATER[16]
cdef int GAIN_SUN[16]
cdef int GAIN_RESOLVE[16]
GAIN_GOLD[:] = [0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0]
GAIN_WATER[:] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
GAIN_SUN[:] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
GAIN_RESOLVE[:] = [0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

# cacao per worker from a plantation; a market's slot in _sales (4, 3, 2 gold; 3: none)
cdef int PLANT_CACAO[16]
cdef int MARKET_SLOT[16]
PLANT_CACAO[:] = [0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
MARKET_SLOT[:] = [3, 3, 3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]

# What one worker facing a jungle tile of each kind adds, packed so that one
# multiply-add per side sums them all (a turn's sums stay below 256): bits 0-7
# mine gold, 8-15 water steps, 16-23 sun, 24-31 plantation cacao, then market
# places at 4, 3 and 2 gold in bits 32-39, 40-47, 48-55.
cdef uint64_t GAIN_SIDES[256]                # 0 for bytes that are not jungle tiles

# workers facing each direction, for every grid byte (0 for non-workers)
cdef uint8_t SIDE_TABLE[256][4]
# SEAT_SIDE[s][byte * 4 + direction]: SIDE_TABLE for seat s's worker bytes, 0 for others
cdef uint8_t SEAT_SIDE[MAX_SEATS][256 * 4]


cdef void _init_tables() noexcept:
    cdef int b, d, t, r
    memset(SIDE_TABLE, 0, sizeof(SIDE_TABLE))
    for b in range(WORKER_BIT, 256):
        t = (b >> 2) & 3
        r = b & 3
        for d in range(4):
            SIDE_TABLE[b][d] = SIDES[t][(d - r) & 3]
    memset(SEAT_SIDE, 0, sizeof(SEAT_SIDE))
    for b in range(WORKER_BIT, 256):
        for d in range(4):
            SEAT_SIDE[(b >> 4) & 3][b * 4 + d] = SIDE_TABLE[b][d]
    memset(GAIN_SIDES, 0, sizeof(GAIN_SIDES))
    for b in range(16):
        GAIN_SIDES[b] = (<uint64_t>GAIN_GOLD[b] | (<uint64_t>GAIN_WATER[b] << 8)
                         | (<uint64_t>GAIN_SUN[b] << 16) | (<uint64_t>PLANT_CACAO[b] << 24))
        if MARKET_SLOT[b] < 3:
            GAIN_SIDES[b] |= <uint64_t>1 << (32 + 8 * MARKET_SLOT[b])


cdef inline int _gain_gold(uint64_t g) noexcept nogil:
    return <int>(g & 0xFF)


cdef inline int _gain_water(uint64_t g) noexcept nogil:
    return <int>((g >> 8) & 0xFF)


cdef inline int _gain_sun(uint64_t g) noexcept nogil:
    return <int>((g >> 16) & 0xFF)


cdef inline int _gain_plant(uint64_t g) noexcept nogil:
    return <int>((g >> 24) & 0xFF)


cdef inline int _sale_gold(int sold, uint64_t markets) noexcept nogil:
    """Gold for selling `sold` cacao at the best of the market places
    (`gains >> 32`: places at 4, 3, 2 gold), sold <= all places."""
    cdef int at4 = min(<int>(markets & 0xFF), sold)
    cdef int at3 = min(<int>((markets >> 8) & 0xFF), sold - at4)
    return 4 * at4 + 3 * at3 + 2 * (sold - at4 - at3)


_init_tables()


cdef extern from *:
    int __builtin_ctz(unsigned int x) noexcept nogil
    int __builtin_ctzll(unsigned long long x) noexcept nogil


cdef inline int _lowest_bit(int mask) noexcept nogil:
    """The index of the lowest set bit of a nonzero `mask`."""
    return __builtin_ctz(<unsigned int>mask)


cdef inline bint is_jungle(uint8_t v) noexcept nogil:
    return 1 <= v <= TEMPLE


cdef inline bint is_worker(uint8_t v) noexcept nogil:
    return (v & WORKER_BIT) != 0


cdef int worker_side(uint8_t worker_byte, int direction) noexcept nogil:
    return SIDE_TABLE[worker_byte][direction]


cdef int water_value(int space) noexcept nogil:
    return WATER_VALUES[space]


# --- random numbers: xoshiro256** seeded by splitmix64 --------------------

cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef void rng_seed(rng_t* rng, uint64_t seed) noexcept nogil:
    cdef uint64_t z
    cdef int i
    for i in range(4):
        seed += <uint64_t>0x9E3779B97F4A7C15
        z = seed
        z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
        rng.s[i] = z ^ (z >> 31)


cdef uint64_t rng_next(rng_t* rng) noexcept nogil:
    cdef uint64_t* s = rng.s
    cdef uint64_t result = _rotl(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


cdef uint32_t rng_below(rng_t* rng, uint32_t n) noexcept nogil:
    # multiply-shift (Lemire) without rejection: the bias is below n / 2**32
    return <uint32_t>(((rng_next(rng) >> 32) * <uint64_t>n) >> 32)


cdef void _shuffle(uint8_t* items, int n, rng_t* rng) noexcept nogil:
    cdef int i, j
    cdef uint8_t tmp
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


cdef void _sort_bytes(uint8_t* items, int n) noexcept nogil:
    cdef int i, j
    cdef uint8_t v
    for i in range(1, n):
        v = items[i]
        j = i - 1
        while j >= 0 and items[j] > v:
            items[j + 1] = items[j]
            j -= 1
        items[j + 1] = v


# --- board bookkeeping ----------------------------------------------------

# Placement cells stay within |x|, |y| <= PLACE_REACH whatever position the engine
# is given, so tiles stay within PLACE_REACH + 1 and every neighbour read or
# written stays inside the grid (a legal game keeps to |x|, |y| <= 28).
cdef enum:
    PLACE_REACH = GRID_REACH - 1


cdef inline bint _placeable(int cell) noexcept nogil:
    return ((<unsigned int>(cell_x(cell) + PLACE_REACH) <= 2 * PLACE_REACH)
            & (<unsigned int>(cell_y(cell) + PLACE_REACH) <= 2 * PLACE_REACH))


cdef inline bint _is_hole(uint8_t v) noexcept nogil:
    """An empty jungle cell that touches a worker tile (HOLE + 1 .. HOLE + 4)."""
    return <uint8_t>(v - (HOLE + 1)) < 4


cdef inline int _hole_mask(const position_t* pos, int cell) noexcept nogil:
    """Directions around `cell` whose empty jungle cell must be filled when a worker
    tile is placed on `cell` (it already touches another worker tile), as bits."""
    cdef const uint8_t* g = pos.grid
    return (_is_hole(g[cell - GRID_SIZE]) | (_is_hole(g[cell + 1]) << 1)
            | (_is_hole(g[cell + GRID_SIZE]) << 2) | (_is_hole(g[cell - 1]) << 3))


# bits set in each 4-bit mask
cdef uint8_t BITS4[16]
BITS4[:] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4]


cdef inline bint _is_frontier(uint8_t v) noexcept nogil:
    """A placement cell (FRONTIER_H + its _hole_mask)."""
    return <uint8_t>(v - FRONTIER_H) < 16


cdef inline int _frontier_mask(const position_t* pos, int cell) noexcept nogil:
    """_hole_mask of the placement cell `cell`, kept in its grid byte."""
    return pos.grid[cell] - FRONTIER_H


cdef inline int _frontier_holes(const position_t* pos, int cell) noexcept nogil:
    """The holes around the placement cell `cell`: the empty jungle cells a worker
    tile there closes, each taking a display tile or a blind draw."""
    return BITS4[_frontier_mask(pos, cell)]


cdef inline void _frontier_add(position_t* pos, int cell) noexcept nogil:
    """Make `cell` a placement cell, with its holes around."""
    cdef int mask = _hole_mask(pos, cell)
    cdef int row = cell // GRID_SIZE
    pos.grid[cell] = <uint8_t>(FRONTIER_H + mask)
    pos.holes_hist[BITS4[mask]] += 1
    if pos.n_frontier == 0:
        pos.frontier_lo = pos.frontier_hi = <uint8_t>row
    elif row < pos.frontier_lo:
        pos.frontier_lo = <uint8_t>row
    elif row > pos.frontier_hi:
        pos.frontier_hi = <uint8_t>row
    pos.frontier_rows[row] |= (<uint64_t>1) << (cell % GRID_SIZE)
    pos.row_units[row] += UNITS_PACKED[mask]
    pos.n_frontier += 1


cdef inline void _frontier_drop(position_t* pos, int cell) noexcept nogil:
    """Take the placement cell `cell` (its grid byte still FRONTIER_H + its hole mask) off the list."""
    cdef int row = cell // GRID_SIZE
    cdef uint64_t bit = (<uint64_t>1) << (cell % GRID_SIZE)
    if pos.frontier_rows[row] & bit:
        pos.holes_hist[_frontier_holes(pos, cell)] -= 1
        pos.frontier_rows[row] &= ~bit
        pos.row_units[row] -= UNITS_PACKED[_frontier_mask(pos, cell)]
        pos.n_frontier -= 1


cdef inline int _frontier_cells(const position_t* pos, int16_t* out) noexcept nogil:
    """The placement cells into `out`, sorted by cell; returns how many."""
    cdef int r, n = 0
    cdef uint64_t bits
    for r in range(pos.frontier_lo, pos.frontier_hi + 1):
        bits = pos.frontier_rows[r]
        while bits:
            out[n] = <int16_t>(r * GRID_SIZE + __builtin_ctzll(bits))
            n += 1
            bits &= bits - 1
    return n


cdef inline int _unit_cell(const position_t* pos, int ds, int* q) noexcept nogil:
    """The placement cell of (cell, fill option) unit `q[0]` in display state `ds`
    (0 <= q[0] < _place_units), in cell order, and the unit's fill option in
    q[0]: rows by their kept units, then the row's cells."""
    cdef int r = pos.frontier_lo, u = q[0], w, cell, shift = 16 * ds
    cdef uint64_t bits
    while True:
        w = <int>((pos.row_units[r] >> shift) & 0xFFFF)
        if u < w:
            break
        u -= w
        r += 1
    bits = pos.frontier_rows[r]
    while True:
        cell = r * GRID_SIZE + __builtin_ctzll(bits)
        w = FILL_UNITS[ds][_frontier_mask(pos, cell)]
        if u < w:
            break
        u -= w
        bits &= bits - 1
    q[0] = u
    return cell


cdef inline void _holes_changed(position_t* pos, int hole, int change) noexcept nogil:
    """`hole` became (+1) or stopped being (-1) a hole: recount the placement
    cells around it (in their grid bytes, and in holes_hist)."""
    cdef int d, nb
    cdef uint8_t v, w
    for d in range(4):
        nb = hole + DELTA[d]
        v = pos.grid[nb]
        if _is_frontier(v):
            # the hole lies in direction d + 2 of the placement cell
            w = <uint8_t>((v | (1 << ((d + 2) & 3))) if change > 0 else (v & ~(1 << ((d + 2) & 3))))
            pos.holes_hist[BITS4[v - FRONTIER_H]] -= 1
            pos.holes_hist[BITS4[w - FRONTIER_H]] += 1
            pos.row_units[nb // GRID_SIZE] += UNITS_PACKED[w - FRONTIER_H] - UNITS_PACKED[v - FRONTIER_H]
            pos.grid[nb] = w


cdef inline void _put_jungle(position_t* pos, int cell, uint8_t kind) noexcept nogil:
    """Lay a jungle tile; its empty neighbours become placement cells."""
    cdef int d, nb
    cdef uint8_t was = pos.grid[cell]
    if _is_frontier(was):                       # only in a loaded snapshot
        _frontier_drop(pos, cell)
    pos.grid[cell] = kind
    pos.jungle[pos.n_jungle] = <int16_t>cell
    pos.n_jungle += 1
    if _is_hole(was):
        _holes_changed(pos, cell, -1)
    for d in range(4):
        nb = cell + DELTA[d]
        if pos.grid[nb] == EMPTY and _placeable(nb):
            _frontier_add(pos, nb)


cdef inline void _put_worker(position_t* pos, int cell, uint8_t worker_byte) noexcept nogil:
    """Lay a worker tile on a placement cell; count it in the empty jungle cells around."""
    cdef int d, nb
    cdef uint8_t v
    _frontier_drop(pos, cell)
    pos.grid[cell] = worker_byte
    pos.workers[pos.n_workers] = <int16_t>cell
    pos.n_workers += 1
    pos.n_targets[(worker_byte >> 4) & 3] += (worker_byte & COVERING_BIT) == 0
    for d in range(4):
        nb = cell + DELTA[d]
        v = pos.grid[nb]
        if v == EMPTY:
            pos.grid[nb] = HOLE + 1
            _holes_changed(pos, nb, 1)
        elif _is_hole(v):
            pos.grid[nb] = v + 1


cdef int _fill_options_for(const int* dirs, int n, int display_state, uint32_t* out) noexcept nogil:
    """Ways to assign display tiles to the cells in `dirs[:n]` (the directions
    whose empty jungle cell a worker tile closes), as fills bit fields (2 bits
    per direction: 1 = display slot 0, 2 = slot 1), for a display in
    `display_state` (_display_state). Identical display tiles give one way.
    Unassigned cells take blind draws."""
    cdef bint same = display_state == 3
    cdef int i, j, k = 0
    if n == 0 or display_state == 0:
        out[0] = 0
        return 1
    if display_state == 1:
        for i in range(n):
            out[i] = 1u << (2 * dirs[i])
        return n
    if n == 1:
        out[0] = 1u << (2 * dirs[0])
        if same:
            return 1
        out[1] = 2u << (2 * dirs[0])
        return 2
    if n == 2:
        out[0] = (1u << (2 * dirs[0])) | (2u << (2 * dirs[1]))
        if same:
            return 1
        out[1] = (2u << (2 * dirs[0])) | (1u << (2 * dirs[1]))
        return 2
    for i in range(n):
        for j in range(n):
            if i == j or (same and j < i):
                continue
            out[k] = (1u << (2 * dirs[i])) | (2u << (2 * dirs[j]))
            k += 1
    return k


# FILLS[display state][mask of directions to fill][option]: _fill_options_for's
# options for every case, so that a lookup replaces the enumeration
cdef uint8_t FILLS[4][16][12]


# FILL_OK[display state][mask]: FILLS' options as a 256-bit set (one look-up
# tells whether an action's fills are one of them: position_is_legal)
cdef uint64_t FILL_OK[4][16][4]


cdef void _init_fills() noexcept:
    cdef int ds, mask, d, n, i
    cdef int dirs[4]
    cdef uint32_t out[12]
    memset(FILLS, 0, sizeof(FILLS))
    memset(FILL_OK, 0, sizeof(FILL_OK))
    for ds in range(4):
        for mask in range(16):
            n = 0
            for d in range(4):
                if (mask >> d) & 1:
                    dirs[n] = d
                    n += 1
            for i in range(_fill_options_for(dirs, n, ds, out)):
                FILLS[ds][mask][i] = <uint8_t>out[i]
                FILL_OK[ds][mask][out[i] >> 6] |= (<uint64_t>1) << (out[i] & 63)


_init_fills()


# number of fill options by display state (none, one, two different, two alike)
# and by the number of cells to fill (0..4)
cdef int FILL_COUNT[4][5]
FILL_COUNT[0][:] = [1, 1, 1, 1, 1]
FILL_COUNT[1][:] = [1, 1, 2, 3, 4]
FILL_COUNT[2][:] = [1, 2, 2, 6, 12]
FILL_COUNT[3][:] = [1, 1, 1, 3, 6]


# FILL_UNITS[display state][hole mask]: FILL_COUNT by the placement cell's kept mask
cdef uint8_t FILL_UNITS[4][16]


# UNITS_PACKED[hole mask]: FILL_UNITS of every display state, 16 bits each
# (state ds at bit 16 * ds), as a row's units are kept (position_t.row_units)
cdef uint64_t UNITS_PACKED[16]


cdef void _init_fill_units() noexcept:
    cdef int ds, mask
    for ds in range(4):
        for mask in range(16):
            FILL_UNITS[ds][mask] = <uint8_t>FILL_COUNT[ds][BITS4[mask]]
    for mask in range(16):
        UNITS_PACKED[mask] = 0
        for ds in range(4):
            UNITS_PACKED[mask] |= (<uint64_t>FILL_UNITS[ds][mask]) << (16 * ds)


_init_fill_units()


cdef inline int _display_state(const position_t* pos) noexcept nogil:
    if pos.n_display < 2:
        return pos.n_display
    return 3 if pos.display[0] == pos.display[1] else 2


cdef inline int _place_units(const position_t* pos, int display_state) noexcept nogil:
    """(placement cell, fill option) pairs, from the count of cells by holes around."""
    cdef const int* fc = FILL_COUNT[display_state]
    cdef const uint8_t* h = pos.holes_hist
    return h[0] * fc[0] + h[1] * fc[1] + h[2] * fc[2] + h[3] * fc[3] + h[4] * fc[4]




# --- setup ----------------------------------------------------------------

# What position_start and position_deal copy: the position before any seat is
# dealt (the start tiles laid), and each player count's draw pile and jungle
# deck in sorted order (what a deal shuffles), built once at import.
cdef position_t START_POSITION
cdef uint8_t PILE_SORTED[MAX_SEATS + 1][PILE_MAX]
cdef int PILE_LENGTH[MAX_SEATS + 1]
cdef uint8_t DECK_SORTED[MAX_SEATS + 1][DECK_MAX]
cdef int DECK_LENGTH[MAX_SEATS + 1]


cdef void position_start(position_t* pos, int n_seats, int first_player,
                         const uint8_t* piles, const int* pile_lengths,
                         const uint8_t* deck, int deck_length) noexcept nogil:
    cdef int s, i
    cdef seat_t* seat
    memcpy(pos, &START_POSITION, sizeof(position_t))
    pos.n_seats = <uint8_t>n_seats
    pos.first_player = <uint8_t>first_player
    pos.mover = <uint8_t>first_player
    pos.to_act = <uint8_t>first_player
    for s in range(n_seats):
        seat = &pos.seats[s]
        memcpy(seat.pile, piles + s * PILE_MAX, pile_lengths[s])
        seat.pile_end = <uint8_t>pile_lengths[s]
        for i in range(HAND_SIZE):
            if seat.pile_pos < seat.pile_end:
                seat.hand[seat.pile[seat.pile_pos]] += 1
                seat.pile_pos += 1
    memcpy(pos.deck, deck, deck_length)
    pos.deck_end = <uint8_t>deck_length
    _refill_display(pos)


cdef inline const int* _deck_counts(int n_seats) noexcept nogil:
    """The jungle deck by kind (DECK_2 or DECK_3_4) for `n_seats` players."""
    if n_seats == 2:
        return DECK_2
    return DECK_3_4


cdef void position_deal(position_t* pos, int n_seats, rng_t* rng) noexcept nogil:
    cdef uint8_t piles[MAX_SEATS * PILE_MAX]
    cdef int lengths[MAX_SEATS]
    cdef uint8_t deck[DECK_MAX]
    cdef int s, n = PILE_LENGTH[n_seats], n_deck = DECK_LENGTH[n_seats]
    cdef int first = rng_below(rng, n_seats)
    for s in range(n_seats):
        memcpy(piles + s * PILE_MAX, PILE_SORTED[n_seats], PILE_MAX)
        _shuffle(piles + s * PILE_MAX, n, rng)
        lengths[s] = n
    memcpy(deck, DECK_SORTED[n_seats], DECK_MAX)
    _shuffle(deck, n_deck, rng)
    position_start(pos, n_seats, first, piles, lengths, deck, n_deck)


cdef void _init_start() noexcept nogil:
    cdef int i, n_seats, t, k, n
    cdef const int* counts
    memset(&START_POSITION, 0, sizeof(position_t))
    START_POSITION.phase = PHASE_TURN
    START_POSITION.blind_cell = -1
    for i in range(N_START_TILES):
        _put_jungle(&START_POSITION, cell_of(START_TILES[i][0], START_TILES[i][1]),
                    <uint8_t>START_TILES[i][2])
    memset(PILE_SORTED, 0, sizeof(PILE_SORTED))
    memset(DECK_SORTED, 0, sizeof(DECK_SORTED))
    for n_seats in range(2, MAX_SEATS + 1):
        n = 0
        for t in range(4):
            for k in range(WORKERS_PER_SEAT[n_seats][t]):
                PILE_SORTED[n_seats][n] = <uint8_t>t
                n += 1
        PILE_LENGTH[n_seats] = n
        counts = _deck_counts(n_seats)
        n = 0
        for t in range(1, N_KINDS):
            for k in range(counts[t]):
                DECK_SORTED[n_seats][n] = <uint8_t>t
                n += 1
        DECK_LENGTH[n_seats] = n


_init_start()


cdef inline void _refill_display(position_t* pos) noexcept nogil:
    cdef uint8_t lo, hi
    while pos.n_display < 2 and pos.deck_pos < pos.deck_end:
        pos.display[pos.n_display] = pos.deck[pos.deck_pos]
        pos.n_display += 1
        pos.deck_pos += 1
    if pos.n_display == 2:
        lo = min(pos.display[0], pos.display[1])
        hi = max(pos.display[0], pos.display[1])
        pos.display[0] = lo
        pos.display[1] = hi


# --- legal actions --------------------------------------------------------

cdef inline int _hand_size(const seat_t* seat) noexcept nogil:
    return seat.hand[0] + seat.hand[1] + seat.hand[2] + seat.hand[3]


cdef inline bint _can_overbuild(const position_t* pos, const seat_t* seat) noexcept nogil:
    return pos.n_display == 0 and pos.deck_pos >= pos.deck_end and seat.sun > 0


cdef inline bint _is_overbuild_target(const position_t* pos, int cell, int s) noexcept nogil:
    """A worker tile of seat `s` that no overbuild placed (one compare, no branch)."""
    return (pos.grid[cell] & (WORKER_BIT | COVERING_BIT | 0x30)) == (WORKER_BIT | (s << 4))


# COMBOS[types]: (type << 2 | rot) for each type in the bit mask `types` in each
# distinct rotation, in type order; N_COMBOS[types] of them; INV_COMBOS[n]:
# ceil(2**32 / n) for n > 1 (and 2**32 for n = 1), to divide by n with a multiply
cdef uint8_t COMBOS[16][13]
cdef int N_COMBOS[16]
cdef uint64_t INV_COMBOS[14]


cdef void _init_combos() noexcept:
    cdef int types, t, r, n
    memset(COMBOS, 0, sizeof(COMBOS))
    for types in range(16):
        n = 0
        for t in range(4):
            if (types >> t) & 1:
                for r in range(ROTATIONS[t]):
                    COMBOS[types][n] = <uint8_t>((t << 2) | r)
                    n += 1
        N_COMBOS[types] = n
    for n in range(14):
        INV_COMBOS[n] = (<uint64_t>0xFFFFFFFF // <uint64_t>max(n, 1)) + 1


_init_combos()


cdef inline int _hand_types(const seat_t* seat) noexcept nogil:
    """The tile types in `seat`'s hand, as a bit mask (COMBOS' index): the four
    counts read as one word, each byte's bits or-ed into its lowest bit, and
    those gathered into bits 24-27 by one multiply (no branch)."""
    cdef uint32_t m
    memcpy(&m, seat.hand, 4)
    m |= m >> 4
    m |= m >> 2
    m |= m >> 1
    return <int>((((m & 0x01010101u) * 0x01020408u) >> 24) & 15)


cdef inline int _tile_rotations(const seat_t* seat, const uint8_t** combos) noexcept nogil:
    """(type << 2 | rot) for each distinct hand tile in each distinct rotation:
    points `combos` at them and returns how many."""
    cdef int types = _hand_types(seat)
    combos[0] = COMBOS[types]
    return N_COMBOS[types]


cdef inline int _targets(const position_t* pos, int16_t* out) noexcept nogil:
    """The mover's overbuild targets into `out`, sorted by cell; returns how many."""
    cdef int i, j, n = 0
    cdef int16_t cell
    for i in range(pos.n_workers):
        cell = pos.workers[i]
        if _is_overbuild_target(pos, cell, pos.mover):
            j = n
            while j > 0 and out[j - 1] > cell:
                out[j] = out[j - 1]
                j -= 1
            out[j] = cell
            n += 1
    return n


cdef inline int _nth_target(const position_t* pos, int q) noexcept nogil:
    """The mover's overbuild target `q` (0 <= q < n_targets[mover]) in cell order:
    the one with q targets on smaller cells (pos.workers is in placement order)."""
    cdef int16_t targets[MAX_WORKER_TILES]
    _targets(pos, targets)
    return targets[q]


cdef int position_legal_actions(const position_t* pos, action_t* out) noexcept nogil:
    cdef int n = 0, i, j, k, m, n_combos, n_fills, cell, slot
    cdef const uint8_t* combos
    cdef action_t tile_bits[12]
    cdef action_t where
    cdef const uint8_t* fills
    cdef int ds = _display_state(pos)
    cdef const int* fc = FILL_COUNT[ds]
    cdef const seat_t* seat
    cdef int16_t cells[MAX_FRONTIER]
    cdef int16_t targets[MAX_WORKER_TILES]
    if pos.phase == PHASE_OVER:
        return 0
    if pos.phase == PHASE_RESOLVE:
        for i in range(pos.n_results[0]):
            out[i] = action_resolve(pos.result_gold[0][i], pos.result_cacao[0][i])
        return pos.n_results[0]
    seat = &pos.seats[pos.mover]
    n_combos = _tile_rotations(seat, &combos)
    for j in range(n_combos):
        tile_bits[j] = action_place(ACT_PLACE, combos[j] >> 2, combos[j] & 3, 0, 0)
    for i in range(_frontier_cells(pos, cells)):
        cell = cells[i]
        n_fills = fc[_frontier_holes(pos, cell)]
        fills = FILLS[ds][_frontier_mask(pos, cell)]
        where = action_place(ACT_PLACE, 0, 0, cell, 0)
        if n_fills == 1:                        # the common case: one fill option
            where |= action_place(ACT_PLACE, 0, 0, 0, fills[0])
            for j in range(n_combos):
                out[n + j] = tile_bits[j] | where
            n += n_combos
            continue
        for j in range(n_combos):
            for k in range(n_fills):
                out[n] = tile_bits[j] | where | action_place(ACT_PLACE, 0, 0, 0, fills[k])
                n += 1
    if _can_overbuild(pos, seat):
        for i in range(_targets(pos, targets)):
            for j in range(n_combos):
                out[n] = action_place(ACT_OVERBUILD, combos[j] >> 2, combos[j] & 3, targets[i], 0)
                n += 1
    if n == 0:
        for i in range(4):
            if seat.hand[i]:
                out[n] = action_discard(i)
                n += 1
    return n


cdef int position_count_actions(const position_t* pos) noexcept nogil:
    cdef int n = 0, i, n_combos
    cdef const uint8_t* combos
    cdef const seat_t* seat
    if pos.phase == PHASE_OVER:
        return 0
    if pos.phase == PHASE_RESOLVE:
        return pos.n_results[0]
    seat = &pos.seats[pos.mover]
    n_combos = _tile_rotations(seat, &combos)
    ds = _display_state(pos)
    n = n_combos * _place_units(pos, _display_state(pos))
    if _can_overbuild(pos, seat):
        n += n_combos * pos.n_targets[pos.mover]
    if n == 0:
        for i in range(4):
            if seat.hand[i]:
                n += 1
    return n


cdef bint position_is_legal(const position_t* pos, action_t a) noexcept nogil:
    """True when `a` is among position_legal_actions(pos), without listing
    them: a few reads for a place, overbuild or resolve (the search asks
    this of each child of a node it walks through)."""
    cdef int kind = action_kind(a), wtype = action_type(a), cell = action_cell(a), i
    cdef action_t fill
    cdef const seat_t* seat = &pos.seats[pos.mover]
    if pos.phase != PHASE_TURN:
        if pos.phase == PHASE_OVER or kind != ACT_RESOLVE:
            return False
        for i in range(pos.n_results[0]):
            if a == action_resolve(pos.result_gold[0][i], pos.result_cacao[0][i]):
                return True
        return False
    if kind == ACT_PLACE:
        if (seat.hand[wtype] == 0 or not (pos.frontier_rows[cell // GRID_SIZE] >> (cell % GRID_SIZE)) & 1
                or action_rot(a) >= ROTATIONS[wtype]
                or cell // GRID_SIZE < pos.frontier_lo or cell // GRID_SIZE > pos.frontier_hi):
            return False
        fill = a >> 18
        return fill < 256 and (FILL_OK[_display_state(pos)][_frontier_mask(pos, cell)][fill >> 6] >> (fill & 63)) & 1
    if kind == ACT_OVERBUILD:
        return (a == action_place(ACT_OVERBUILD, wtype, action_rot(a), cell, 0) and seat.hand[wtype] > 0 and action_rot(a) < ROTATIONS[wtype]
                and _can_overbuild(pos, seat) and _is_overbuild_target(pos, cell, pos.mover))
    if kind == ACT_DISCARD:                     # only when nothing can be placed
        return (a == action_discard(wtype) and seat.hand[wtype] > 0
                and _place_units(pos, _display_state(pos)) == 0
                and not (_can_overbuild(pos, seat) and pos.n_targets[pos.mover] > 0))
    return False


cdef inline void _unit_starts(const position_t* pos, const int* fc, const int16_t* cells,
                              uint16_t* starts, uint8_t* unit_cell) noexcept nogil:
    """starts[i] = the first (cell, fill option) unit of placement cell i (`cells`,
    _frontier_cells), and
    unit_cell[u] = the placement cell of unit u. A cell has at most 12 units, so
    each cell writes its index over the next 16 bytes (two 8-byte stores, no
    loop) and the next cells' writes overwrite the rest."""
    cdef int i, n = 0
    cdef uint64_t same
    for i in range(pos.n_frontier):
        starts[i] = <uint16_t>n
        same = <uint64_t>i * <uint64_t>0x0101010101010101
        memcpy(unit_cell + n, &same, 8)
        memcpy(unit_cell + n + 8, &same, 8)
        n += fc[_frontier_holes(pos, cells[i])]


cdef action_t position_random_action(const position_t* pos, rng_t* rng) noexcept nogil:
    """One legal action, uniform over position_legal_actions, without listing them."""
    cdef action_t a = 0
    position_random_actions(pos, rng, 1, &a)
    return a


cdef inline void _random_actions(const position_t* pos, rng_t* rng, int k,
                                 action_t* out) noexcept nogil:
    """`k` legal actions, each uniform over position_legal_actions and drawn
    independently: the same draws as `k` calls of position_random_action, with
    the actions counted once.

    Placement action r is combo r % n_combos of (cell, fill option) unit
    r // n_combos, in position_legal_actions order; the kept hole counts give
    the number of units without reading the grid."""
    cdef int i, j, n_combos, total, place_total, r, q, c, w, n_hand, cell
    cdef uint64_t inv_combos
    cdef const uint8_t* combos
    cdef uint16_t starts[MAX_FRONTIER]
    cdef int16_t cells[MAX_FRONTIER]
    cdef uint8_t unit_cell[MAX_FRONTIER * 12 + 16]
    cdef uint64_t bits
    cdef int n_targets
    cdef bint have_starts = False
    cdef int ds = _display_state(pos)
    cdef const int* fc = FILL_COUNT[ds]
    cdef const seat_t* seat
    if pos.phase == PHASE_RESOLVE:
        for j in range(k):
            i = rng_below(rng, pos.n_results[0])
            out[j] = action_resolve(pos.result_gold[0][i], pos.result_cacao[0][i])
        return
    seat = &pos.seats[pos.mover]
    n_combos = _tile_rotations(seat, &combos)
    place_total = n_combos * _place_units(pos, ds)
    n_targets = pos.n_targets[pos.mover] if _can_overbuild(pos, seat) else 0
    total = place_total + n_targets * n_combos
    inv_combos = INV_COMBOS[n_combos]
    for j in range(k):
        out[j] = 0
        if total == 0:
            n_hand = 0
            for i in range(4):
                n_hand += seat.hand[i] > 0
            r = rng_below(rng, n_hand)
            for i in range(4):
                if seat.hand[i]:
                    if r == 0:
                        out[j] = action_discard(i)
                        break
                    r -= 1
            continue
        r = rng_below(rng, total)
        # r = unit * n_combos + combo, divided by a multiply: exact for r < 2**16
        # (at most 13 combos x (120 cells x 6 fill options + 44 targets))
        q = <int>((<uint64_t>r * inv_combos) >> 32)
        c = r - q * n_combos
        if r < place_total:
            # q is the unit; then its cell i and fill option q
            if k == 1:
                cell = _unit_cell(pos, ds, &q)
            else:
                if not have_starts:
                    _frontier_cells(pos, cells)
                    _unit_starts(pos, fc, cells, starts, unit_cell)
                    have_starts = True
                i = unit_cell[q]
                q -= starts[i]
                cell = cells[i]
            out[j] = action_place(ACT_PLACE, combos[c] >> 2, combos[c] & 3,
                                  cell, FILLS[ds][_frontier_mask(pos, cell)][q])
            continue
        # overbuild: combo c on target q - place units (place_total is a multiple of n_combos)
        out[j] = action_place(ACT_OVERBUILD, combos[c] >> 2, combos[c] & 3,
                              _nth_target(pos, q - place_total // n_combos), 0)


cdef void position_random_actions(const position_t* pos, rng_t* rng, int k,
                                  action_t* out) noexcept nogil:
    _random_actions(pos, rng, k, out)


# --- resolution -----------------------------------------------------------

cdef int _sales(int cacao, int fixed_gold, const uint8_t* kinds, const uint8_t* workers,
                int n, uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """Results when no cacao can be lost: take every plantation first, then
    selling s cacao at the s best market places is the best way to keep
    cacao - s. Written in increasing cacao, like _resolutions."""
    cdef int i
    cdef uint64_t markets = 0                   # GAIN_SIDES' market places at 4, 3, 2 gold
    for i in range(n):
        markets += GAIN_SIDES[kinds[i]] * <uint64_t>workers[i]
    return _sales_of(cacao, fixed_gold, markets >> 32, out_gold, out_cacao)


cdef inline int _sales_of(int cacao, int fixed_gold, uint64_t markets,
                          uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """_sales for the market places `markets` (GAIN_SIDES sums >> 32)."""
    cdef int slots[3], i, price, s, m, gold
    slots[0] = <int>(markets & 0xFF)
    slots[1] = <int>((markets >> 8) & 0xFF)
    slots[2] = <int>((markets >> 16) & 0xFF)
    s = min(cacao, slots[0] + slots[1] + slots[2])
    # gold for selling s at the best prices, then fewer sales
    gold = fixed_gold + _sale_gold(s, markets)
    m = s
    for i in range(s + 1):
        out_cacao[i] = <uint8_t>(cacao - s + i)
    out_gold[0] = <uint8_t>gold
    for i in range(1, s + 1):
        # drop the cheapest remaining sale (m <= all places, so m > slots[0] + slots[1]
        # means a sale at 2 is left)
        price = 4 - (m > slots[0]) - (m > slots[0] + slots[1])
        m -= 1
        gold -= price
        out_gold[i] = <uint8_t>gold
    return s + 1


cdef int _resolutions(int cacao0, int fixed_gold, const uint8_t* kinds,
                      const uint8_t* workers, int n,
                      uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """The Pareto set of (gold gained, cacao kept) over every order of the
    activated plantation and market sides and every number sold at each market
    (docs/rules.md#activation). Plantations are taken in full; cacao above 5 is lost at once.
    Returns the number of results, written in increasing cacao."""
    cdef int i, plant = 0
    cdef bint has_market = False
    for i in range(n):
        has_market |= kinds[i] >= MARKET2
        plant += workers[i] * PLANT_CACAO[kinds[i]]
    if not has_market or (cacao0 == 0 and plant == 0):
        out_gold[0] = <uint8_t>fixed_gold
        out_cacao[0] = <uint8_t>min(MAX_CACAO, cacao0 + plant)
        return 1
    if cacao0 + plant <= MAX_CACAO:
        return _sales(cacao0 + plant, fixed_gold, kinds, workers, n, out_gold, out_cacao)
    # cacao can be lost, so there is a plantation and a market: n >= 2
    if n <= 3:
        return _pareto_of_set(cacao0, fixed_gold, kinds, workers, n, out_gold, out_cacao)
    if n == 4:
        return _pareto_of_four(cacao0, fixed_gold, kinds, workers, out_gold, out_cacao)
    return _pareto(cacao0, fixed_gold, kinds, workers, n, out_gold, out_cacao)


cdef int _pareto(int cacao0, int fixed_gold, const uint8_t* kinds,
                 const uint8_t* workers, int n,
                 uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """_resolutions' Pareto set by a search over the subsets of sides taken."""
    cdef int i, c, s, g, mask, c2, lim, price, best, m, full, cs, rest
    cdef int16_t small[64 * 8]
    cdef uint8_t small_reach[64]
    cdef int16_t* f
    cdef int16_t* row
    cdef uint8_t* reach
    # f[mask * 8 + c]: the most gold after the sides in `mask`, holding c cacao
    # (-1: not reached); reach[mask]: the c reached, as bits
    full = (1 << n) - 1
    f = &small[0]
    reach = &small_reach[0]
    if n > 6:
        f = <int16_t*>malloc((full + 1) * (8 * sizeof(int16_t) + 1))
        reach = <uint8_t*>(f + (full + 1) * 8)
    memset(f, 0xFF, (full + 1) * 8 * sizeof(int16_t))
    memset(reach, 0, full + 1)
    f[cacao0] = 0
    reach[0] = <uint8_t>(1 << cacao0)
    for mask in range(full):
        cs = reach[mask]
        while cs:
            c = _lowest_bit(cs)
            cs &= cs - 1
            g = f[mask * 8 + c]
            rest = full & ~mask
            while rest:
                i = _lowest_bit(rest)
                rest &= rest - 1
                row = f + (mask | (1 << i)) * 8
                if kinds[i] <= PLANTATION2:
                    c2 = min(MAX_CACAO, c + workers[i] * PLANT_CACAO[kinds[i]])
                    row[c2] = <int16_t>max(<int>row[c2], g)
                    reach[mask | (1 << i)] |= 1 << c2
                else:
                    price = kinds[i] - MARKET2 + 2
                    lim = min(<int>workers[i], c)
                    for s in range(lim + 1):
                        row[c - s] = <int16_t>max(<int>row[c - s], g + s * price)
                    reach[mask | (1 << i)] |= ((2 << lim) - 1) << (c - lim)
    m = 0
    best = -1
    for c in range(MAX_CACAO, -1, -1):
        g = f[full * 8 + c]
        if g > best:
            out_gold[m] = <uint8_t>(fixed_gold + g)
            out_cacao[m] = <uint8_t>c
            m += 1
            best = g
    if n > 6:
        free(f)
    for i in range(m // 2):
        out_gold[i], out_gold[m - 1 - i] = out_gold[m - 1 - i], out_gold[i]
        out_cacao[i], out_cacao[m - 1 - i] = out_cacao[m - 1 - i], out_cacao[i]
    return m


# Results of the Pareto search for 2 or 3 sides, by the cacao held before and
# the sides as a set of types (their order does not change the results): a
# plantation's type is the cacao it gives less one (0..5), a market's 6 + 3 x
# (price - 2) + workers - 1. PARETO_SETS[rank][cacao0], where a sorted pair a <= b
# ranks b(b+1)/2 + a and a sorted triple a <= b <= c ranks PAIRS + c(c+1)(c+2)/6
# + b(b+1)/2 + a; gold from sales only. Filled at import by _pareto.
cdef enum:
    N_SIDE_TYPES = 15
    N_PAIRS = 120               # sorted pairs of N_SIDE_TYPES types
    N_TRIPLES = 680             # sorted triples

ctypedef struct pareto_t:
    uint8_t n
    uint8_t gold[MAX_RESULTS]
    uint8_t cacao[MAX_RESULTS]

cdef pareto_t PARETO_SETS[N_PAIRS + N_TRIPLES][MAX_CACAO + 1]
# SIDE_TYPE[kind * 4 + workers] for plantations and markets with 1..3 workers
cdef uint8_t SIDE_TYPE[N_KINDS * 4]


cdef inline int _side_rank(int a, int b, int c, int n) noexcept nogil:
    """The rank of the side types a, b (and c when n == 3) as a sorted set."""
    if a > b:
        a, b = b, a
    if n == 2:
        return b * (b + 1) // 2 + a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return N_PAIRS + c * (c + 1) * (c + 2) // 6 + b * (b + 1) // 2 + a


cdef inline int _pareto_of_set(int cacao0, int fixed_gold, const uint8_t* kinds,
                               const uint8_t* workers, int n,
                               uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """_pareto for 2 or 3 sides, from PARETO_SETS."""
    cdef int i, third = SIDE_TYPE[kinds[2] * 4 + workers[2]] if n == 3 else 0
    cdef const pareto_t* e = &PARETO_SETS[_side_rank(
        SIDE_TYPE[kinds[0] * 4 + workers[0]], SIDE_TYPE[kinds[1] * 4 + workers[1]],
        third, n)][cacao0]
    for i in range(e.n):
        out_gold[i] = <uint8_t>(fixed_gold + e.gold[i])
        out_cacao[i] = e.cacao[i]
    return e.n


cdef inline int _pareto_of_four(int cacao0, int fixed_gold, const uint8_t* kinds,
                                const uint8_t* workers,
                                uint8_t* out_gold, uint8_t* out_cacao) noexcept nogil:
    """_pareto for 4 sides: each side taken last after the Pareto set of the
    other three (PARETO_SETS). A state with less cacao and no more gold never
    leads to a better result, so the other three's Pareto set reaches every
    result of the full search's Pareto set, with the same gold."""
    cdef int i, j, r, c, g, s, lim, price, best, m = 0
    cdef int types[4]
    cdef int most[MAX_CACAO + 1]                # the most gold by cacao kept (-1: not reached)
    cdef const pareto_t* e
    for i in range(4):
        types[i] = SIDE_TYPE[kinds[i] * 4 + workers[i]]
    for c in range(MAX_CACAO + 1):
        most[c] = -1
    for i in range(4):
        e = &PARETO_SETS[_side_rank(types[(i + 1) & 3], types[(i + 2) & 3], types[(i + 3) & 3], 3)][cacao0]
        for r in range(e.n):
            c = e.cacao[r]
            g = e.gold[r]
            if kinds[i] <= PLANTATION2:
                j = min(MAX_CACAO, c + workers[i] * PLANT_CACAO[kinds[i]])
                most[j] = max(most[j], g)
            else:
                price = kinds[i] - MARKET2 + 2
                lim = min(<int>workers[i], c)
                for s in range(lim + 1):
                    most[c - s] = max(most[c - s], g + s * price)
    # as _pareto: the results with more gold than any with more cacao, in increasing cacao
    best = -1
    for c in range(MAX_CACAO, -1, -1):
        if most[c] > best:
            best = most[c]
            m += 1
    j = m
    best = -1
    for c in range(MAX_CACAO, -1, -1):
        if most[c] > best:
            best = most[c]
            j -= 1
            out_gold[j] = <uint8_t>(fixed_gold + most[c])
            out_cacao[j] = <uint8_t>c
    return m


cdef void _init_pareto_sets() noexcept:
    cdef int kind, w, t, a, b, c, n, c0, rank
    cdef uint8_t type_kind[N_SIDE_TYPES]
    cdef uint8_t type_workers[N_SIDE_TYPES]
    cdef uint8_t kinds[3]
    cdef uint8_t workers[3]
    memset(SIDE_TYPE, 0, sizeof(SIDE_TYPE))
    memset(PARETO_SETS, 0, sizeof(PARETO_SETS))
    for kind in range(1, N_KINDS):
        for w in range(1, 4):
            if kind <= PLANTATION2:
                t = w * PLANT_CACAO[kind] - 1
            elif kind <= MARKET4:
                t = 6 + 3 * (kind - MARKET2) + w - 1
            else:
                continue
            SIDE_TYPE[kind * 4 + w] = <uint8_t>t
            type_kind[t] = <uint8_t>kind
            type_workers[t] = <uint8_t>w
    # no plantation side gives 5 cacao: its type stands for one that gives 6
    type_kind[4] = type_kind[5]
    type_workers[4] = type_workers[5]
    for n in range(2, 4):
        for c in range(N_SIDE_TYPES if n == 3 else 1):
            for b in range(N_SIDE_TYPES if n == 2 else c + 1):
                for a in range(b + 1):
                    kinds[0] = type_kind[a]
                    workers[0] = type_workers[a]
                    kinds[1] = type_kind[b]
                    workers[1] = type_workers[b]
                    kinds[2] = type_kind[c]
                    workers[2] = type_workers[c]
                    rank = _side_rank(a, b, c, n)
                    for c0 in range(MAX_CACAO + 1):
                        PARETO_SETS[rank][c0].n = <uint8_t>_pareto(
                            c0, 0, kinds, workers, n,
                            PARETO_SETS[rank][c0].gold, PARETO_SETS[rank][c0].cacao)


_init_pareto_sets()


cdef inline void _add_activation(activation_t* out, int* n, int seat, int cell, int d,
                                 int kind, int k) noexcept nogil:
    cdef activation_t* act
    if n[0] < MAX_ACTIVATIONS:
        act = &out[n[0]]
        act.seat = <uint8_t>seat
        act.cell = <int16_t>cell
        act.dir = <uint8_t>d
        act.kind = <uint8_t>kind
        act.workers = <uint8_t>k
        n[0] += 1


cdef int position_activations(const position_t* pos, activation_t* out) noexcept nogil:
    """The activated sides of the last place or overbuild, read back from the board
    (which nothing changes until the next one): the new tile's sides facing any
    jungle tile, then every other worker side facing a jungle tile laid this turn."""
    cdef int d, j, nb, k, n = 0, cell = pos.moved_cell, nj
    cdef uint8_t v, own
    if cell == 0:
        return 0
    own = pos.grid[cell]
    for d in range(4):
        v = pos.grid[cell + DELTA[d]]
        if is_jungle(v):
            k = SIDE_TABLE[own][d]
            if k:
                _add_activation(out, &n, (own >> 4) & 3, cell, d, v, k)
    for j in range(pos.n_new):
        nj = pos.new_jungle[j]
        for d in range(4):
            nb = nj + DELTA[d]
            v = pos.grid[nb]
            if nb != cell and is_worker(v):
                k = SIDE_TABLE[v][(d + 2) & 3]
                if k:
                    _add_activation(out, &n, (v >> 4) & 3, nb, (d + 2) & 3, pos.grid[nj], k)
    return n


# PM_BYTE[b]: 1 for the grid bytes of plantations and markets (the resolution's sides)
cdef uint8_t PM_BYTE[256]


cdef void _init_pm_byte() noexcept:
    cdef int b
    memset(PM_BYTE, 0, sizeof(PM_BYTE))
    for b in range(N_KINDS):
        PM_BYTE[b] = <uint8_t>GAIN_RESOLVE[b]


_init_pm_byte()


cdef inline int _pm_sides(const position_t* pos, int cell, int s, uint8_t* kinds,
                          uint8_t* workers) noexcept nogil:
    """Seat `s`'s activated plantation and market sides of the move just applied
    (placed on `cell`; the laid jungle tiles in pos.new_jungle), for
    _resolutions, in the order of position_activations; returns how many."""
    cdef int d, j, nj, nb, k, n = 0
    cdef const uint8_t* g = pos.grid
    cdef uint8_t own = g[cell], kind, b
    if s == pos.mover:
        for d in range(4):
            kind = g[cell + DELTA[d]]
            k = SIDE_TABLE[own][d]
            kinds[n] = kind
            workers[n] = <uint8_t>k
            n += PM_BYTE[kind] & (k != 0)
    for j in range(pos.n_new):
        nj = pos.new_jungle[j]
        kind = g[nj]
        if PM_BYTE[kind]:
            for d in range(4):
                nb = nj + DELTA[d]
                b = g[nb]
                k = SIDE_TABLE[b][(d + 2) & 3]
                kinds[n] = kind
                workers[n] = <uint8_t>k
                n += (k != 0) & (nb != cell) & ((((b >> 4) & 3) == s))
    return n


cdef inline void _gain(position_t* pos, int s, uint64_t sums, int cell) noexcept nogil:
    """Seat `s` gains its GAIN_SIDES sums `sums` of the move just applied
    (placed on `cell`): mines, water and sun at once (capped once, the same
    as capping each step), gold and cacao where there is nothing to choose,
    else its resolution's results in the next pending slot (one result is
    taken at once). Zero sums change nothing."""
    cdef seat_t* seat = &pos.seats[s]
    cdef uint64_t markets = sums >> 32
    cdef int plant = _gain_plant(sums), n_pm, n_res, slot
    cdef uint8_t kinds[MAX_ACTIVATIONS + 1]     # written one past the last entry
    cdef uint8_t workers[MAX_ACTIVATIONS + 1]
    seat.water = <uint8_t>min(MAX_WATER, seat.water + _gain_water(sums))
    seat.sun = <uint8_t>min(MAX_SUN, seat.sun + _gain_sun(sums))
    if markets == 0 or (seat.cacao == 0 and plant == 0):
        # nothing to sell: _resolutions' one result, without the call
        # (without a plantation, cacao unchanged)
        seat.gold += _gain_gold(sums)
        seat.cacao = <uint8_t>min(MAX_CACAO, seat.cacao + plant)
        return
    slot = pos.n_pending
    if seat.cacao + plant <= MAX_CACAO:
        # no cacao can be lost: _resolutions' _sales, from the sums
        n_res = _sales_of(seat.cacao + plant, _gain_gold(sums), markets,
                          pos.result_gold[slot], pos.result_cacao[slot])
    else:
        n_pm = _pm_sides(pos, cell, s, kinds, workers)
        n_res = _resolutions(seat.cacao, _gain_gold(sums), kinds, workers, n_pm,
                             pos.result_gold[slot], pos.result_cacao[slot])
    if n_res == 1:
        seat.gold += pos.result_gold[slot][0]
        seat.cacao = pos.result_cacao[slot][0]
    else:
        pos.pending_seat[slot] = <uint8_t>s
        pos.n_results[slot] = <uint8_t>n_res
        pos.n_pending += 1


cdef inline void _collect_gains(position_t* pos, int cell, const int* new_dir) noexcept nogil:
    """Gain what the activated sides (position_activations) give: apply what
    needs no choice (mines, water, sun) and queue a resolve decision for each
    seat with two or more results, mover first.

    Each seat's gains are GAIN_SIDES sums: the placed tile's sides by one
    multiply-add each, a laid jungle tile's facing workers of every seat at
    once from their SIDE_PACKED counts (no branch on a kind or a seat). Only
    a seat whose resolution has a choice (a market, and cacao to sell) lists
    its plantation and market sides one by one (_pm_sides), for _resolutions.
    A seat that gained nothing is left alone. Water and sun are capped once,
    which gives the same as capping each step."""
    cdef int i, j, s, d, nj, n = pos.n_seats, mover = pos.mover
    cdef const uint8_t* g = pos.grid
    cdef uint8_t own = g[cell]
    cdef const uint8_t* side = SIDE_TABLE[own]
    cdef uint64_t sums[MAX_SEATS]               # GAIN_SIDES sums by seat
    cdef uint64_t gain, total
    cdef uint32_t counts
    # the placed tile's sides facing jungle tiles (GAIN_SIDES is 0 for other bytes)
    total = 0
    for d in range(4):
        total += GAIN_SIDES[g[cell + DELTA[d]]] * side[d]
    pos.n_pending = 0
    if pos.n_new == 0:
        # no jungle tile laid: only the mover gains
        _gain(pos, mover, total, cell)
    else:
        for s in range(MAX_SEATS):
            sums[s] = 0
        sums[mover] = total
        # the other worker sides facing each laid jungle tile
        for j in range(pos.n_new):
            nj = pos.new_jungle[j]
            counts = _temple_counts(pos, nj) - SIDE_PACKED[own][new_dir[j]]
            gain = GAIN_SIDES[g[nj]]
            for s in range(MAX_SEATS):
                sums[s] += gain * ((counts >> (8 * s)) & 0xFF)
        # every seat that gained, mover first
        s = mover
        for i in range(n):
            if sums[s]:
                _gain(pos, s, sums[s], cell)
            s = (s + 1) * (s + 1 < n)           # the next seat, without a branch
    if pos.n_pending:
        pos.phase = PHASE_RESOLVE
        pos.to_act = pos.pending_seat[0]
    else:
        _end_turn(pos)


cdef inline void _end_turn(position_t* pos) noexcept nogil:
    """The mover draws, the display is refilled, the next seat with tiles moves."""
    cdef seat_t* seat = &pos.seats[pos.mover]
    cdef int i, s
    if seat.pile_pos < seat.pile_end:
        seat.hand[seat.pile[seat.pile_pos]] += 1
        seat.pile_pos += 1
    _refill_display(pos)
    pos.turn += 1
    pos.phase = PHASE_TURN
    s = pos.mover
    for i in range(pos.n_seats):
        s = (s + 1) * (s + 1 < pos.n_seats)     # the next seat, without a branch
        if _hand_size(&pos.seats[s]):
            pos.mover = <uint8_t>s
            pos.to_act = <uint8_t>s
            return
    pos.phase = PHASE_OVER


# --- applying actions -----------------------------------------------------

cdef void position_apply(position_t* pos, action_t a) noexcept nogil:
    cdef int kind = a & 3, t = action_type(a), cell, d, nb, slot, closed, n_new = 0
    cdef int new_dir[4]
    cdef uint8_t v, jungle_kind
    cdef bint used[2]
    cdef seat_t* seat
    cdef int i
    if kind == ACT_RESOLVE:
        pos.seats[pos.pending_seat[0]].gold += action_gold(a)
        pos.seats[pos.pending_seat[0]].cacao = <uint8_t>action_cacao(a)
        pos.n_pending -= 1
        for i in range(pos.n_pending):
            pos.pending_seat[i] = pos.pending_seat[i + 1]
            pos.n_results[i] = pos.n_results[i + 1]
            memcpy(pos.result_gold[i], pos.result_gold[i + 1], MAX_RESULTS)
            memcpy(pos.result_cacao[i], pos.result_cacao[i + 1], MAX_RESULTS)
        if pos.n_pending:
            pos.to_act = pos.pending_seat[0]
        else:
            _end_turn(pos)
        return
    seat = &pos.seats[pos.mover]
    seat.hand[t] -= 1
    pos.moved_cell = 0
    pos.n_new = 0
    pos.blind_cell = -1
    if kind == ACT_DISCARD:
        seat.discarded[t] += 1
        _end_turn(pos)
        return
    cell = action_cell(a)
    if kind == ACT_OVERBUILD:
        seat.sun -= 1
        pos.covered_cell[pos.n_covered] = <int16_t>cell
        pos.covered_tile[pos.n_covered] = pos.grid[cell]
        pos.n_covered += 1
        pos.n_targets[pos.mover] -= 1           # the covered tile was one of the mover's targets
        pos.grid[cell] = <uint8_t>(WORKER_BIT | COVERING_BIT | (pos.mover << 4) | (t << 2) | action_rot(a))
    else:
        # the holes around the placement cell, which the tile closes in direction order
        closed = _frontier_mask(pos, cell)
        _put_worker(pos, cell, <uint8_t>(WORKER_BIT | (pos.mover << 4) | (t << 2) | action_rot(a)))
        used[0] = False
        used[1] = False
        while closed:
            d = _lowest_bit(closed)
            closed &= closed - 1
            nb = cell + DELTA[d]
            slot = action_fill(a, d)
            if slot:
                jungle_kind = pos.display[slot - 1]
                used[slot - 1] = True
            elif pos.deck_pos < pos.deck_end:
                jungle_kind = pos.deck[pos.deck_pos]
                pos.deck_pos += 1
                pos.blind_cell = <int16_t>nb
            else:
                continue
            _put_jungle(pos, nb, jungle_kind)
            pos.new_jungle[n_new] = <int16_t>nb
            new_dir[n_new] = d
            n_new += 1
        pos.n_new = <uint8_t>n_new
        slot = 0
        for i in range(pos.n_display):
            if not used[i]:
                pos.display[slot] = pos.display[i]
                slot += 1
        pos.n_display = <uint8_t>slot
    pos.moved_cell = <int16_t>cell
    _collect_gains(pos, cell, new_dir)


cdef void position_playout(position_t* pos, rng_t* rng) noexcept nogil:
    while pos.phase != PHASE_OVER:
        position_apply(pos, position_random_action(pos, rng))




cdef inline void _entry(int kind, int k, uint8_t* kinds, uint8_t* workers, int* n_pm) noexcept nogil:
    """Add `k` (possibly 0) workers facing a jungle tile of `kind` to the
    resolution's list when it is a plantation or market, without branches
    (the slot after the last entry is written either way)."""
    kinds[n_pm[0]] = <uint8_t>kind
    workers[n_pm[0]] = <uint8_t>k
    n_pm[0] += GAIN_RESOLVE[kind] & (k != 0)


# What a place or overbuild's sides give the mover (_sides): the GAIN_SIDES sums
# of every activated side, the change of the mover's temple awards, and the
# resolution's list (plantation and market sides) when asked for.
ctypedef struct sides_t:
    uint64_t gains
    int award
    int n_pm
    uint8_t kinds[MAX_ACTIVATIONS + 1]      # _entry writes one past the last entry
    uint8_t workers[MAX_ACTIVATIONS + 1]


cdef inline void _sides(const position_t* pos, action_t a, sides_t* out,
                        bint entries) noexcept nogil:
    """The sides the place or overbuild `a` (phase PHASE_TURN) activates for
    the mover, blind draws included, read from the cells around `a` without
    applying it. `entries` (a constant where it is inlined) also lists the
    plantation and market sides for _resolutions.

    Few branches depend on the board: the old jungle tiles' gains come from
    GAIN_SIDES, which is 0 for every other byte; only the closed cells
    (the cell's kept _hole_mask) and temples are visited one by one."""
    cdef int kind = a & 3, cell = action_cell(a), mover = pos.mover
    cdef int d, d2, nb, k, blind = 0, n_pm = 0, holes, temples, idx
    cdef uint32_t counts
    cdef int award = 0
    cdef uint64_t gains
    cdef uint8_t own, fresh
    cdef uint8_t v[4]
    cdef uint8_t fills[3]                           # a closed cell's tile by fill slot (0: blind)
    cdef const uint8_t* g = pos.grid
    cdef const uint8_t* mine = SEAT_SIDE[mover]     # the mover's workers facing each way
    cdef const uint8_t* side
    own = <uint8_t>(WORKER_BIT | (mover << 4) | (action_type(a) << 2) | action_rot(a))
    if kind == ACT_OVERBUILD:
        own |= COVERING_BIT
    side = SIDE_TABLE[own]
    # old jungle tiles: the new tile's sides facing them are activated
    v[0] = g[cell - GRID_SIZE]
    v[1] = g[cell + 1]
    v[2] = g[cell + GRID_SIZE]
    v[3] = g[cell - 1]
    gains = (GAIN_SIDES[v[0]] * side[0] + GAIN_SIDES[v[1]] * side[1]
             + GAIN_SIDES[v[2]] * side[2] + GAIN_SIDES[v[3]] * side[3])
    if entries:
        for d in range(4):
            if is_jungle(v[d]):
                _entry(v[d], side[d], out.kinds, out.workers, &n_pm)
    temples = (v[0] == TEMPLE) | ((v[1] == TEMPLE) << 1) | ((v[2] == TEMPLE) << 2) | ((v[3] == TEMPLE) << 3)
    while temples:
        d = _lowest_bit(temples)
        temples &= temples - 1
        award += _award_change(pos, cell + DELTA[d], d, own, mover)
    if kind != ACT_PLACE:
        out.gains = gains
        out.award = award
        out.n_pm = n_pm
        return
    # closed cells take a display tile or a blind draw, in direction order
    holes = _frontier_mask(pos, cell)
    fills[1] = pos.display[0]
    fills[2] = pos.display[1]
    while holes:
        d = _lowest_bit(holes)
        holes &= holes - 1
        nb = cell + DELTA[d]
        k = side[d]
        idx = pos.deck_pos + blind
        fills[0] = pos.deck[min(idx, DECK_MAX - 1)] if idx < pos.deck_end else EMPTY
        fresh = fills[action_fill(a, d)]
        blind += (action_fill(a, d) == 0) & (idx < pos.deck_end)
        if entries:
            _entry(fresh, k, out.kinds, out.workers, &n_pm)
            for d2 in range(4):
                _entry(fresh, mine[g[nb + DELTA[d2]] * 4 + ((d2 + 2) & 3)],
                       out.kinds, out.workers, &n_pm)
        # every seat's tiles facing the new jungle tile (`cell` holds no worker
        # tile yet: its byte counts 0, like every non-worker byte), and the new one
        counts = _temple_counts(pos, nb) + SIDE_PACKED[own][d]
        gains += GAIN_SIDES[fresh] * <uint64_t>((counts >> (8 * mover)) & 0xFF)
        if fresh == TEMPLE:
            award += _award_of(counts, mover)
    out.gains = gains
    out.award = award
    out.n_pm = n_pm


cdef inline void _preview(const position_t* pos, action_t a, preview_t* out) noexcept nogil:
    """What the place or overbuild `a` (phase PHASE_TURN) would give the mover,
    without applying it: the outcome of position_apply for the mover's seat,
    blind draws included, and the change of its temple awards now. Costs a
    fraction of an apply: no bookkeeping, no copy, only the cells around `a`.

    Mines, water and sun are summed in one packed word (GAIN_SIDES) and
    capped once at the end, which gives the same as _collect_gains."""
    cdef sides_t s
    cdef const seat_t* st = &pos.seats[pos.mover]
    _sides(pos, a, &s, True)
    out.water = <uint8_t>min(MAX_WATER, <int>st.water + _gain_water(s.gains))
    out.sun = <uint8_t>min(MAX_SUN, <int>st.sun - ((a & 3) == ACT_OVERBUILD) + _gain_sun(s.gains))
    out.award_change = s.award
    if s.n_pm:
        out.n_results = <uint8_t>_resolutions(st.cacao, _gain_gold(s.gains), s.kinds, s.workers,
                                              s.n_pm, out.result_gold, out.result_cacao)
    else:
        # mines, water and sun only: nothing to choose, cacao unchanged
        out.n_results = 1
        out.result_gold[0] = <uint8_t>_gain_gold(s.gains)
        out.result_cacao[0] = st.cacao


cdef void position_preview(const position_t* pos, action_t a, preview_t* out) noexcept nogil:
    _preview(pos, a, out)


# --- scoring --------------------------------------------------------------

# SIDE_PACKED[b][d]: SIDE_TABLE[b][d] in the byte of b's seat (bits 8 * seat ..),
# so that one sum counts every seat's workers facing a temple
cdef uint32_t SIDE_PACKED[256][4]


cdef void _init_side_packed() noexcept:
    cdef int b, d
    for b in range(256):
        for d in range(4):
            SIDE_PACKED[b][d] = <uint32_t>SIDE_TABLE[b][d] << (8 * ((b >> 4) & 3))


_init_side_packed()


cdef inline uint32_t _temple_counts(const position_t* pos, int temple) noexcept nogil:
    """Workers of each seat facing the temple at `temple`, one byte per seat
    (without branches: SIDE_TABLE is 0 for bytes that are not worker tiles)."""
    cdef const uint8_t* g = pos.grid
    return (SIDE_PACKED[g[temple - GRID_SIZE]][DIR_S] + SIDE_PACKED[g[temple + 1]][DIR_W]
            + SIDE_PACKED[g[temple + GRID_SIZE]][DIR_N] + SIDE_PACKED[g[temple - 1]][DIR_E])


# A temple's award (docs/rules.md#temples) to a seat with workers there, by how many
# seats have more workers and how many have as many (the seat included):
# first place shares 6, a lone second place behind a lone first shares 3.
cdef int AWARD[5][5]
AWARD[0][:] = [0, 6, 3, 2, 1]
AWARD[1][:] = [0, 3, 1, 1, 0]
AWARD[2][:] = [0, 0, 0, 0, 0]
AWARD[3][:] = [0, 0, 0, 0, 0]
AWARD[4][:] = [0, 0, 0, 0, 0]


cdef inline int _award_of(uint32_t counts, int seat) noexcept nogil:
    """The award to `seat` of a temple with `counts` workers per seat (_temple_counts;
    unused seats 0)."""
    cdef uint32_t c = (counts >> (8 * seat)) & 0xFF
    cdef uint32_t c0 = counts & 0xFF, c1 = (counts >> 8) & 0xFF
    cdef uint32_t c2 = (counts >> 16) & 0xFF, c3 = counts >> 24
    cdef int greater = (c0 > c) + (c1 > c) + (c2 > c) + (c3 > c)
    cdef int equal = (c0 == c) + (c1 == c) + (c2 == c) + (c3 == c)
    return AWARD[greater][equal] * (c > 0)


cdef void position_temple_awards(const position_t* pos, int32_t* gold_out) noexcept nogil:
    """Add each temple's majority award (docs/rules.md#temples) to gold_out[seat]."""
    cdef int j, s, cell
    cdef uint32_t counts
    for j in range(pos.n_jungle):
        cell = pos.jungle[j]
        if pos.grid[cell] == TEMPLE:
            counts = _temple_counts(pos, cell)
            for s in range(pos.n_seats):
                gold_out[s] += _award_of(counts, s)


cdef inline uint32_t _counts_with(const position_t* pos, int temple, int d,
                                  uint8_t tile) noexcept nogil:
    """_temple_counts with `tile` on the cell next to the temple whose side `d` faces it."""
    cdef uint8_t old = pos.grid[temple - DELTA[d]]
    return _temple_counts(pos, temple) - SIDE_PACKED[old][d] + SIDE_PACKED[tile][d]


cdef inline int _award_change(const position_t* pos, int temple, int d, uint8_t tile,
                              int seat) noexcept nogil:
    """How `seat`'s award of the temple at `temple` changes when `tile` replaces
    the byte on the cell next to it whose side `d` faces the temple."""
    return (_award_of(_counts_with(pos, temple, d, tile), seat)
            - _award_of(_temple_counts(pos, temple), seat))


cdef void position_tiles_left(const position_t* pos, int* left, int* total) noexcept nogil:
    """Worker tiles left in all hands and draw piles, and dealt in all. The total
    comes from the rules' deal sizes, not from the piles: a position loaded from a
    snapshot or an observation holds only the tiles still to draw, so the same
    position must count the same however it arrived."""
    cdef int s, k
    left[0] = 0
    total[0] = 0
    for k in range(4):
        total[0] += WORKERS_PER_SEAT[pos.n_seats][k]
    total[0] *= pos.n_seats
    for s in range(pos.n_seats):
        left[0] += pos.seats[s].pile_end - pos.seats[s].pile_pos
        for k in range(4):
            left[0] += pos.seats[s].hand[k]


cdef void position_score(const position_t* pos, score_t* out) noexcept nogil:
    """Each seat's gold if the game ended now (docs/rules.md#scoring): gold so far,
    the temple majorities' awards, a gold a sun token and the water space's value."""
    cdef int s
    memset(out, 0, sizeof(score_t))
    position_temple_awards(pos, out.temples)
    for s in range(pos.n_seats):
        out.gold[s] = pos.seats[s].gold
        out.sun[s] = pos.seats[s].sun * SUN_GOLD
        out.water[s] = WATER_VALUES[pos.seats[s].water]
        out.total[s] = out.gold[s] + out.sun[s] + out.water[s] + out.temples[s]


cdef void position_result(const position_t* pos, result_t* out) noexcept nogil:
    """Final gold (position_score's total) and the winners (cacao breaks ties)."""
    cdef int s, best_gold = -1000, best_cacao = -1
    cdef score_t score
    position_score(pos, &score)
    memset(out, 0, sizeof(result_t))
    for s in range(pos.n_seats):
        out.gold[s] = score.total[s]
        out.cacao[s] = pos.seats[s].cacao
    for s in range(pos.n_seats):
        if out.gold[s] > best_gold or (out.gold[s] == best_gold and out.cacao[s] > best_cacao):
            best_gold = out.gold[s]
            best_cacao = out.cacao[s]
    for s in range(pos.n_seats):
        if out.gold[s] == best_gold and out.cacao[s] == best_cacao:
            out.winners |= 1 << s
            out.n_winners += 1


# --- hidden information ---------------------------------------------------

cdef void position_determinize(position_t* pos, int seat, int known_hands,
                               rng_t* rng) noexcept nogil:
    cdef int s, t, j, k, n, hand_n
    cdef uint8_t pool[PILE_MAX + 3]
    cdef seat_t* st
    for s in range(pos.n_seats):
        st = &pos.seats[s]
        n = st.pile_end - st.pile_pos
        if s == seat or (known_hands >> s) & 1:
            # the hand is known: only the pile order is hidden
            memcpy(pool, st.pile + st.pile_pos, n)
            _sort_bytes(pool, n)
            _shuffle(pool, n, rng)
            memcpy(st.pile + st.pile_pos, pool, n)
            continue
        hand_n = _hand_size(st)
        k = 0
        for t in range(4):
            for j in range(st.hand[t]):
                pool[k] = <uint8_t>t
                k += 1
        memcpy(pool + k, st.pile + st.pile_pos, n)
        _sort_bytes(pool, k + n)
        _shuffle(pool, k + n, rng)
        st.hand[0] = st.hand[1] = st.hand[2] = st.hand[3] = 0
        for t in range(hand_n):
            st.hand[pool[t]] += 1
        memcpy(st.pile + st.pile_pos, pool + hand_n, n)
    n = pos.deck_end - pos.deck_pos
    _sort_bytes(pos.deck + pos.deck_pos, n)
    _shuffle(pos.deck + pos.deck_pos, n, rng)


# --- not rules: compiled with them ----------------------------------------
# The search's playout policy, the features and the benchmarks are included,
# not imported, so that they inline the rules' helpers (one compile unit).

include "playout.pxi"
include "features.pxi"
include "bench.pxi"


# --- Python access --------------------------------------------------------

def rules_tables():
    """The rules' tables and limits as Python values, read from the C tables the
    rules run on, so that cacaoai.engine.rules never types a number again.

    Worker tiles are by type (0..3), jungle tiles by kind (1..N_KINDS - 1),
    directions N, E, S, W."""
    cdef int t, r, d, k, n, g, e
    return {
        "kinds": N_KINDS - 1,
        # faces[t][r]: workers on each side of a type-t tile at rotation r, as the rules read them
        "faces": [[[SIDE_TABLE[WORKER_BIT | (t << 2) | r][d] for d in range(4)]
                   for r in range(4)] for t in range(4)],
        "rotations": [ROTATIONS[t] for t in range(4)],
        "directions": [(cell_x(cell_of(0, 0) + DELTA[d]), cell_y(cell_of(0, 0) + DELTA[d]))
                       for d in range(4)],
        "workers_per_seat": {n: [WORKERS_PER_SEAT[n][t] for t in range(4)]
                             for n in range(2, MAX_SEATS + 1)},
        "jungle_deck": {n: [_deck_counts(n)[k] for k in range(1, N_KINDS)]
                        for n in range(2, MAX_SEATS + 1)},
        "start_tiles": [(START_TILES[k][0], START_TILES[k][1], START_TILES[k][2])
                        for k in range(N_START_TILES)],
        "water_track": [WATER_VALUES[k] for k in range(MAX_WATER + 1)],
        # temple_award[g][e]: a seat's award from a temple where g seats have more
        # workers than it and e as many (itself included)
        "temple_award": [[AWARD[g][e] for e in range(MAX_SEATS + 1)] for g in range(MAX_SEATS + 1)],
        "hand_size": HAND_SIZE,
        "max_cacao": MAX_CACAO,
        "max_sun": MAX_SUN,
        "sun_gold": SUN_GOLD,
    }


cdef class CorePosition:
    """One position_t, with the low-level Python access the engine layer needs.

    Codes are packed action_t values (core.pxd); ``apply_code`` refuses an
    illegal one. Not thread-safe: one owner at a time.
    """

    def __cinit__(self):
        memset(&self.pos, 0, sizeof(position_t))
        self.pos.phase = PHASE_OVER
        self.pos.blind_cell = -1

    @staticmethod
    def deal(int players, unsigned long long seed):
        """A fresh game dealt by the seeded RNG."""
        cdef CorePosition core = CorePosition()
        cdef rng_t rng
        _require(2 <= players <= MAX_SEATS, "players must be 2, 3 or 4")
        rng_seed(&rng, seed)
        position_deal(&core.pos, players, &rng)
        return core

    @staticmethod
    def start(int players, int first_player, list piles, list deck):
        """A fresh game from explicit orders (type ids, kind ids), already validated."""
        cdef CorePosition core = CorePosition()
        cdef uint8_t pile_bytes[MAX_SEATS * PILE_MAX]
        cdef int lengths[MAX_SEATS]
        cdef uint8_t deck_bytes[DECK_MAX]
        cdef int s, i
        _require(2 <= players <= MAX_SEATS and 0 <= first_player < players
                 and len(piles) == players and len(deck) <= DECK_MAX
                 and all(len(p) <= PILE_MAX and all(0 <= t < 4 for t in p) for p in piles)
                 and all(0 < k < N_KINDS for k in deck), "not a deal")
        for s in range(players):
            lengths[s] = len(piles[s])
            for i in range(lengths[s]):
                pile_bytes[s * PILE_MAX + i] = piles[s][i]
        for i in range(len(deck)):
            deck_bytes[i] = deck[i]
        position_start(&core.pos, players, first_player, pile_bytes, lengths, deck_bytes, len(deck))
        return core

    def clone(self):
        cdef CorePosition copy = CorePosition()
        copy.pos = self.pos
        return copy

    # --- state ---

    @property
    def players(self):
        return self.pos.n_seats

    @property
    def first_player(self):
        return self.pos.first_player

    @property
    def mover(self):
        return self.pos.mover

    @property
    def to_act(self):
        return position_to_act(&self.pos)

    @property
    def phase(self):
        return self.pos.phase

    @property
    def turn(self):
        return self.pos.turn

    def tiles(self):
        """[(x, y, grid byte)] of every top tile on the board, jungle and worker."""
        cdef int j
        out = [(cell_x(c), cell_y(c), self.pos.grid[c])
               for c in self.pos.jungle[:self.pos.n_jungle]]
        out += [(cell_x(c), cell_y(c), self.pos.grid[c])
                for c in sorted([self.pos.workers[j] for j in range(self.pos.n_workers)])]
        return out

    def covered(self):
        """{(x, y): worker byte underneath} for overbuilt cells."""
        return {(cell_x(self.pos.covered_cell[j]), cell_y(self.pos.covered_cell[j])):
                self.pos.covered_tile[j] for j in range(self.pos.n_covered)}

    def cell(self, x, y):
        """The grid byte at board (x, y), FRONTIER for any placement cell; EMPTY off
        the grid (x, y: any Python ints)."""
        cdef uint8_t v
        if not (-GRID_REACH <= x <= GRID_REACH and -GRID_REACH <= y <= GRID_REACH):
            return EMPTY
        v = self.pos.grid[cell_of(x, y)]
        return FRONTIER if _is_frontier(v) else v

    def display(self):
        return [self.pos.display[i] for i in range(self.pos.n_display)]

    def deck(self):
        """Remaining jungle deck, next draw first."""
        return [self.pos.deck[i] for i in range(self.pos.deck_pos, self.pos.deck_end)]

    def seat(self, s):
        cdef seat_t* st = &self.pos.seats[self._seat_index(s)]
        return {
            "gold": st.gold, "cacao": st.cacao, "sun": st.sun, "water": st.water,
            "hand": [st.hand[t] for t in range(4)],
            "pile": [st.pile[i] for i in range(st.pile_pos, st.pile_end)],
            "discarded": [st.discarded[t] for t in range(4)],
        }

    def tiles_left(self):
        """(worker tiles left in all hands and draw piles, worker tiles dealt)."""
        cdef int left, total
        position_tiles_left(&self.pos, &left, &total)
        return left, total

    def full_pile(self, s):
        """Seat s's whole draw order from the deal (hand first), as types."""
        cdef seat_t* st = &self.pos.seats[self._seat_index(s)]
        return [st.pile[i] for i in range(st.pile_end)]

    def _seat_index(self, s):
        if not 0 <= s < self.pos.n_seats:
            raise IndexError(f"seat {s!r} is not in 0..{self.pos.n_seats - 1}")
        return s

    def full_deck(self):
        """The whole jungle deck order from the deal (display first), as kinds."""
        return [self.pos.deck[i] for i in range(self.pos.deck_end)]

    def pending(self):
        """[(seat, [(gold, cacao), ...])] of the resolutions still to choose."""
        return [(self.pos.pending_seat[i],
                 [(self.pos.result_gold[i][j], self.pos.result_cacao[i][j])
                  for j in range(self.pos.n_results[i])])
                for i in range(self.pos.n_pending)]

    def activations(self):
        """[(seat, x, y, dir, kind, workers)] of the last place or overbuild."""
        cdef activation_t acts[MAX_ACTIVATIONS]
        cdef int n = position_activations(&self.pos, acts)
        return [(a.seat, cell_x(a.cell), cell_y(a.cell), a.dir, a.kind, a.workers)
                for a in acts[:n]]

    def blind_draw(self):
        """(x, y) of the cell that took a blind draw in the last move, or None."""
        if self.pos.blind_cell < 0:
            return None
        return cell_x(self.pos.blind_cell), cell_y(self.pos.blind_cell)

    def result(self):
        """(final gold, cacao, winners) lists; only meaningful when the game is over."""
        cdef result_t r
        position_result(&self.pos, &r)
        n = self.pos.n_seats
        return ([r.gold[s] for s in range(n)], [r.cacao[s] for s in range(n)],
                [s for s in range(n) if (r.winners >> s) & 1])

    def temples(self):
        """[(x, y, workers, awards)] of every temple on the board, in the order
        they were laid: the workers each seat's top worker tiles turn to it and
        the gold its majority gives each seat now, counted as position_score
        counts them."""
        cdef int j, cell, s
        cdef uint32_t counts
        out = []
        for j in range(self.pos.n_jungle):
            cell = self.pos.jungle[j]
            if self.pos.grid[cell] == TEMPLE:
                counts = _temple_counts(&self.pos, cell)
                out.append((cell_x(cell), cell_y(cell),
                            [(counts >> (8 * s)) & 0xFF for s in range(self.pos.n_seats)],
                            [_award_of(counts, s) for s in range(self.pos.n_seats)]))
        return out

    def score(self):
        """[(gold, temples, sun, water, total)] per seat: the gold each would have
        if the game ended now (position_score; `total` is the final gold at the end)."""
        cdef score_t sc
        position_score(&self.pos, &sc)
        return [(sc.gold[s], sc.temples[s], sc.sun[s], sc.water[s], sc.total[s])
                for s in range(self.pos.n_seats)]

    # --- features of a learned evaluation (features.pxi) ---

    def features_into(self, int viewer, float[::1] out):
        """Write position_features as `viewer` sees the position into `out`
        (N_FEATURES floats)."""
        _require(0 <= viewer < self.pos.n_seats, f"viewer {viewer} is not a seat")
        _require(out.shape[0] == N_FEATURES, f"out must hold {N_FEATURES} floats")
        position_features(&self.pos, viewer, &out[0])

    def action_features_into(self, int viewer, codes, float[:, ::1] out):
        """Write action_features of each legal code in `codes` into the rows
        of `out` (len(codes) x N_ACTION_FEATURES floats); ValueError, naming
        the first, if a code is not a legal action here."""
        cdef int i
        _require(0 <= viewer < self.pos.n_seats, f"viewer {viewer} is not a seat")
        _require(out.shape[0] == len(codes) and out.shape[1] == N_ACTION_FEATURES,
                 f"out must be {len(codes)} x {N_ACTION_FEATURES} floats")
        legal = set(self.legal_codes())
        for i, code in enumerate(codes):
            _require(code in legal, f"codes[{i}]: {code!r} is not a legal action here")
        for i, code in enumerate(codes):
            action_features(&self.pos, viewer, <action_t>code, &out[i, 0])

    # --- moves ---

    def legal_codes(self):
        cdef action_t* buf = <action_t*>malloc(MAX_ACTIONS * sizeof(action_t))
        cdef int n
        try:
            n = position_legal_actions(&self.pos, buf)
            return [buf[i] for i in range(n)]
        finally:
            free(buf)

    def count_actions(self):
        return position_count_actions(&self.pos)

    def is_legal(self, code):
        """True when `code` is a legal action here (any int: False when it is not an action code)."""
        return 0 <= code <= 0xFFFFFFFF and position_is_legal(&self.pos, <action_t>code)

    def apply_code(self, code):
        """Apply a legal code; any other value raises ValueError (the C trusts its input)."""
        if not 0 <= code <= 0xFFFFFFFF:
            raise ValueError(f"code {code!r} is not an action code")
        if not position_is_legal(&self.pos, <action_t>code):
            raise ValueError(f"code {code} is not a legal action here")
        position_apply(&self.pos, <action_t>code)

    def random_code(self, unsigned long long seed):
        cdef rng_t rng
        rng_seed(&rng, seed)
        return position_random_action(&self.pos, &rng)

    def playout(self, unsigned long long seed):
        """Play uniformly random actions to the end; returns the codes played."""
        cdef rng_t rng
        cdef action_t a
        rng_seed(&rng, seed)
        codes = []
        while self.pos.phase != PHASE_OVER:
            a = position_random_action(&self.pos, &rng)
            codes.append(a)
            position_apply(&self.pos, a)
        return codes

    def playout_informed(self, unsigned long long seed, int samples):
        """Play to the end with the search's informed playout policy (the best
        one-step value among `samples` uniform draws a turn: playout.pxi)."""
        cdef rng_t rng
        _require(1 <= samples <= MAX_PLAYOUT_SAMPLES, f"samples must be 1..{MAX_PLAYOUT_SAMPLES}")
        rng_seed(&rng, seed)
        with nogil:
            position_playout_informed(&self.pos, &rng, samples)

    def determinize(self, int seat, int known_hands, unsigned long long seed):
        cdef rng_t rng
        self._seat_index(seat)
        rng_seed(&rng, seed)
        position_determinize(&self.pos, seat, known_hands, &rng)

    # --- loading a validated snapshot ---

    def load(self, int players, int first_player, int turn, int mover, int phase,
             list tiles, dict covered, list display, list deck, list seats, list pending):
        """Build a position from validated parts: tiles [(x, y, byte)], covered
        {(x, y): byte}, display and deck kind ids, seats as from seat(), pending
        as from pending(). Derived bookkeeping (placement cells, holes) is rebuilt."""
        cdef position_t* pos = &self.pos
        cdef seat_t* st
        cdef int i, s
        _check_load(players, first_player, turn, mover, phase, tiles, covered, display, deck,
                    seats, pending)
        memset(pos, 0, sizeof(position_t))
        pos.n_seats = players
        pos.first_player = first_player
        pos.turn = turn
        pos.mover = mover
        pos.phase = phase
        pos.blind_cell = -1
        for x, y, b in tiles:
            if b < WORKER_BIT:
                _put_jungle(pos, cell_of(x, y), b)
        for x, y, b in tiles:
            if b >= WORKER_BIT:
                _put_worker(pos, cell_of(x, y), b)
        for (x, y), b in covered.items():
            pos.covered_cell[pos.n_covered] = cell_of(x, y)
            pos.covered_tile[pos.n_covered] = b
            pos.n_covered += 1
        for i, kind in enumerate(sorted(display)):
            pos.display[i] = kind
        pos.n_display = len(display)
        for i, kind in enumerate(deck):
            pos.deck[i] = kind
        pos.deck_end = len(deck)
        for s, seat in enumerate(seats):
            st = &pos.seats[s]
            st.gold = seat["gold"]
            st.cacao = seat["cacao"]
            st.sun = seat["sun"]
            st.water = seat["water"]
            for i in range(4):
                st.hand[i] = seat["hand"][i]
                st.discarded[i] = seat["discarded"][i]
            for i, t in enumerate(seat["pile"]):
                st.pile[i] = t
            st.pile_end = len(seat["pile"])
        for i, (s, results) in enumerate(pending):
            pos.pending_seat[i] = s
            pos.n_results[i] = len(results)
            for j, (g, c) in enumerate(results):
                pos.result_gold[i][j] = g
                pos.result_cacao[i][j] = c
        pos.n_pending = len(pending)
        pos.to_act = pos.pending_seat[0] if pending else mover


# --- guards: whatever Python passes, the C never reads or writes outside its arrays ---

def _require(bint ok, str what):
    if not ok:
        raise ValueError(what)


def _check_load(players, first_player, turn, mover, phase, tiles, covered, display, deck,
                seats, pending):
    """ValueError unless CorePosition.load's parts fit the position_t arrays and grid.

    Tiles must lie within |x|, |y| <= PLACE_REACH - 1 (the snapshot check keeps them
    to 28), so the cells a move can reach stay inside the grid."""
    reach = PLACE_REACH - 1
    _require(2 <= players <= MAX_SEATS and 0 <= first_player < players and 0 <= mover < players
             and 0 <= turn <= 0xFFFF and PHASE_TURN <= phase <= PHASE_OVER, "bad header")
    cells = set()
    n_jungle = n_workers = 0
    for x, y, b in tiles:  # (the reasons formatted only when raised: every load passes here)
        if not (-reach <= x <= reach and -reach <= y <= reach):
            raise ValueError(f"tile ({x},{y}) off the board")
        if (x, y) in cells:
            raise ValueError(f"two tiles at ({x},{y})")
        cells.add((x, y))
        if 0 < b < N_KINDS:
            n_jungle += 1
        elif WORKER_BIT <= b <= 0xFF and (b >> 4) & 3 < players:
            n_workers += 1
        else:
            raise ValueError(f"bad tile byte {b}")
    _require(n_jungle + len(display) + len(deck) <= MAX_JUNGLE, "too many jungle tiles")
    for (x, y), b in covered.items():
        if not ((x, y) in cells and WORKER_BIT <= b <= 0xFF):
            raise ValueError(f"bad covered tile at ({x},{y})")
    _require(len(display) <= 2 and len(deck) <= DECK_MAX
             and all(0 < k < N_KINDS for k in list(display) + list(deck)), "bad display or deck")
    _require(len(seats) == players, "one seat per player")
    for seat in seats:
        _require(all(0 <= seat[k] <= hi for k, hi in
                     (("gold", 0x7FFF), ("cacao", MAX_CACAO), ("sun", MAX_SUN), ("water", MAX_WATER)))
                 and len(seat["hand"]) == 4 and len(seat["discarded"]) == 4
                 and all(0 <= n <= PILE_MAX for n in list(seat["hand"]) + list(seat["discarded"]))
                 and len(seat["pile"]) <= PILE_MAX and all(0 <= t < 4 for t in seat["pile"]),
                 "bad seat")
    # every tile still in a hand or pile may yet be laid, on a free cell or by an overbuild
    unlaid = sum(sum(seat["hand"]) + len(seat["pile"]) for seat in seats)
    _require(n_workers + unlaid <= MAX_WORKER_TILES and len(covered) + unlaid <= MAX_WORKER_TILES,
             "too many worker tiles")
    _require(len(pending) <= MAX_SEATS and (phase == PHASE_RESOLVE) == bool(pending),
             "bad pending resolutions")
    for s, results in pending:
        _require(0 <= s < players and 0 < len(results) <= MAX_RESULTS
                 and all(0 <= g <= 0xFF and 0 <= c <= MAX_CACAO for g, c in results), "bad pending result")
