# cython: language_level=3
"""C-level contract of the search core (information-set MCTS, see _mcts.pyx).

Three layers, as in the engine: plain C structs and ``noexcept nogil``
functions; ``Tree``, a class that owns one search tree and its buffers; Python
methods on top. A ``tree_t`` belongs to one thread: root-parallel search gives
every thread its own tree and merges the root statistics afterwards.
"""

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from cacaoai.engine.core cimport MAX_SEATS, action_t, position_t, rng_t

# A stop or pause flag is an int set by one thread and read by the searching
# ones: relaxed atomic loads and stores (no ordering is needed beyond the flag).
cdef extern from *:
    """
    static inline int cacao_load_flag(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void cacao_store_flag(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int cacao_load_flag(const int* p) noexcept nogil
    void cacao_store_flag(int* p, int v) noexcept nogil


cdef inline double now_seconds() noexcept nogil:
    """The clock of the searches' deadlines: CLOCK_MONOTONIC, seconds."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

# The learned evaluation's weights (model.pxi): dense layers, float32, each
# matrix kept transposed (in x out, row-major). Value: features -> h1 (-> h2) -> 3 x MAX_SEATS outputs (win-share
# logits, gold margins, final gold, per seat from the viewer on). Policy: action
# features -> p hidden -> one logit.
ctypedef struct model_t:
    int n_in                # position features (N_FEATURES)
    int n_h1
    int n_h2                # 0: one hidden layer
    int n_act               # action features (N_ACTION_FEATURES)
    int n_p
    const float* w1
    const float* b1
    const float* w2
    const float* b2
    const float* w_out
    const float* b_out
    const float* p_w1
    const float* p_b1
    const float* p_w2
    const float* p_wx       # NULL, or the position's weights in the policy's hidden layer (n_in x n_p)
    float p_b2
    double gold_scale       # margins and gold are predicted in these units

# Where a node's untried actions and the root's order and priors come from.
cdef enum:
    PRIOR_GREEDY = 0        # the greedy bot's one-step value
    PRIOR_MODEL = 1         # the policy network

# Playout policies.
cdef enum:
    PLAYOUT_RANDOM = 0      # the engine's uniform random playout
    PLAYOUT_INFORMED = 1    # best one-step value among a few sampled placements

# Why a search stopped.
cdef enum:
    STOP_ITERATIONS = 0
    STOP_TIME = 1
    STOP_FLAG = 2
    STOP_ERROR = 3          # out of memory: raised as MemoryError with the GIL
    STOP_PAUSE = 4          # the pause flag: the caller continues the trees later

# CPU priority of the search threads (see run_trees in _mcts.pyx).
cdef enum:
    PRIORITY_NORMAL = 0
    PRIORITY_LOW = 1        # nice 19
    PRIORITY_IDLE = 2       # SCHED_IDLE: runs only when nothing else wants a core
    PRIORITY_REDUCED = 3    # nice 10: yields to normal work, yet never starves

cdef enum:
    MAX_DEPTH = 512         # plies from the root; a game has fewer than 200
    MAX_SAMPLES = 64        # candidate actions per informed playout turn

ctypedef struct config_t:
    int observer            # the seat whose information the search uses
    int known_hands         # bit mask of seats whose hands the observer knows
    int playout             # PLAYOUT_RANDOM or PLAYOUT_INFORMED
    int samples             # candidate placements per informed playout turn
    int flat                # 1: flat Monte Carlo (root children only, round-robin)
    double exploration      # UCB constant c in mean + c * sqrt(ln(avail) / visits)
    double margin_weight    # value = win share + margin_weight * margin / margin_scale
    double margin_scale
    int expand_samples      # >1: expand the best of this many untried actions by one-step value
    double widen            # >0: the root considers only its ceil(widen * sqrt(visits)) best
                            # actions by one-step value (progressive widening)
    double widen_inner      # >0: a node below the root expands a new child only while fewer
                            # than widen_inner * sqrt(visits) + 1 of the legal actions are tried
    double value_weight     # a leaf's value: this share from the value network, the rest
                            # from a playout (0: playouts only, 1: no playout)
    double late_value       # the same for a leaf in the last third of the game
    int prior               # PRIOR_GREEDY or PRIOR_MODEL
    double puct             # >0: the root selects by PUCT with the priors:
                            # mean + puct * prior * sqrt(visits) / (1 + child visits)

# One tree node: the information set reached by `action` from its parent.
# Values are sums over the playouts through the node, per seat. A node's
# children are a block of edges in the tree's edge pool, oldest first; a block
# of 16 slots or more is followed by a hash index from code to child, so that
# the child look-up costs one probe per legal action however many children
# the node has gathered over the determinizations.
ctypedef struct node_t:
    action_t action
    int32_t edges           # the node's block in the edge pool (-1: no children yet)
    int32_t n_children      # the block has max(4, next power of two) slots
    uint32_t visits
    uint32_t avail          # times the node's action was legal when its parent was selected from
    uint32_t seat           # the seat that chose `action`
    double win[MAX_SEATS]       # win share (shared wins split)
    double margin[MAX_SEATS]    # final gold minus the best other seat's final gold

# One child of a node: its action code beside its index in the node pool.
ctypedef struct edge_t:
    action_t action
    int32_t node

ctypedef struct tree_t:
    config_t cfg
    rng_t rng
    position_t root
    position_t work                 # the determinized position of the running iteration
    node_t* nodes                   # node pool; index 0 is the root
    int32_t n_nodes
    int32_t capacity
    int32_t max_nodes               # the pool never grows beyond this
    int32_t relayout_at             # tree_run lays the pool out again at this many nodes
    edge_t* edges                   # edge pool: every node's block of children
    int32_t n_edges                 # edge slots handed out (a grown block leaves its old one)
    int32_t edge_capacity
    uint64_t iterations
    double gold_sum[MAX_SEATS]      # final gold per seat, summed over iterations since (re)rooting
    # the root's actions when they are the same in every determinization
    int root_fixed
    int n_root
    action_t* root_actions
    int32_t* root_child
    double* root_prior              # per root action: its prior (see _prepare_root)
    # per root child ("slot"): final gold of the root's seat to act, summed over
    # the iterations through it since the tree was (re)rooted
    int32_t n_slots
    int32_t slot_capacity
    int32_t* slot_node              # the root child of each slot
    double* slot_gold
    uint32_t* slot_gold_n
    int32_t cur_slot                # the running iteration's slot (-1: none)
    uint64_t gold_n                 # iterations counted in gold_sum
    # scratch
    action_t* legal
    int32_t* child_of
    int32_t* untried                # the indexes of child_of's untried actions (_pick_untried)
    uint32_t* table_key
    int32_t* table_value
    uint32_t* table_stamp
    uint32_t stamp
    int32_t path[MAX_DEPTH]
    uint8_t* undo                   # saved position bytes for one-step evaluations
    const model_t* model            # NULL without a model (the Tree keeps its owner alive)
    float* scratch                  # the model's features and layers

cdef int tree_iterate(tree_t* t) noexcept nogil
cdef int tree_run(tree_t* t, uint64_t max_iterations, double deadline,
                  const int* stop, const int* pause) noexcept nogil

# One tree's share of run_trees: run `tree` on a thread of `priority`.
ctypedef struct job_t:
    tree_t* tree
    uint64_t limit
    double deadline
    const int* stop
    const int* pause        # NULL, or a flag that pauses the tree (STOP_PAUSE)
    int priority
    int reason

cdef void* job_main(void* job) noexcept nogil
# Lowers the calling thread to a PRIORITY_* (only a thread the caller started).
cdef void lower_thread(int priority) noexcept nogil


cdef class StopFlag:
    cdef int flag           # read and set atomically (cacao_load_flag / cacao_store_flag)
cdef double seat_value(const position_t* pos, int seat) noexcept nogil
cdef double applied_value(position_t* pos, action_t a, int seat, uint8_t* undo) noexcept nogil
cdef double place_value(const position_t* pos, action_t a, int32_t awards) noexcept nogil
cdef double action_value(position_t* pos, action_t a, int seat, uint8_t* undo) noexcept nogil
cdef void action_values_into(position_t* pos, const action_t* acts, int n, int seat,
                             uint8_t* undo, double* out) noexcept nogil
cdef void playout_informed(position_t* pos, rng_t* rng, int samples) noexcept nogil
