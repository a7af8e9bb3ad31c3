# cython: language_level=3
"""64-byte block classification of JSON text into bit masks, shared by the JSON frame scan
(``_json.pyx``) and the GVK sniff (``_wire.pyx``) (inline C only: no module).

Bit j of a mask stands for byte j of the block. A string's extent comes from the quote
bits by a prefix xor (bit j set: an odd number of quotes at or before j), so the inside of
strings is known without walking them.
"""
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define KC_HAVE_AVX2_TARGET 1
    #else
    #define KC_HAVE_AVX2_TARGET 0
    #endif

    /* Bit j of the result: the xor of bits 0..j of x. */
    static inline uint64_t kc_prefix_xor(uint64_t x) {
        x ^= x << 1; x ^= x << 2; x ^= x << 4; x ^= x << 8; x ^= x << 16; x ^= x << 32;
        return x;
    }

    /* The classes of one 64-byte block. q: '"'; bs: '\\'; op: { } [ ] : , (the SIMD
       classifiers also set it for the control bytes 0x0C and 0x1A, which lo always
       flags); ws: space, tab, newline, carriage return; lo: bytes below 0x20 or from
       0x80 (a signed compare). */
    typedef struct { uint64_t q, bs, op, ws, lo; } kc_blk;

    /* Per-byte classes for the portable classifier: 1 q, 2 bs, 4 op, 8 ws, 16 lo. */
    static unsigned char kc_blk_tab[256];
    static int kc_blk_tab_ready = 0;

    static inline void kc_blk_tab_init(void) {
        int c;
        if (kc_blk_tab_ready) return;
        for (c = 0; c < 256; c++) {
            unsigned char t = 0;
            if (c == 0x22) t |= 1;
            if (c == 0x5C) t |= 2;
            if (c == 0x7B || c == 0x7D || c == 0x5B || c == 0x5D || c == 0x3A || c == 0x2C) t |= 4;
            if (c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D) t |= 8;
            if (c < 0x20 || c >= 0x80) t |= 16;
            kc_blk_tab[c] = t;
        }
        kc_blk_tab_ready = 1;
    }

    /* Portable: one table lookup per byte (platforms without SSE2, and the tail of a
       text shorter than a block, padded by the caller). */
    static inline void kc_classify64_scalar(const unsigned char* b, kc_blk* o) {
        uint64_t q = 0, bs = 0, op = 0, ws = 0, lo = 0;
        int j;
        for (j = 0; j < 64; j++) {
            unsigned t = kc_blk_tab[b[j]];
            q |= (uint64_t)(t & 1) << j;
            bs |= (uint64_t)((t >> 1) & 1) << j;
            op |= (uint64_t)((t >> 2) & 1) << j;
            ws |= (uint64_t)((t >> 3) & 1) << j;
            lo |= (uint64_t)((t >> 4) & 1) << j;
        }
        o->q = q; o->bs = bs; o->op = op; o->ws = ws; o->lo = lo;
    }

    #if defined(__SSE2__)
    static inline uint64_t kc_mm16(__m128i x) { return (uint64_t)(unsigned)_mm_movemask_epi8(x); }

    /* Quotes, backslashes and brackets ({ [ and } ] alike) of 16 bytes (the frame scan
       needs only these). */
    static inline uint64_t kc_mask16(__m128i v, __m128i q, __m128i bs, __m128i o, __m128i c,
                                     uint64_t* bsm, uint64_t* brm) {
        __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));  /* [ -> {, ] -> } */
        *bsm = kc_mm16(_mm_cmpeq_epi8(v, bs));
        *brm = kc_mm16(_mm_or_si128(_mm_cmpeq_epi8(low, o), _mm_cmpeq_epi8(low, c)));
        return kc_mm16(_mm_cmpeq_epi8(v, q));
    }

    static inline void kc_classify64_sse2(const unsigned char* b, kc_blk* o) {
        const __m128i q = _mm_set1_epi8(0x22), bsl = _mm_set1_epi8(0x5C);
        const __m128i ob = _mm_set1_epi8(0x7B), cb = _mm_set1_epi8(0x7D);
        const __m128i co = _mm_set1_epi8(0x3A), cm = _mm_set1_epi8(0x2C);
        const __m128i sp = _mm_set1_epi8(0x20), nl = _mm_set1_epi8(0x0A);
        const __m128i tb = _mm_set1_epi8(0x09), cr = _mm_set1_epi8(0x0D);
        uint64_t qm = 0, bsm = 0, opm = 0, wsm = 0, lom = 0, b1, b2;
        int k;
        for (k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i*)(b + 16 * k));
            __m128i punct = _mm_or_si128(_mm_cmpeq_epi8(v, co), _mm_cmpeq_epi8(v, cm));
            __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                      _mm_or_si128(_mm_cmpeq_epi8(v, tb), _mm_cmpeq_epi8(v, cr)));
            qm |= kc_mask16(v, q, bsl, ob, cb, &b1, &b2) << (16 * k);
            bsm |= b1 << (16 * k);
            opm |= (b2 | kc_mm16(punct)) << (16 * k);
            wsm |= kc_mm16(ws) << (16 * k);
            lom |= kc_mm16(_mm_cmplt_epi8(v, sp)) << (16 * k);
        }
        o->q = qm; o->bs = bsm; o->op = opm; o->ws = wsm; o->lo = lom;
    }
    #endif

    #if KC_HAVE_AVX2_TARGET
    /* Whitespace and structural bytes by a nibble table (vpshufb looks up the low four
       bits; a byte from 0x80 reads 0): a byte is whitespace when the table holds the byte
       itself, structural when it holds the byte with bit 0x20 set (so [ and ] share the
       rows of { and }; 0x0C and 0x1A match too and are control bytes). */
    __attribute__((target("avx2"))) static inline void kc_classify64_avx2(const unsigned char* b, kc_blk* o) {
        const __m256i wst = _mm256_setr_epi8(
            0x20, -128, -128, -128, -128, -128, -128, -128, -128, 0x09, 0x0A, -128, -128, 0x0D, -128, -128,
            0x20, -128, -128, -128, -128, -128, -128, -128, -128, 0x09, 0x0A, -128, -128, 0x0D, -128, -128);
        const __m256i opt = _mm256_setr_epi8(
            -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 0x3A, 0x7B, 0x2C, 0x7D, -128, -128,
            -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 0x3A, 0x7B, 0x2C, 0x7D, -128, -128);
        const __m256i q = _mm256_set1_epi8(0x22), bsl = _mm256_set1_epi8(0x5C);
        const __m256i sp = _mm256_set1_epi8(0x20);
        /* Two explicit halves: with a loop gcc kept the masks in memory. */
        const __m256i v0 = _mm256_loadu_si256((const __m256i*)b);
        const __m256i v1 = _mm256_loadu_si256((const __m256i*)(b + 32));
    #define KC_MASK64(EXPR0, EXPR1) \\
        ((uint64_t)(uint32_t)_mm256_movemask_epi8(EXPR0) | ((uint64_t)(uint32_t)_mm256_movemask_epi8(EXPR1) << 32))
        o->q = KC_MASK64(_mm256_cmpeq_epi8(v0, q), _mm256_cmpeq_epi8(v1, q));
        o->bs = KC_MASK64(_mm256_cmpeq_epi8(v0, bsl), _mm256_cmpeq_epi8(v1, bsl));
        o->op = KC_MASK64(_mm256_cmpeq_epi8(_mm256_or_si256(v0, sp), _mm256_shuffle_epi8(opt, v0)),
                          _mm256_cmpeq_epi8(_mm256_or_si256(v1, sp), _mm256_shuffle_epi8(opt, v1)));
        o->ws = KC_MASK64(_mm256_cmpeq_epi8(v0, _mm256_shuffle_epi8(wst, v0)),
                          _mm256_cmpeq_epi8(v1, _mm256_shuffle_epi8(wst, v1)));
        o->lo = KC_MASK64(_mm256_cmpgt_epi8(sp, v0), _mm256_cmpgt_epi8(sp, v1));
    #undef KC_MASK64
    }
    #endif
    """
    uint64_t kc_prefix_xor(uint64_t x) noexcept nogil
    void kc_blk_tab_init() noexcept nogil
