# C types for snapshot.py, which setup.py compiles in Cython's pure-Python
# mode: the checks' helpers become C functions and their counters, cells and
# grid bytes C ints, so loading a position costs a fraction of the plain
# Python. snapshot.py stays the one source and runs unchanged without Cython.

cimport cython

cdef int _SPAN, _ORIGIN, REACH

@cython.locals(x=int, y=int, b=int, under=int, key=long, s=int)
cpdef str snapshot_text(object c, object view=*)

cdef _parse(object data)
cdef bint _mapping(object value) except -1
cdef object _int(object value, str field, long lo, long hi)
cdef list _names(object value, str field, object allowed)
cdef bint _known(object name, object allowed)
cdef tuple _xy(int cell)
cdef list _tally(list names, object table, int size)

@cython.locals(n=int, g=cython.p_uchar, cell=int, b=int, kinds=int, k=int)
cdef dict _check(object d, bint observation, bint reachable=*)

@cython.locals(most=Py_ssize_t, g=cython.p_uchar, i=Py_ssize_t, x=int, y=int, cell=int, byte=int, seat=int,
               most_rot=int, k=int, b=int, a=int, b1=int, b2=int, b3=int, n0=int, n1=int, n2=int, n3=int)
cdef tuple _check_board(object board, int n, bint reachable, bytearray grid, list order)

@cython.locals(g=cython.p_uchar, s=cython.p_uchar, here=int, cell=int, d=int, b=int, worker=bint,
               laid=Py_ssize_t, far=int, x=int, y=int)
cdef _check_reachable(bytearray grid, list order)

@cython.locals(g=cython.p_uchar, cell=int, d=int)
cdef _check_filled(bytearray grid, list order, list tiles)

@cython.locals(g=cython.p_uchar, n0=int, n1=int, n2=int, n3=int)
cdef bint _unfilled(bytearray grid, int cell) except -1

@cython.locals(total=int, s=Py_ssize_t, b=int, laid=int, done=int, used=int, drawn=int)
cdef list _check_seats(object raw, int n, list tiles, dict covered, object view, int first, int turn,
                       int mover, int phase, bint reachable)
cdef _check_gains(str f, int laid, object gold, object cacao, object sun, object water)
cdef list _check_pending(object raw, int n, int phase, int mover)
cdef _build(dict parts)
