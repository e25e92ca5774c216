# The learned evaluation inside the search (included by _mcts.pyx: one compile
# unit, so the loop calls these without the GIL and the compiler can inline).
#
# A model (search/model.py loads it from a .npz file) is two small networks:
#
# - the value network reads a position's features from one seat's view
#   (engine_ext/features.pxi) and gives, per seat in the order viewer,
#   viewer + 1, ..., a win-share logit (a softmax over the seats that play
#   gives the win shares), the final gold margin over the best other seat and
#   the final gold, each in units of `gold_scale`;
# - the policy network gives an action a logit from its features (the mover's
#   gains and what it changes on the board), so that it costs a few hundred
#   multiplications and can order a node's untried actions. A model may also
#   let it see the position (`p_wx`): the position's features, from the
#   mover's view, add to the hidden layer's bias, once per node for all its
#   actions (model_policy_bias), so an action still costs the same.
#
# Layers are dense with ReLU between them; weights are float32, kept
# transposed (in x out, row-major) so that a layer adds each input's row to the
# outputs: a loop the compiler vectorises without reordering sums (for AVX2
# too, where the CPU has it), and inputs that are zero (most of the one-hot
# features) cost nothing.

from libc.math cimport exp


cdef extern from *:
    """
    /* A dense layer, y = w @ x + b (ReLU with relu), from wt = w transposed
       (n_in x n_out, row-major). On x86-64 with GCC it is compiled twice, for
       AVX2 and for the baseline, and the loader picks the one the CPU runs:
       eight floats a step instead of four. No FMA: each output is the same
       sum of the same products in the same order in both, so a search gives
       the same answer on every x86-64 machine. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define CACAO_DENSE_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define CACAO_DENSE_CLONES
    #endif
    /* Layers of 8K (+ 4) outputs, K <= 8, keep them in registers, in K
       vectors of eight floats (and one of four) across the inputs; the
       inputs that are not zero are listed first, without a branch each.
       The same products are added in the same order as the loop below. */
    typedef float cacao_v8 __attribute__((vector_size(32)));
    typedef float cacao_v8u __attribute__((vector_size(32), aligned(4)));
    typedef int cacao_i8 __attribute__((vector_size(32)));
    typedef float cacao_v4 __attribute__((vector_size(16)));
    typedef float cacao_v4u __attribute__((vector_size(16), aligned(4)));
    typedef int cacao_i4 __attribute__((vector_size(16)));
    #define CACAO_DENSE_MAX_IN 256
    #define CACAO_DENSE_REGS(K, T) \
    static inline __attribute__((always_inline)) void cacao_dense_##K##_##T( \
            const float* wt, const float* b, const float* x, int n_in, float* y, int relu) { \
        cacao_v8 acc[K]; \
        cacao_v4 tail = {0}; \
        const cacao_v8 zero = {0}; \
        const cacao_v4 zero4 = {0}; \
        int nonzero[CACAO_DENSE_MAX_IN]; \
        int j, k, q, m = 0; \
        for (j = 0; j < n_in; j++) { \
            nonzero[m] = j; \
            m += x[j] != 0.0f; \
        } \
        for (k = 0; k < K; k++) acc[k] = *(const cacao_v8u*)(b + 8 * k); \
        if (T) tail = *(const cacao_v4u*)(b + 8 * K); \
        for (q = 0; q < m; q++) { \
            const float xj = x[nonzero[q]]; \
            const float* row = wt + (long)nonzero[q] * (8 * K + 4 * T); \
            const cacao_v8 xv = zero + xj; \
            for (k = 0; k < K; k++) acc[k] += *(const cacao_v8u*)(row + 8 * k) * xv; \
            if (T) tail += *(const cacao_v4u*)(row + 8 * K) * (zero4 + xj); \
        } \
        for (k = 0; k < K; k++) { \
            if (relu) acc[k] = (cacao_v8)((cacao_i8)acc[k] & ~(acc[k] < zero)); \
            *(cacao_v8u*)(y + 8 * k) = acc[k]; \
        } \
        if (T) { \
            if (relu) tail = (cacao_v4)((cacao_i4)tail & ~(tail < zero4)); \
            *(cacao_v4u*)(y + 8 * K) = tail; \
        } \
    }
    CACAO_DENSE_REGS(1, 0)
    CACAO_DENSE_REGS(1, 1)
    CACAO_DENSE_REGS(2, 0)
    CACAO_DENSE_REGS(4, 0)
    CACAO_DENSE_REGS(8, 0)

    CACAO_DENSE_CLONES
    static void cacao_dense(const float* wt, const float* b, const float* x, int n_in, int n_out,
                            float* y, int relu) {
        int i, j;
        if (n_in <= CACAO_DENSE_MAX_IN) switch (n_out) {
            case 8: cacao_dense_1_0(wt, b, x, n_in, y, relu); return;
            case 12: cacao_dense_1_1(wt, b, x, n_in, y, relu); return;
            case 16: cacao_dense_2_0(wt, b, x, n_in, y, relu); return;
            case 32: cacao_dense_4_0(wt, b, x, n_in, y, relu); return;
            case 64: cacao_dense_8_0(wt, b, x, n_in, y, relu); return;
        }
        for (i = 0; i < n_out; i++) y[i] = b[i];
        for (j = 0; j < n_in; j++) {
            const float xj = x[j];
            const float* row = wt + (long)j * n_out;
            if (xj == 0.0f) continue;
            for (i = 0; i < n_out; i++) y[i] += row[i] * xj;
        }
        if (relu) for (i = 0; i < n_out; i++) if (y[i] < 0.0f) y[i] = 0.0f;
    }
    """
    void _dense "cacao_dense"(const float* wt, const float* b, const float* x, int n_in, int n_out,
                              float* y, bint relu) noexcept nogil


cdef void model_value(const model_t* m, const position_t* pos, int viewer, float* scratch,
                      double* win, double* margin, double* gold) noexcept nogil:
    """The value network's estimate of `pos` from `viewer`'s view: win share,
    gold margin and final gold per (absolute) seat. `scratch` holds at least
    model_scratch_floats(m) floats."""
    cdef float* x = scratch
    cdef float* h1 = x + m.n_in
    cdef float* h2 = h1 + m.n_h1
    cdef float* out = h2 + m.n_h2
    cdef const float* last = h1
    cdef int n = pos.n_seats, k, seat, n_last = m.n_h1
    cdef double top = -1e30, total = 0.0, e[MAX_SEATS]
    position_features(pos, viewer, x)
    _dense(m.w1, m.b1, x, m.n_in, m.n_h1, h1, True)
    if m.n_h2 > 0:
        _dense(m.w2, m.b2, h1, m.n_h1, m.n_h2, h2, True)
        last = h2
        n_last = m.n_h2
    _dense(m.w_out, m.b_out, last, n_last, 3 * MAX_SEATS, out, False)
    for k in range(n):
        if out[k] > top:
            top = out[k]
    for k in range(n):
        e[k] = exp(out[k] - top)
        total += e[k]
    for k in range(n):
        seat = (viewer + k) % n
        win[seat] = e[k] / total
        margin[seat] = out[MAX_SEATS + k] * m.gold_scale
        gold[seat] = out[2 * MAX_SEATS + k] * m.gold_scale


cdef const float* model_policy_bias(const model_t* m, const position_t* pos, int viewer,
                                    float* scratch) noexcept nogil:
    """The policy's hidden-layer bias at `pos` for the mover `viewer`: p_b1,
    plus the position's part where the model has one (kept at the end of
    `scratch`, where model_logit does not write). Pass it to model_logit for
    every action of this position."""
    cdef float* bias
    if m.p_wx == NULL:
        return m.p_b1
    bias = scratch + _scratch_layers(m)
    position_features(pos, viewer, scratch)
    _dense(m.p_wx, m.p_b1, scratch, m.n_in, m.n_p, bias, False)
    return bias


cdef double model_logit(const model_t* m, position_t* pos, int viewer, action_t a,
                        const float* bias, float* scratch) noexcept nogil:
    """The policy network's logit of action `a` for the seat to act, `viewer`,
    with the hidden layer's `bias` from model_policy_bias."""
    cdef float* x = scratch
    cdef float* h = x + m.n_act
    cdef float acc = m.p_b2
    cdef int i
    action_features(pos, viewer, a, x)
    _dense(m.p_w1, bias, x, m.n_act, m.n_p, h, True)
    for i in range(m.n_p):
        acc += m.p_w2[i] * h[i]
    return acc


cdef inline int _scratch_layers(const model_t* m) noexcept nogil:
    cdef int value = m.n_in + m.n_h1 + m.n_h2 + 3 * MAX_SEATS
    cdef int policy = m.n_act + m.n_p
    return value if value > policy else policy


cdef inline int model_scratch_floats(const model_t* m) noexcept nogil:
    """Floats of scratch a tree needs for `m`: the layers, then the policy's bias."""
    return _scratch_layers(m) + m.n_p


cdef class ModelHandle:
    """A model's weights in one C buffer, shared read-only by every tree that
    uses it (trees keep a reference, so the buffer outlives them).

    Built by cacaoai.search.model from the arrays of a model file; the
    arrays' shapes are checked there and here."""

    cdef model_t m
    cdef float* buffer
    cdef readonly str name

    def __cinit__(self):
        self.buffer = NULL
        memset(&self.m, 0, sizeof(model_t))

    def __init__(self, str name, dict arrays, double gold_scale):
        cdef int total = 0, at = 0, k
        cdef float[::1] view
        order = ("w1", "b1", "w2", "b2", "w_out", "b_out", "p_w1", "p_b1", "p_w2")
        if "p_wx" in arrays:
            order += ("p_wx",)
        self.name = name
        w1, w_out, p_w1 = arrays["w1"], arrays["w_out"], arrays["p_w1"]
        self.m.n_in = w1.shape[1]
        self.m.n_h1 = w1.shape[0]
        self.m.n_h2 = arrays["w2"].shape[0] if arrays["w2"].size else 0
        self.m.n_act = p_w1.shape[1]
        self.m.n_p = p_w1.shape[0]
        if self.m.n_in != N_FEATURES:
            raise ValueError(f"the model reads {self.m.n_in} features, the engine gives {N_FEATURES}")
        if self.m.n_act != N_ACTION_FEATURES:
            raise ValueError(f"the model's policy reads {self.m.n_act} action features, "
                             f"the engine gives {N_ACTION_FEATURES}")
        if "p_wx" in arrays and tuple(arrays["p_wx"].shape) != (self.m.n_p, N_FEATURES):
            raise ValueError(f"p_wx: shape {tuple(arrays['p_wx'].shape)}, expected ({self.m.n_p}, {N_FEATURES})")
        if w_out.shape[0] != 3 * MAX_SEATS:
            raise ValueError(f"w_out: {w_out.shape[0]} outputs, expected {3 * MAX_SEATS}")
        for key in order:
            total += arrays[key].size
        self.buffer = <float*>malloc((total + 1) * sizeof(float))
        if self.buffer == NULL:
            raise MemoryError()
        pointers = {}
        for key in order:
            array = arrays[key].astype("float32")
            if array.ndim == 2:
                array = array.T.copy()      # kept transposed (see _dense)
            view = array.ravel()
            for k in range(view.shape[0]):
                self.buffer[at + k] = view[k]
            pointers[key] = at
            at += view.shape[0]
        self.m.w1 = self.buffer + <int>pointers["w1"]
        self.m.b1 = self.buffer + <int>pointers["b1"]
        self.m.w2 = self.buffer + <int>pointers["w2"]
        self.m.b2 = self.buffer + <int>pointers["b2"]
        self.m.w_out = self.buffer + <int>pointers["w_out"]
        self.m.b_out = self.buffer + <int>pointers["b_out"]
        self.m.p_w1 = self.buffer + <int>pointers["p_w1"]
        self.m.p_b1 = self.buffer + <int>pointers["p_b1"]
        self.m.p_w2 = self.buffer + <int>pointers["p_w2"]
        self.m.p_wx = self.buffer + <int>pointers["p_wx"] if "p_wx" in arrays else NULL
        self.m.p_b2 = float(arrays["p_b2"].ravel()[0])
        self.m.gold_scale = gold_scale

    def __dealloc__(self):
        free(self.buffer)

    def value(self, CorePosition core, int viewer):
        """(win shares, gold margins, final gold) per seat: the value network
        on `core` from `viewer`'s view (for tests and tools)."""
        cdef double win[MAX_SEATS]
        cdef double margin[MAX_SEATS]
        cdef double gold[MAX_SEATS]
        cdef float* scratch = <float*>malloc(model_scratch_floats(&self.m) * sizeof(float))
        cdef int n = core.pos.n_seats
        if scratch == NULL:
            raise MemoryError()
        if not 0 <= viewer < n:
            free(scratch)
            raise ValueError(f"viewer {viewer} is not a seat")
        with nogil:
            model_value(&self.m, &core.pos, viewer, scratch, win, margin, gold)
        free(scratch)
        return ([win[k] for k in range(n)], [margin[k] for k in range(n)],
                [gold[k] for k in range(n)])

    def logits(self, CorePosition core, codes):
        """The policy network's logit of each action code (legal at `core`),
        for the seat to act."""
        cdef float* scratch = <float*>malloc(model_scratch_floats(&self.m) * sizeof(float))
        cdef position_t work = core.pos
        cdef const float* bias
        if scratch == NULL:
            raise MemoryError()
        try:
            bias = model_policy_bias(&self.m, &work, work.to_act, scratch)
            return [model_logit(&self.m, &work, work.to_act, <action_t>c, bias, scratch) for c in codes]
        finally:
            free(scratch)
