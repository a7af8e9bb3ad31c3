# cython: language_level=3
"""The output buffer of the compiled encoders (_cbor, _codec, _json, _yaml; inline only: no module).

The buffer is the result ``bytes`` object itself: written through its data pointer,
resized as it grows and trimmed to the written length at the end, so a finished document
is never copied. Each writer keeps the four fields (``out``, its data ``buf``, the written
length and ``cap``) on itself, where its hot loops read them; these functions own every
change of the object.
"""
from cpython.object cimport PyObject
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize


cdef extern from "Python.h":
    int _bytebuf_resize "_PyBytes_Resize"(PyObject** b, Py_ssize_t n) except -1
    void _bytebuf_decref "Py_XDECREF"(PyObject* o)
    void _bytebuf_incref "Py_INCREF"(object o)


cdef inline int bytebuf_new(PyObject** out, char** buf, Py_ssize_t* cap, Py_ssize_t size) except -1:
    """A fresh buffer of ``size`` bytes in ``*out`` (owned), its data in ``*buf``."""
    o = PyBytes_FromStringAndSize(NULL, size)
    _bytebuf_incref(o)
    out[0] = <PyObject*>o
    buf[0] = PyBytes_AS_STRING(o)
    cap[0] = size
    return 0


cdef inline int bytebuf_grow(PyObject** out, char** buf, Py_ssize_t* cap, Py_ssize_t need) except -1:
    """Room for ``need`` bytes in all: the size doubles, or becomes ``need`` exactly when
    doubling is not enough (a first sizing from a hint takes what it asks for: see
    _json.pyx's json_encode on why large buffers should not be over-asked)."""
    cdef Py_ssize_t size = cap[0]
    if need <= size:
        return 0
    size = need if size * 2 < need else size * 2
    _bytebuf_resize(out, size)
    buf[0] = PyBytes_AS_STRING(<object>out[0])
    cap[0] = size
    return 0


cdef inline object bytebuf_take(PyObject** out, Py_ssize_t length):
    """The buffer trimmed to ``length`` bytes, as a ``bytes`` the caller owns; ``*out``
    is left NULL."""
    cdef PyObject* o = out[0]
    out[0] = NULL
    _bytebuf_resize(&o, length)
    r = <object>o
    _bytebuf_decref(o)
    return r


cdef inline void bytebuf_free(PyObject** out) noexcept:
    """Drop a buffer never taken (a writer abandoned by an error)."""
    cdef PyObject* o = out[0]
    out[0] = NULL
    _bytebuf_decref(o)
