# cython: language_level=3
"""Compiled twins of the block-style YAML fast path of ``kcodec._native.yaml``.

Why the reader exists: the YAML route (``goyaml.yaml_to_tree``) runs libyaml for events and
then builds go-yaml's node graph and values in Python, to get anchors, merge keys, tags,
the alias budget and go-yaml's error texts right. For the documents kcodec actually meets
(what go-yaml, kubectl and people write: block mappings and sequences, plain and quoted
scalars, long strings folded over lines, block scalars, one-line flow sequences of scalars,
comments) that machinery was nearly the whole cost of a YAML decode. ``yaml_block_tree``
walks the UTF-8 bytes once and builds the JSON tree directly.

Why it may say no: it answers ``None`` for any document holding something outside that
subset (the pure twin's docstring lists what), and the caller then takes the libyaml route
for the whole document. Deciding per document keeps one implementation of every rare
construct and of every error text; the fast path never raises anything of its own and
never returns a partial tree. Both twins give the same answer (tree or None) for every
input, which tests/speedups/test_yaml_fastpath.py checks.

What stays in Python: scalar resolution beyond plain words, simple decimal integers and
true/false/null goes through ``goyaml.block_resolve_plain`` (go-yaml's resolve() with its
YAML 1.1 numbers and timestamps is written once, in ``kcodec.goyaml``), and keys that could
resolve to a non-string go through ``goyaml.block_plain_key``; both twins share them.

Every read is checked against the end of the buffer (``at``, or an explicit bound in each
loop); nesting is bounded by ``BLOCK_MAX_DEPTH`` (C recursion); every scan moves forward, so
hostile input cannot crash, hang or make it allocate more than a few times its size.

``yaml_encode_tree`` is the writer's twin; why it exists is told above its code below.
"""
from libc.string cimport memchr
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.long cimport PyLong_FromLongLong
from cpython.dict cimport PyDict_SetItem, PyDict_Contains
from cpython.list cimport PyList_Append

from kcodec import goyaml as _goyaml
from kcodec.goyaml import BlockFallback, block_plain_key, block_resolve_plain

__all__ = ["yaml_block_tree", "yaml_encode_tree"]

cdef int BLOCK_MAX_DEPTH = _goyaml.BLOCK_MAX_DEPTH
cdef Py_ssize_t BLOCK_MAX_KEY = _goyaml.BLOCK_MAX_KEY

cdef enum:
    T_EOL = 0
    T_COLON = 1
    T_COMMENT = 2


cdef inline bint _is_hint(unsigned char c):
    # go-yaml's resolve table hints: anything else starting a plain scalar is a string.
    return (c == b'+' or c == b'-' or c == b'.' or (b'0' <= c <= b'9') or c == b'~'
            or c == b'y' or c == b'Y' or c == b'n' or c == b'N' or c == b't' or c == b'T'
            or c == b'f' or c == b'F' or c == b'o' or c == b'O')


cdef inline bint _maybe_not_str(const unsigned char* p, Py_ssize_t k):
    # Under a letter or '~' hint go-yaml resolves only the words of its table (yes, Off,
    # null, ~ ...), none longer than five bytes; under a sign, digit or dot anything may be a
    # number or a timestamp.
    cdef unsigned char c = p[0]
    if not _is_hint(c):
        return False
    if c == b'+' or c == b'-' or c == b'.' or (b'0' <= c <= b'9'):
        return True
    return k <= 5


cdef inline bint _not_plain_start(unsigned char c):
    return (c == b',' or c == b'[' or c == b']' or c == b'{' or c == b'}' or c == b'#'
            or c == b'&' or c == b'*' or c == b'!' or c == b'|' or c == b'>' or c == b'\''
            or c == b'"' or c == b'%' or c == b'@' or c == b'`')


cdef inline int _hexval(unsigned char c):
    if b'0' <= c <= b'9':
        return c - 48
    if b'a' <= c <= b'f':
        return c - 87
    if b'A' <= c <= b'F':
        return c - 55
    return -1


cdef bint _valid_text(const unsigned char* b, Py_ssize_t n):
    """UTF-8 and libyaml's printable set, less the line breaks and BOM the fast path leaves
    to libyaml (the pure twin's _BAD_CHAR)."""
    cdef Py_ssize_t i = 0
    cdef unsigned char c
    cdef unsigned int cp
    cdef int k, j
    while i < n:
        c = b[i]
        if c < 0x80:
            if c == 9 or c == 10 or (0x20 <= c <= 0x7E):
                i += 1
                continue
            return False
        if 0xC2 <= c <= 0xDF:
            k = 1
            cp = c & 0x1F
        elif 0xE0 <= c <= 0xEF:
            k = 2
            cp = c & 0x0F
        elif 0xF0 <= c <= 0xF4:
            k = 3
            cp = c & 0x07
        else:
            return False
        if i + k >= n:
            return False
        for j in range(1, k + 1):
            if (b[i + j] & 0xC0) != 0x80:
                return False
            cp = (cp << 6) | (b[i + j] & 0x3F)
        # Overlong forms, surrogates and values past U+10FFFF are invalid UTF-8.
        if (k == 2 and cp < 0x800) or (k == 3 and (cp < 0x10000 or cp > 0x10FFFF)):
            return False
        if 0xD800 <= cp <= 0xDFFF:
            return False
        if cp < 0xA0 or cp == 0x2028 or cp == 0x2029 or cp == 0xFEFF or cp == 0xFFFE or cp == 0xFFFF:
            return False
        i += k + 1
    return True


cdef class _Buf:
    """A growable byte buffer for scalars that are not a plain slice of the input."""
    cdef bytearray data

    def __cinit__(self):
        self.data = bytearray()

    cdef inline void clear(self):
        del self.data[:]

    cdef inline void add(self, const unsigned char* p, Py_ssize_t k):
        self.data += (<const char*>p)[:k]

    cdef inline void add_byte(self, unsigned char c):
        self.data.append(c)

    cdef void add_cp(self, unsigned int cp):
        if cp < 0x80:
            self.data.append(cp)
        elif cp < 0x800:
            self.data.append(0xC0 | (cp >> 6))
            self.data.append(0x80 | (cp & 0x3F))
        elif cp < 0x10000:
            self.data.append(0xE0 | (cp >> 12))
            self.data.append(0x80 | ((cp >> 6) & 0x3F))
            self.data.append(0x80 | (cp & 0x3F))
        else:
            self.data.append(0xF0 | (cp >> 18))
            self.data.append(0x80 | ((cp >> 12) & 0x3F))
            self.data.append(0x80 | ((cp >> 6) & 0x3F))
            self.data.append(0x80 | (cp & 0x3F))

    cdef str text(self):
        return self.data.decode("utf-8")


cdef class _Dec:
    cdef const unsigned char* b
    cdef Py_ssize_t n
    cdef object keep
    # Results of next_sig and the scanners, read by their callers.
    cdef Py_ssize_t ls
    cdef Py_ssize_t ind
    cdef Py_ssize_t end
    cdef _Buf buf

    def __cinit__(self, bytes data):
        self.keep = data
        self.b = <const unsigned char*>(<const char*>data)
        self.n = len(data)
        self.buf = _Buf()

    cdef inline unsigned char at(self, Py_ssize_t i):
        # Every read goes through here: past the end reads as NUL, which no rule accepts.
        if 0 <= i < self.n:
            return self.b[i]
        return 0

    cdef inline str text(self, Py_ssize_t a, Py_ssize_t e):
        return PyUnicode_DecodeUTF8(<const char*>self.b + a, e - a, NULL)

    cdef Py_ssize_t next_line(self, Py_ssize_t p):
        if p >= self.n:
            return self.n
        cdef const void* hit = memchr(self.b + p, 10, self.n - p)
        if hit == NULL:
            return self.n
        return (<const unsigned char*>hit - self.b) + 1

    cdef int next_sig(self, Py_ssize_t ls) except -1:
        cdef Py_ssize_t q
        cdef unsigned char c
        while ls < self.n:
            q = ls
            while q < self.n and self.b[q] == b' ':
                q += 1
            if q >= self.n:
                break
            c = self.b[q]
            if c == b'\n':
                ls = q + 1
            elif c == b'#':
                ls = self.next_line(q)
            elif c == b'\t':
                raise BlockFallback
            else:
                self.ls = ls
                self.ind = q - ls
                return 0
        self.ls = self.n
        self.ind = -1
        return 0

    cdef int finish_line(self, Py_ssize_t p) except -1:
        cdef Py_ssize_t q = p
        cdef unsigned char c
        while q < self.n and self.b[q] == b' ':
            q += 1
        if q < self.n:
            c = self.b[q]
            if c == b'#':
                if q == p:
                    raise BlockFallback
            elif c != b'\n':
                raise BlockFallback
            return self.next_sig(self.next_line(q))
        return self.next_sig(self.n)

    cdef inline bint is_dash(self, Py_ssize_t p):
        cdef unsigned char c
        if self.at(p) != b'-':
            return False
        if p + 1 >= self.n:
            return True
        c = self.b[p + 1]
        return c == b' ' or c == b'\n'

    cdef Py_ssize_t skip_spaces(self, Py_ssize_t p) except -1:
        while p < self.n and self.b[p] == b' ':
            p += 1
        if self.at(p) == b'\t':
            raise BlockFallback
        return p

    # -- scalars ---------------------------------------------------------------------------

    cdef Py_ssize_t scan_plain(self, Py_ssize_t p, int* term) except -1:
        cdef unsigned char c = self.at(p)
        cdef unsigned char d
        cdef Py_ssize_t e
        if _not_plain_start(c):
            raise BlockFallback
        if c == b'-' or c == b'?' or c == b':':
            d = self.at(p + 1)
            if d == 0 or d == b' ' or d == b'\n' or d == b'\t':
                raise BlockFallback
        e = p + 1
        while e < self.n:
            c = self.b[e]
            if c == b'\n':
                term[0] = T_EOL
                return e
            if c == b':':
                d = self.at(e + 1)
                if d == 0 or d == b' ' or d == b'\n':
                    term[0] = T_COLON
                    return e
            elif c == b' ':
                if self.at(e + 1) == b'#':
                    term[0] = T_COMMENT
                    return e
            elif c == b'\t':
                raise BlockFallback
            e += 1
        term[0] = T_EOL
        return self.n

    cdef inline str scan_double(self, Py_ssize_t p):
        return self.scan_quoted(p, True)

    cdef inline str scan_single(self, Py_ssize_t p):
        return self.scan_quoted(p, False)

    cdef str scan_quoted(self, Py_ssize_t p, bint double):
        """libyaml's yaml_parser_scan_flow_scalar (the pure twin's scan_quoted); self.end is
        set past the closing quote. A scalar without escapes or breaks is one slice."""
        cdef unsigned char quote = b'"' if double else b'\''
        cdef Py_ssize_t i = p + 1
        cdef Py_ssize_t run, ws_start, ws_end, trailing, k
        cdef unsigned char c
        cdef bint leading_blanks, leading_break
        cdef bint copied = False
        cdef _Buf buf = self.buf
        while True:
            if i >= self.n:
                raise BlockFallback  # "found unexpected end of stream"
            if self.b[i - 1] == b'\n' and i + 2 < self.n and (
                    (self.b[i] == b'-' and self.b[i + 1] == b'-' and self.b[i + 2] == b'-')
                    or (self.b[i] == b'.' and self.b[i + 1] == b'.' and self.b[i + 2] == b'.')):
                c = self.at(i + 3)
                if c == 0 or c == b' ' or c == b'\t' or c == b'\n':
                    raise BlockFallback  # "found unexpected document indicator"
            leading_blanks = False
            run = i
            while i < self.n:
                c = self.b[i]
                if c == b' ' or c == b'\t' or c == b'\n':
                    break
                if c == quote:
                    if not double and self.at(i + 1) == b'\'':
                        if not copied:
                            copied = True
                            buf.clear()
                        buf.add(self.b + run, i - run + 1)
                        i += 2
                        run = i
                        continue
                    break
                if double and c == b'\\':
                    if not copied:
                        copied = True
                        buf.clear()
                    buf.add(self.b + run, i - run)
                    if self.at(i + 1) == b'\n':
                        i += 2
                        run = i
                        leading_blanks = True
                        break
                    i = self.escape(i)
                    run = i
                    continue
                i += 1
            if i >= self.n:
                raise BlockFallback
            if self.b[i] == quote:
                self.end = i + 1
                if not copied:
                    return self.text(p + 1, i)
                buf.add(self.b + run, i - run)
                return buf.text()
            if not copied:
                copied = True
                buf.clear()
            if not leading_blanks:
                buf.add(self.b + run, i - run)
            ws_start = i
            ws_end = i
            leading_break = False
            trailing = 0
            while i < self.n:
                c = self.b[i]
                if c == b' ' or c == b'\t':
                    if not leading_blanks:
                        ws_end = i + 1
                elif c == b'\n':
                    if not leading_blanks:
                        leading_break = True
                        leading_blanks = True
                    else:
                        trailing += 1
                else:
                    break
                i += 1
            if leading_blanks:
                if leading_break and trailing == 0:
                    buf.add_byte(b' ')
                else:
                    for k in range(trailing):
                        buf.add_byte(b'\n')
            else:
                buf.add(self.b + ws_start, ws_end - ws_start)

    cdef Py_ssize_t escape(self, Py_ssize_t j) except -1:
        """The escape at b[j] == '\\' appended to the buffer; returns the position after it."""
        cdef unsigned char e = self.at(j + 1)
        cdef Py_ssize_t width = 0, k
        cdef unsigned int v
        cdef int h
        cdef _Buf buf = self.buf
        if e == b'0':
            buf.add_byte(0)
        elif e == b'a':
            buf.add_byte(7)
        elif e == b'b':
            buf.add_byte(8)
        elif e == b't' or e == b'\t':
            buf.add_byte(9)
        elif e == b'n':
            buf.add_byte(10)
        elif e == b'v':
            buf.add_byte(11)
        elif e == b'f':
            buf.add_byte(12)
        elif e == b'r':
            buf.add_byte(13)
        elif e == b'e':
            buf.add_byte(27)
        elif e == b' ' or e == b'"' or e == b'\\':
            buf.add_byte(e)
        elif e == b'N':
            buf.add_cp(0x85)
        elif e == b'_':
            buf.add_cp(0xA0)
        elif e == b'L':
            buf.add_cp(0x2028)
        elif e == b'P':
            buf.add_cp(0x2029)
        elif e == b'x':
            width = 2
        elif e == b'u':
            width = 4
        elif e == b'U':
            width = 8
        else:
            raise BlockFallback  # \' \/ and unknown escapes: go-yaml's rules
        if width:
            v = 0
            for k in range(width):
                h = _hexval(self.at(j + 2 + k))
                if h < 0:
                    raise BlockFallback
                v = (v << 4) | <unsigned int>h
            if (0xD800 <= v <= 0xDFFF) or v > 0x10FFFF:
                raise BlockFallback
            buf.add_cp(v)
        return j + 2 + width

    cdef Py_ssize_t key_chars(self, Py_ssize_t a, Py_ssize_t e):
        # The pure twin counts characters: count the bytes that start one.
        cdef Py_ssize_t k = 0
        while a < e:
            if (self.b[a] & 0xC0) != 0x80:
                k += 1
            a += 1
        return k

    cdef object scan_key(self, Py_ssize_t p):
        """The key starting at ``p`` (self.end past its ':'), or None when none does."""
        cdef unsigned char c = self.at(p)
        cdef Py_ssize_t q, e
        cdef int term = T_EOL
        cdef str text
        if c == b'"' or c == b'\'':
            text = self.scan_double(p) if c == b'"' else self.scan_single(p)
            q = self.end
            while q < self.n and self.b[q] == b' ':
                q += 1
            if self.at(q) == b':':
                c = self.at(q + 1)
                if c == 0 or c == b' ' or c == b'\n':
                    if q - p > BLOCK_MAX_KEY and self.key_chars(p, q) > BLOCK_MAX_KEY:
                        raise BlockFallback
                    if memchr(self.b + p, 10, q - p) != NULL:
                        raise BlockFallback  # simple keys are one line
                    self.end = q + 1
                    return text
            return None
        if _not_plain_start(c):
            return None  # "- {}", "- |" ...: a value, never a key
        e = self.scan_plain(p, &term)
        if term != T_COLON:
            return None
        if e - p > BLOCK_MAX_KEY and self.key_chars(p, e) > BLOCK_MAX_KEY:
            raise BlockFallback
        self.end = e + 1
        q = e
        while q > p and self.b[q - 1] == b' ':
            q -= 1
        text = self.text(p, q)
        if _maybe_not_str(self.b + p, q - p) or (q - p == 2 and self.b[p] == b'<' and self.b[p + 1] == b'<'):
            return block_plain_key(text)
        return text

    cdef Py_ssize_t block_breaks(self, Py_ssize_t i, Py_ssize_t indent, Py_ssize_t* col,
                                 Py_ssize_t* breaks, Py_ssize_t* max_indent) except -1:
        """libyaml's yaml_parser_scan_block_scalar_breaks from line start ``i``."""
        cdef Py_ssize_t j, c
        breaks[0] = 0
        max_indent[0] = 0
        while True:
            j = i
            while j < self.n and self.b[j] == b' ' and (indent == 0 or j - i < indent):
                j += 1
            c = j - i
            if c > max_indent[0]:
                max_indent[0] = c
            if self.at(j) == b'\t' and (indent == 0 or c < indent):
                raise BlockFallback
            if j >= self.n or self.b[j] != b'\n':
                col[0] = c
                return i
            breaks[0] += 1
            i = j + 1

    cdef str block_scalar(self, Py_ssize_t p, Py_ssize_t parent):
        """libyaml's yaml_parser_scan_block_scalar; self.ls/self.ind: where structure resumes."""
        cdef bint literal = self.at(p) == b'|'
        cdef int chomping = 0
        cdef Py_ssize_t increment = 0
        cdef Py_ssize_t q = p + 1
        cdef Py_ssize_t r, i, col = 0, trailing = 0, max_indent = 0, indent, line_start, e, k
        cdef unsigned char c
        cdef bint leading_break = False, leading_blank = False, trailing_blank
        cdef _Buf buf = self.buf
        for k in range(2):
            c = self.at(q)
            if (c == b'+' or c == b'-') and chomping == 0:
                chomping = 1 if c == b'+' else -1
                q += 1
            elif b'1' <= c <= b'9' and increment == 0:
                increment = c - 48
                q += 1
            else:
                break
        r = q
        while r < self.n and self.b[r] == b' ':
            r += 1
        if r < self.n and self.b[r] != b'\n':
            if self.b[r] != b'#' or r == q:
                raise BlockFallback
            r = self.next_line(r) - 1
            if r >= self.n - 1 and self.b[self.n - 1] != b'\n':
                raise BlockFallback
        if r >= self.n:
            raise BlockFallback  # the header must end with a line break
        buf.clear()
        indent = parent + increment if increment else 0
        i = self.block_breaks(r + 1, indent, &col, &trailing, &max_indent)
        if indent == 0:
            indent = max_indent
            if indent < parent + 1:
                indent = parent + 1
            if indent < 1:
                indent = 1
        while col == indent and i + col < self.n:
            line_start = i + col
            c = self.b[line_start]
            trailing_blank = c == b' ' or c == b'\t'
            if not literal and leading_break and not leading_blank and not trailing_blank:
                if trailing == 0:
                    buf.add_byte(b' ')
                leading_break = False
            else:
                if leading_break:
                    buf.add_byte(b'\n')
                leading_break = False
            for k in range(trailing):
                buf.add_byte(b'\n')
            leading_blank = trailing_blank
            e = self.next_line(line_start)
            if e >= self.n and self.b[self.n - 1] != b'\n':
                buf.add(self.b + line_start, self.n - line_start)
                i = self.n
                trailing = 0
                break
            buf.add(self.b + line_start, e - 1 - line_start)
            leading_break = True
            i = self.block_breaks(e, indent, &col, &trailing, &max_indent)
        if chomping != -1 and leading_break:
            buf.add_byte(b'\n')
        if chomping == 1:
            for k in range(trailing):
                buf.add_byte(b'\n')
        self.next_sig(i)
        return buf.text()

    cdef object plain_value(self, Py_ssize_t p, Py_ssize_t e):
        """go-yaml's resolve() and the JSON number trip for the plain scalar b[p:e]."""
        cdef unsigned char c
        cdef Py_ssize_t k, start
        cdef long long v
        cdef bint neg
        while e > p and self.b[e - 1] == b' ':
            e -= 1
        c = self.b[p]
        if not _maybe_not_str(self.b + p, e - p):
            return self.text(p, e)
        k = e - p
        if k == 4 and c == b't' and self.b[p + 1] == b'r' and self.b[p + 2] == b'u' and self.b[p + 3] == b'e':
            return True
        if k == 5 and c == b'f' and self.b[p + 1] == b'a' and self.b[p + 2] == b'l' and self.b[p + 3] == b's' and self.b[p + 4] == b'e':
            return False
        if k == 4 and c == b'n' and self.b[p + 1] == b'u' and self.b[p + 2] == b'l' and self.b[p + 3] == b'l':
            return None
        # Decimal integers without a leading zero (a leading 0 is octal to ParseInt) that
        # cannot overflow int64.
        neg = c == b'-'
        start = p + 1 if neg else p
        if 0 < e - start <= 18 and (b'1' <= self.b[start] <= b'9' or (e - start == 1 and self.b[start] == b'0' and not neg)):
            v = 0
            k = start
            while k < e and b'0' <= self.b[k] <= b'9':
                v = v * 10 + (self.b[k] - 48)
                k += 1
            if k == e:
                return PyLong_FromLongLong(-v if neg else v)
        return block_resolve_plain(self.text(p, e))

    cdef object scalar_value(self, Py_ssize_t p, Py_ssize_t owner):
        cdef unsigned char c = self.at(p)
        cdef unsigned char d
        cdef int term = T_EOL
        cdef Py_ssize_t e
        cdef object value
        if c == b'|' or c == b'>':
            return self.block_scalar(p, owner)
        if c == b'"':
            value = self.scan_double(p)
            self.finish_line(self.end)
            return value
        if c == b'\'':
            value = self.scan_single(p)
            self.finish_line(self.end)
            return value
        if c == b'{':
            if self.at(p + 1) == b'}':
                self.finish_line(p + 2)
                return {}
            raise BlockFallback
        if c == b'[':
            value = self.flow_sequence(p)
            self.finish_line(self.end)
            return value
        e = self.scan_plain(p, &term)
        if term == T_COLON:
            raise BlockFallback  # "mapping values are not allowed in this context"
        if term == T_COMMENT:
            value = self.plain_value(p, e)
            self.next_sig(self.next_line(e))
            return value
        if e >= self.n:
            value = self.plain_value(p, e)
            self.next_sig(self.n)
            return value
        return self.plain_lines(p, e, owner)

    cdef object plain_lines(self, Py_ssize_t p, Py_ssize_t e, Py_ssize_t owner):
        """A plain scalar whose first line is b[p:e], with its continuation lines (the pure
        twin's plain_lines); sets self.ls/self.ind where structure resumes."""
        cdef Py_ssize_t i = e + 1
        cdef Py_ssize_t j, f, breaks = 0, k, t
        cdef unsigned char c
        cdef bint folded = False
        cdef _Buf buf = self.buf
        while i < self.n:
            j = i
            while j < self.n and self.b[j] == b' ':
                j += 1
            if j >= self.n:
                break
            c = self.b[j]
            if c == b'\n':
                breaks += 1
                i = j + 1
                continue
            if c == b'\t':
                raise BlockFallback
            if j - i <= owner or c == b'#':
                break  # less indented, or a comment: the scalar ended on an earlier line
            f = j
            c = 0
            while f < self.n:
                c = self.b[f]
                if c == b'\n':
                    break
                if c == b':':
                    t = self.at(f + 1)
                    if t == 0 or t == b' ' or t == b'\n':
                        raise BlockFallback
                elif c == b' ':
                    if self.at(f + 1) == b'#':
                        break
                elif c == b'\t':
                    raise BlockFallback
                f += 1
            if not folded:
                folded = True
                buf.clear()
                t = e
                while t > p and self.b[t - 1] == b' ':
                    t -= 1
                buf.add(self.b + p, t - p)
            if breaks == 0:
                buf.add_byte(b' ')
            else:
                for k in range(breaks):
                    buf.add_byte(b'\n')
            breaks = 0
            t = f
            while t > j and self.b[t - 1] == b' ':
                t -= 1
            buf.add(self.b + j, t - j)
            if f >= self.n or c == b' ':
                i = self.next_line(f)
                break
            i = f + 1
        if not folded:
            value = self.plain_value(p, e)
        else:
            value = block_resolve_plain(buf.text())
        self.next_sig(i)
        return value

    cdef list flow_sequence(self, Py_ssize_t p):
        """A one-line flow sequence of scalars (the pure twin's flow_sequence); self.end is
        set past its ``]``."""
        cdef Py_ssize_t eol = self.next_line(p)
        cdef Py_ssize_t i, e
        cdef unsigned char c, d
        cdef list out = []
        cdef str text
        if eol > p and self.b[eol - 1] == b'\n':
            eol -= 1
        i = self.flow_spaces(p + 1, eol)
        if self.b[i] == b']':
            self.end = i + 1
            return out
        while True:
            c = self.b[i]
            if c == b'"' or c == b'\'':
                text = self.scan_quoted(i, c == b'"')
                e = self.end
                if e > eol:
                    raise BlockFallback
                PyList_Append(out, text)
            else:
                if _not_plain_start(c) or c == b'?' or c == b':':
                    raise BlockFallback
                if c == b'-':
                    if i + 1 >= eol:
                        raise BlockFallback
                    d = self.b[i + 1]
                    if d == b' ' or d == b',' or d == b']':
                        raise BlockFallback
                e = i
                while True:
                    if e >= eol:
                        raise BlockFallback
                    c = self.b[e]
                    if c == b',' or c == b']':
                        break
                    if (c == b':' or c == b'?' or c == b'[' or c == b'{' or c == b'}' or c == b'#'
                            or c == b'\t' or c == b'\n'):
                        raise BlockFallback
                    e += 1
                PyList_Append(out, self.plain_value(i, e))
            e = self.flow_spaces(e, eol)
            c = self.b[e]
            if c == b']':
                self.end = e + 1
                return out
            if c != b',':
                raise BlockFallback
            i = self.flow_spaces(e + 1, eol)
            c = self.b[i]
            if c == b']' or c == b',':
                raise BlockFallback  # trailing comma or empty item

    cdef Py_ssize_t flow_spaces(self, Py_ssize_t i, Py_ssize_t eol) except -1:
        while i < eol and self.b[i] == b' ':
            i += 1
        if i >= eol or self.b[i] == b'\t':
            raise BlockFallback
        return i

    # -- collections -----------------------------------------------------------------------

    cdef object collection(self, Py_ssize_t ls, Py_ssize_t col, int depth):
        if depth > BLOCK_MAX_DEPTH:
            raise BlockFallback
        if self.is_dash(ls + col):
            return self.sequence(ls + col, col, depth)
        return self.mapping(ls + col, col, depth)

    cdef dict mapping(self, Py_ssize_t p, Py_ssize_t col, int depth):
        cdef dict out = {}
        cdef object key, value
        while True:
            key = self.scan_key(p)
            if key is None:
                raise BlockFallback
            if PyDict_Contains(out, key):
                raise BlockFallback  # duplicates: strict mode's error text lives in goyaml
            value = self.after_indicator(self.end, col, depth, True)
            PyDict_SetItem(out, key, value)
            if self.ind < col:
                return out
            if self.ind > col:
                raise BlockFallback
            p = self.ls + col
            if self.is_dash(p):
                raise BlockFallback

    cdef list sequence(self, Py_ssize_t p, Py_ssize_t col, int depth):
        cdef list out = []
        while True:
            PyList_Append(out, self.after_indicator(p + 1, col, depth, False))
            if self.ind < col:
                return out
            if self.ind > col:
                raise BlockFallback
            p = self.ls + col
            if not self.is_dash(p):
                return out

    cdef object after_indicator(self, Py_ssize_t q, Py_ssize_t col, int depth, bint in_map):
        cdef Py_ssize_t p = self.skip_spaces(q)
        cdef unsigned char c = self.at(p)
        cdef Py_ssize_t save_end
        if c == 0 or c == b'\n' or c == b'#':
            self.next_sig(self.next_line(p))
            if self.ind > col:
                return self.collection(self.ls, self.ind, depth + 1)
            if in_map and self.ind == col and self.is_dash(self.ls + col):
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.sequence(self.ls + col, col, depth + 1)
            return None
        if not in_map:
            if self.is_dash(p):
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.sequence(p, p - (q - 1 - col), depth + 1)
            if self.scan_key(p) is not None:
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.mapping(p, col + (p - q) + 1, depth + 1)
        elif self.is_dash(p):
            raise BlockFallback  # "block sequence entries are not allowed in this context"
        return self.scalar_value(p, col)


def yaml_block_tree(data):
    """The JSON tree of a block-style YAML document, or None when the libyaml route must decide."""
    cdef bytes raw
    cdef _Dec d
    cdef Py_ssize_t n, ls
    cdef unsigned char c
    if type(data) is bytes:
        raw = <bytes>data
    elif isinstance(data, str):
        try:
            raw = (<str>data).encode("utf-8")
        except UnicodeEncodeError:
            return None
    else:
        try:
            raw = bytes(data)
        except TypeError:
            return None
    n = len(raw)
    if not _valid_text(<const unsigned char*>(<const char*>raw), n):
        return None
    d = _Dec(raw)
    try:
        d.next_sig(0)
        ls = d.ls
        if d.ind == 0 and d.at(ls) == b'-' and d.at(ls + 1) == b'-' and d.at(ls + 2) == b'-':
            c = d.at(ls + 3)
            if c == b' ':
                d.finish_line(ls + 3)
            elif c == 0 or c == b'\n':
                d.next_sig(d.next_line(ls))
        if d.ind < 0:
            return None
        value = d.collection(d.ls, d.ind, 1)
        if d.ls < n:
            return None
        return value
    except BlockFallback:
        return None


# ---------------------------------------------------------------------------------------------
# Tree -> YAML: the writer of goyaml.tree_to_yaml, state and all, in C.
#
# Why: the pure writer spends its time on per-node Python calls and emitter attribute
# traffic, while nearly every node of an object is a mapping, a sequence, an integer, a
# boolean or a word-like string whose text is fixed. Those are written here from a C copy of
# the emitter state (column, whitespace, indention, indent); every string whose form depends
# on quoting or folding, every float and out-of-range integer, and the rare long keys go
# through the pure emitter (emit_scalar, emit_complex_key, _scalar_text, _simple_key_text)
# from the same state, so each rule has one implementation. A tree holding anything but
# exact dict/list/tuple/str/int/float/bool/None, or nested deeper than ENCODE_DEPTH, is
# written by the pure writer whole: same bytes, same errors.

from libc.string cimport memcpy, memset
from cpython.object cimport PyObject
from kcodec._speedups._bytebuf cimport bytebuf_free, bytebuf_grow, bytebuf_new, bytebuf_take
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.unicode cimport PyUnicode_AsUTF8AndSize

from kcodec.goyaml import (
    _clean_str, _scalar_text, _simple_key_text, _sorted_keys, emit_complex_key, emit_scalar, tree_to_yaml,
)


cdef int ENCODE_DEPTH = 1000


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    const char* PyUnicode_AsUTF8(object o) except NULL


cdef class _Out:
    cdef PyObject* out  # the bytes object written (see _bytebuf.pxd)
    cdef char* buf
    cdef Py_ssize_t len
    cdef Py_ssize_t cap
    # go-yaml's emitter state (see goyaml._Emitter).
    cdef Py_ssize_t column
    cdef bint whitespace
    cdef bint indention
    cdef Py_ssize_t indent

    def __cinit__(self):
        bytebuf_new(&self.out, &self.buf, &self.cap, 65536)
        self.len = 0
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1

    def __dealloc__(self):
        bytebuf_free(&self.out)

    cdef int reserve(self, Py_ssize_t k) except -1:
        if self.len + k <= self.cap:
            return 0
        return bytebuf_grow(&self.out, &self.buf, &self.cap, self.len + k)

    cdef inline int put(self, const char* p, Py_ssize_t k) except -1:
        self.reserve(k)
        memcpy(self.buf + self.len, p, k)
        self.len += k
        return 0

    cdef inline int put_byte(self, char c) except -1:
        self.reserve(1)
        self.buf[self.len] = c
        self.len += 1
        return 0

    cdef int put_str(self, str s) except -1:
        cdef Py_ssize_t k
        cdef const char* p = PyUnicode_AsUTF8AndSize(s, &k)
        return self.put(p, k)

    cdef int write_indent(self) except -1:
        cdef Py_ssize_t indent = self.indent if self.indent > 0 else 0
        cdef Py_ssize_t col = self.column
        if not self.indention or col > indent or (col == indent and not self.whitespace):
            self.put_byte(b'\n')
            col = 0
        if col < indent:
            self.reserve(indent - col)
            memset(self.buf + self.len, 32, indent - col)
            self.len += indent - col
            col = indent
        self.column = col
        self.whitespace = True
        self.indention = True
        return 0

    cdef int indicator(self, char c, bint need_ws, bint is_ws, bint is_indention) except -1:
        if need_ws and not self.whitespace:
            self.put_byte(b' ')
            self.column += 1
        self.put_byte(c)
        self.column += 1
        self.whitespace = is_ws
        self.indention = self.indention and is_indention
        return 0

    cdef int word(self, const char* p, Py_ssize_t k, Py_ssize_t chars) except -1:
        """A plain scalar that is never folded, after a space when one is needed."""
        if not self.whitespace:
            self.put_byte(b' ')
            self.column += 1
        self.put(p, k)
        self.column += chars
        self.whitespace = False
        self.indention = False
        return 0

    cdef int pure(self, tuple r) except -1:
        """Take over the text and state the pure emitter produced."""
        self.put_str(<str>r[0])
        self.column = r[1]
        self.whitespace = r[2]
        self.indention = r[3]
        return 0


class _Whole(Exception):
    """The tree holds something only the pure writer handles; it writes the whole tree."""


cdef inline bint _plain_char(unsigned char c):
    return (b'a' <= c <= b'z') or (b'A' <= c <= b'Z') or (b'0' <= c <= b'9') or c == b'_' or c == b'.' or c == b'/' or c == b'-'


cdef bint _word_like(str s):
    """True when tree_to_yaml writes ``s`` as itself, unquoted and never folded: goyaml's
    _FAST_PLAIN_RE shape (ASCII letters, digits, ``_./-``, not starting with ``-`` or
    ``...``) with no resolve hint at its start, or under a letter hint longer than any word
    of go-yaml's resolve table (so it resolves to a string and _string_style keeps it plain)."""
    cdef Py_ssize_t k, i
    cdef const unsigned char* p
    if not PyUnicode_IS_ASCII(s):
        return False
    k = PyUnicode_GET_LENGTH(s)
    if k == 0:
        return False
    p = <const unsigned char*>PyUnicode_AsUTF8(s)
    for i in range(k):
        if not _plain_char(p[i]):
            return False
    if p[0] == b'-' or p[0] == b'.' or p[0] == b'+' or p[0] == b'~' or (b'0' <= p[0] <= b'9'):
        return False  # numbers, '...', '-' forms: goyaml decides
    if _is_hint(p[0]) and k <= 5:
        return False
    return True


cdef bint _letters(str s):
    cdef Py_ssize_t k, i
    cdef const unsigned char* p
    if not PyUnicode_IS_ASCII(s):
        return False
    k = PyUnicode_GET_LENGTH(s)
    p = <const unsigned char*>PyUnicode_AsUTF8(s)
    for i in range(k):
        if not ((b'a' <= p[i] <= b'z') or (b'A' <= p[i] <= b'Z')):
            return False
    return True


cdef int _emit_str(_Out o, str v) except -1:
    if _word_like(v):
        o.word(PyUnicode_AsUTF8(v), PyUnicode_GET_LENGTH(v), PyUnicode_GET_LENGTH(v))
    else:
        o.pure(emit_scalar(v, o.column, o.whitespace, o.indention, o.indent))
    return 0


cdef int _emit_key(_Out o, str k) except -1:
    cdef str text
    # Keys over 128 bytes are not simple keys: they take the explicit form below.
    if PyUnicode_GET_LENGTH(k) <= 128 and _word_like(k):
        o.word(PyUnicode_AsUTF8(k), PyUnicode_GET_LENGTH(k), PyUnicode_GET_LENGTH(k))
        o.put_byte(b':')
        o.column += 1
        return 0
    text = _simple_key_text(k) if PyUnicode_IS_ASCII(k) else _simple_key_text(_clean_key(k))
    if text is not None:
        o.put_str(text)
        o.column += PyUnicode_GET_LENGTH(text)
        o.whitespace = False
        o.indention = False
        return 0
    o.pure(emit_complex_key(k if PyUnicode_IS_ASCII(k) else _clean_key(k), o.column, o.whitespace,
                            o.indention, o.indent))
    return 0


cdef str _clean_key(str k):
    return _clean_str(k)


cdef int _emit_node(_Out o, object v, bint mapping_ctx, int depth) except -1:
    cdef type t = type(v)
    cdef long long iv
    cdef int overflow = 0
    cdef Py_ssize_t saved
    cdef list keys
    cdef object k, item
    cdef bint indentless
    cdef char digits[24]
    cdef int nd
    cdef unsigned long long u
    cdef str text
    if t is str:
        return _emit_str(o, <str>v)
    if v is None:
        return o.word(b"null", 4, 4)
    if v is True:
        return o.word(b"true", 4, 4)
    if v is False:
        return o.word(b"false", 5, 5)
    if t is int:
        iv = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow == 0:
            # Decimal digits written backwards into a small buffer.
            u = <unsigned long long>(-(iv + 1)) + 1 if iv < 0 else <unsigned long long>iv
            nd = 24
            while True:
                nd -= 1
                digits[nd] = <char>(48 + u % 10)
                u //= 10
                if u == 0:
                    break
            if iv < 0:
                nd -= 1
                digits[nd] = b'-'
            return o.word(digits + nd, 24 - nd, 24 - nd)
        text = _scalar_text(v)
        return o.word(PyUnicode_AsUTF8(text), PyUnicode_GET_LENGTH(text), PyUnicode_GET_LENGTH(text))
    if t is float:
        text = _scalar_text(v)
        return o.word(PyUnicode_AsUTF8(text), PyUnicode_GET_LENGTH(text), PyUnicode_GET_LENGTH(text))
    if depth > ENCODE_DEPTH:
        raise _Whole()
    if t is dict:
        if not v:
            o.indicator(b'{', True, True, False)
            o.indicator(b'}', False, False, False)
            return 0
        keys = list(<dict>v)
        for k in keys:
            if type(k) is not str:
                raise _Whole()
        for k in keys:
            if not _letters(<str>k):
                keys = _sorted_keys(v)
                break
        else:
            keys.sort()
        saved = o.indent
        o.indent = 0 if o.indent < 0 else o.indent + 2
        for k in keys:
            o.write_indent()
            _emit_key(o, <str>k)
            _emit_node(o, (<dict>v)[k], True, depth + 1)
        o.indent = saved
        return 0
    if t is list or t is tuple:
        if not v:
            o.indicator(b'[', True, True, False)
            o.indicator(b']', False, False, False)
            return 0
        # A sequence that is a mapping value starts on the key's own indent.
        indentless = mapping_ctx and not o.indention
        saved = o.indent
        if o.indent < 0:
            o.indent = 0
        elif not indentless:
            o.indent += 2
        for item in v:
            o.write_indent()
            o.indicator(b'-', True, False, True)
            _emit_node(o, item, False, depth + 1)
        o.indent = saved
        return 0
    raise _Whole()


def yaml_encode_tree(tree):
    """go-yaml v2 Marshal of a JSON tree: the bytes ``goyaml.tree_to_yaml`` writes."""
    cdef _Out o = _Out()
    try:
        _emit_node(o, tree, False, 0)
    except _Whole:
        return tree_to_yaml(tree)
    o.write_indent()
    return bytebuf_take(&o.out, o.len)
