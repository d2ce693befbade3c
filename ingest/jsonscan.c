/* jsonscan.c: in-place JSON validation, iteration and number conversion (see jsonscan.h).
 *
 * The validator is a recursive descent over the bytes with a byte-class table for the string
 * fast path (most of a log record is plain ASCII inside strings). Iteration runs over text
 * that was validated already, so it only skips (no second validation).
 */
#include "ingest/jsonscan.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Byte classes inside a JSON string: 0 plain, 1 quote, 2 backslash, 3 control (invalid),
 * 4 first byte of a multi-byte UTF-8 sequence (or an invalid byte, sorted out by utf8_len). */
static const uint8_t string_class[256] = {
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

static inline int is_ws(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
static inline int is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

const char *tta_json_skip_ws(const char *p, const char *end) {
    while (p < end && is_ws(*p)) p++;
    return p;
}

/* Length of the valid UTF-8 sequence at p (first byte >= 0x80), or 0 when it is invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

/* The first byte at or after p (before end) that is not plain string text: '"', '\\', a control
 * byte or a byte of a multi-byte UTF-8 sequence (string_class != 0). Sixteen bytes at a time
 * with SSE2 (every x86-64 has it): file paths and keys are most of a record-dense log's bytes. */
static inline const char *skip_plain(const char *p, const char *end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* Signed compare: bytes 0x00-0x1F and 0x80-0xFF are both "less than 0x20". */
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                    _mm_cmplt_epi8(v, space));
        unsigned mask = (unsigned)_mm_movemask_epi8(stop);
        if (mask) return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    while (p < end && string_class[(unsigned char)*p] == 0) p++;
    return p;
}

const char *tta_json_plain_prefix(const char *p, const char *end) { return skip_plain(p, end); }

/* p at the opening quote. Returns the byte after the closing quote or NULL (*err at fault). */
static const char *scan_string(const char *p, const char *end, uint8_t *plain, const char **err) {
    assert(p < end && *p == '"');
    p++;
    *plain = 1;
    for (;;) {
        p = skip_plain(p, end);
        if (p >= end) break;
        switch (string_class[(unsigned char)*p]) {
        case 1:
            return p + 1;
        case 2:
            *plain = 0;
            if (end - p < 2) goto fail;
            switch (p[1]) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                p += 2;
                break;
            case 'u':
                if (end - p < 6 || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5])) goto fail;
                p += 6;
                break;
            default:
                goto fail;
            }
            break;
        case 3:
            goto fail;
        default: {
            size_t n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
            if (!n) goto fail;
            p += n;
        }
        }
    }
fail:
    *err = p;
    return NULL;
}

/* Validates JSON number grammar at p; returns the end or NULL. */
static const char *scan_number(const char *p, const char *end) {
    if (p < end && *p == '-') p++;
    if (p >= end) return NULL;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && is_digit(*p)) p++;
    } else {
        return NULL;
    }
    if (p < end && *p == '.') {
        p++;
        const char *d = p;
        while (p < end && is_digit(*p)) p++;
        if (p == d) return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        const char *d = p;
        while (p < end && is_digit(*p)) p++;
        if (p == d) return NULL;
    }
    return p;
}

static const char *scan_value(const char *p, const char *end, tta_json_span *out, int depth, const char **err);

/* p at '{' or '['. */
static const char *scan_container(const char *p, const char *end, int depth, const char **err) {
    char close = *p == '{' ? '}' : ']';
    int is_object = *p == '{';
    if (depth >= TTA_JSON_MAX_DEPTH) {
        *err = p;
        return NULL;
    }
    p = tta_json_skip_ws(p + 1, end);
    if (p < end && *p == close) return p + 1;
    for (;;) {
        tta_json_span v;
        if (is_object) {
            p = tta_json_skip_ws(p, end);
            if (p >= end || *p != '"') {
                *err = p;
                return NULL;
            }
            uint8_t plain;
            p = scan_string(p, end, &plain, err);
            if (!p) return NULL;
            p = tta_json_skip_ws(p, end);
            if (p >= end || *p != ':') {
                *err = p;
                return NULL;
            }
            p++;
        }
        p = scan_value(p, end, &v, depth + 1, err);
        if (!p) return NULL;
        p = tta_json_skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == close) return p + 1;
        *err = p;
        return NULL;
    }
}

static const char *scan_literal(const char *p, const char *end, const char *lit, size_t n) {
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0 ? p + n : NULL;
}

static const char *scan_value(const char *p, const char *end, tta_json_span *out, int depth, const char **err) {
    p = tta_json_skip_ws(p, end);
    const char *start = p, *q = NULL;
    uint8_t type = TTA_JSON_NONE, plain = 0;
    if (p >= end) {
        *err = p;
        return NULL;
    }
    switch (*p) {
    case '"':
        q = scan_string(p, end, &plain, err);
        type = TTA_JSON_STRING;
        if (!q) return NULL;
        break;
    case '{':
    case '[':
        type = *p == '{' ? TTA_JSON_OBJECT : TTA_JSON_ARRAY;
        q = scan_container(p, end, depth, err);
        if (!q) return NULL;
        break;
    case 't':
        q = scan_literal(p, end, "true", 4);
        type = TTA_JSON_TRUE;
        break;
    case 'f':
        q = scan_literal(p, end, "false", 5);
        type = TTA_JSON_FALSE;
        break;
    case 'n':
        q = scan_literal(p, end, "null", 4);
        type = TTA_JSON_NULL;
        break;
    default:
        q = scan_number(p, end);
        type = TTA_JSON_NUMBER;
        break;
    }
    if (!q) {
        *err = p;
        return NULL;
    }
    out->p = start;
    out->n = (size_t)(q - start);
    out->type = type;
    out->plain = plain;
    return q;
}

const char *tta_json_value(const char *p, const char *end, tta_json_span *out, const char **error_at) {
    const char *err = p;
    tta_json_span v = {0};
    const char *q = scan_value(p, end, &v, 0, &err);
    if (!q) {
        if (error_at) *error_at = err;
        if (out) *out = (tta_json_span){0};
        return NULL;
    }
    if (out) *out = v;
    return q;
}

int tta_json_whole(const char *p, const char *end, tta_json_span *out) {
    const char *q = tta_json_value(p, end, out, NULL);
    return q && tta_json_skip_ws(q, end) == end;
}

/* Skips a value already validated: strings by their quotes, containers by bracket depth. */
static const char *skip_trusted(const char *p, const char *end, tta_json_span *out) {
    const char *start = p;
    uint8_t type, plain = 0;
    switch (*p) {
    case '"':
        type = TTA_JSON_STRING;
        plain = 1;
        p++;
        /* Validated text: the string closes at the first quote that is not escaped. */
        for (;;) {
            p = skip_plain(p, end);
            assert(p < end);
            if (*p == '"') {
                p++;
                break;
            }
            if (*p == '\\') {
                plain = 0;
                p += 2; /* the escaped byte (for \\uXXXX the hex digits follow as plain text) */
            } else {
                p++; /* a byte of a multi-byte UTF-8 sequence */
            }
        }
        break;
    case '{':
    case '[': {
        type = *p == '{' ? TTA_JSON_OBJECT : TTA_JSON_ARRAY;
        int depth = 0;
        for (;; p++) {
            char c = *p;
            if (c == '"') {
                tta_json_span s;
                p = skip_trusted(p, end, &s) - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    p++;
                    break;
                }
            }
        }
        break;
    }
    case 't': type = TTA_JSON_TRUE; p += 4; break;
    case 'f': type = TTA_JSON_FALSE; p += 5; break;
    case 'n': type = TTA_JSON_NULL; p += 4; break;
    default:
        type = TTA_JSON_NUMBER;
        while (p < end && (is_digit(*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E')) p++;
        break;
    }
    out->p = start;
    out->n = (size_t)(p - start);
    out->type = type;
    out->plain = plain;
    return p;
}

const char *tta_json_object_open(const char *p, const char *end, tta_json_iter *it) {
    p = tta_json_skip_ws(p, end);
    if (p >= end || *p != '{') return NULL;
    it->p = p + 1;
    it->end = end;
    return p;
}

int tta_json_object_next_key_checked(tta_json_iter *it, tta_json_span *key, const char **close) {
    const char *err = NULL;
    const char *p = tta_json_skip_ws(it->p, it->end);
    if (p < it->end && *p == '}') {
        *close = p + 1;
        return 0;
    }
    if (p >= it->end || *p != '"') goto fail;
    uint8_t plain;
    const char *q = scan_string(p, it->end, &plain, &err);
    if (!q) goto fail;
    *key = (tta_json_span){p, (size_t)(q - p), TTA_JSON_STRING, plain};
    p = tta_json_skip_ws(q, it->end);
    if (p >= it->end || *p != ':') goto fail;
    it->p = tta_json_skip_ws(p + 1, it->end);
    return 1;
fail:
    *close = NULL;
    return -1;
}

int tta_json_iter_value_end(tta_json_iter *it, const char *after) {
    const char *p = tta_json_skip_ws(after, it->end);
    if (p < it->end && *p == ',') {
        const char *n = tta_json_skip_ws(p + 1, it->end);
        if (n >= it->end || *n != '"') return -1; /* no trailing comma in JSON */
        it->p = n;
        return 1;
    }
    if (p < it->end && *p == '}') {
        it->p = p; /* the next call sees the close */
        return 1;
    }
    return -1;
}

int tta_json_iter_value_checked(tta_json_iter *it, tta_json_span *value) {
    const char *err = NULL;
    const char *p = scan_value(it->p, it->end, value, 1, &err);
    if (!p) return -1;
    return tta_json_iter_value_end(it, p);
}

int tta_json_iter_enter_object(const tta_json_iter *it, tta_json_iter *sub) {
    if (it->p >= it->end || *it->p != '{') return 0;
    sub->p = it->p + 1;
    sub->end = it->end;
    return 1;
}

int tta_json_object_next_checked(tta_json_iter *it, tta_json_span *key, tta_json_span *value, const char **close) {
    int rc = tta_json_object_next_key_checked(it, key, close);
    if (rc != 1) return rc;
    if (tta_json_iter_value_checked(it, value) != 1) {
        *close = NULL;
        return -1;
    }
    return 1;
}

void tta_json_iter_init(tta_json_iter *it, tta_json_span c) {
    assert(c.type == TTA_JSON_OBJECT || c.type == TTA_JSON_ARRAY);
    it->p = c.p + 1;
    it->end = c.p + c.n - 1; /* the closing bracket */
}

int tta_json_object_next(tta_json_iter *it, tta_json_span *key, tta_json_span *value) {
    const char *p = tta_json_skip_ws(it->p, it->end);
    if (p < it->end && *p == ',') p = tta_json_skip_ws(p + 1, it->end);
    if (p >= it->end) return 0;
    assert(*p == '"');
    p = skip_trusted(p, it->end, key);
    p = tta_json_skip_ws(p, it->end);
    assert(*p == ':');
    p = tta_json_skip_ws(p + 1, it->end);
    p = skip_trusted(p, it->end, value);
    it->p = p;
    return 1;
}

int tta_json_array_next(tta_json_iter *it, tta_json_span *value) {
    const char *p = tta_json_skip_ws(it->p, it->end);
    if (p < it->end && *p == ',') p = tta_json_skip_ws(p + 1, it->end);
    if (p >= it->end) return 0;
    it->p = skip_trusted(p, it->end, value);
    return 1;
}

int tta_json_string_is(tta_json_span s, const char *lit, size_t n) {
    if (s.type != TTA_JSON_STRING) return 0;
    if (s.plain) return s.n - 2 == n && memcmp(s.p + 1, lit, n) == 0;
    buf b = {0};
    tta_json_string_decode(s, &b);
    int eq = b.len == n && memcmp(buf_str(&b), lit, n) == 0;
    buf_free(&b);
    return eq;
}

int tta_json_find(tta_json_span object, const char *key, tta_json_span *value) {
    *value = (tta_json_span){0};
    if (object.type != TTA_JSON_OBJECT) return 0;
    size_t n = strlen(key);
    tta_json_iter it;
    tta_json_span k, v;
    tta_json_iter_init(&it, object);
    while (tta_json_object_next(&it, &k, &v)) {
        if (tta_json_string_is(k, key, n)) {
            *value = v;
            return 1;
        }
    }
    return 0;
}

/* Exact powers of ten: products and quotients with these are correctly rounded. */
static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The value of the JSON number p[0..n) (its grammar already checked). */
static int parse_valid_number(const char *p, size_t n, double *out) {
    const char *s = p, *end = p + n;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    uint64_t mant = 0;
    int digits = 0, exp10 = 0, exact = 1, frac = 0;
    for (; s < end; s++) {
        char c = *s;
        if (c == '.') {
            frac = 1;
            continue;
        }
        if (c == 'e' || c == 'E') break;
        int d = c - '0';
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)d;
            if (mant) digits++;
            if (frac) exp10--;
        } else {
            if (!frac) exp10++;
            if (d) exact = 0;
        }
    }
    if (s < end) { /* exponent */
        s++;
        int eneg = 0;
        if (*s == '+' || *s == '-') eneg = *s++ == '-';
        int e = 0;
        for (; s < end; s++)
            if (e < 100000) e = e * 10 + (*s - '0');
        exp10 += eneg ? -e : e;
    }
    if (exact && mant <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant;
        v = exp10 >= 0 ? v * exact_pow10[exp10] : v / exact_pow10[-exp10];
        *out = neg ? -v : v;
        return 1;
    }
    /* Rare: long mantissas and large exponents go through strtod on a terminated copy. */
    char small[128];
    char *copy = n < sizeof small ? small : malloc(n + 1);
    if (!copy) return 0;
    memcpy(copy, p, n);
    copy[n] = '\0';
    *out = strtod(copy, NULL);
    if (copy != small) free(copy);
    return 1;
}

int tta_json_parse_number(const char *p, size_t n, double *out) {
    if (scan_number(p, p + n) != p + n) return 0;
    return parse_valid_number(p, n, out);
}

int tta_json_span_number(tta_json_span s, double *out, int *percent) {
    if (percent) *percent = 0;
    if (s.type == TTA_JSON_NUMBER) return parse_valid_number(s.p, s.n, out); /* the scanner checked it */
    if (s.type != TTA_JSON_STRING || !s.plain) return 0;
    const char *p = s.p + 1, *end = s.p + s.n - 1;
    while (p < end && *p == ' ') p++;
    while (end > p && end[-1] == ' ') end--;
    int pct = 0;
    if (end > p && end[-1] == '%') {
        pct = 1;
        end--;
        while (end > p && end[-1] == ' ') end--;
    }
    if (p < end && *p == '+') p++;
    if (!tta_json_parse_number(p, (size_t)(end - p), out)) return 0;
    if (percent) *percent = pct;
    return 1;
}

/* Appends code point cp as UTF-8. */
static void put_utf8(buf *b, uint32_t cp) {
    char t[4];
    if (cp < 0x80) {
        buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        t[0] = (char)(0xC0 | (cp >> 6));
        t[1] = (char)(0x80 | (cp & 0x3F));
        buf_append(b, t, 2);
    } else if (cp < 0x10000) {
        t[0] = (char)(0xE0 | (cp >> 12));
        t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[2] = (char)(0x80 | (cp & 0x3F));
        buf_append(b, t, 3);
    } else {
        t[0] = (char)(0xF0 | (cp >> 18));
        t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[3] = (char)(0x80 | (cp & 0x3F));
        buf_append(b, t, 4);
    }
}

static uint32_t hex4(const char *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (uint32_t)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

void tta_json_string_decode(tta_json_span s, buf *b) {
    assert(s.type == TTA_JSON_STRING);
    const char *p = s.p + 1, *end = s.p + s.n - 1;
    if (s.plain) {
        buf_append(b, p, (size_t)(end - p));
        return;
    }
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) {
            buf_append(b, p, (size_t)(end - p));
            break;
        }
        buf_append(b, p, (size_t)(bs - p));
        char c = bs[1];
        p = bs + 2;
        switch (c) {
        case 'b': buf_putc(b, '\b'); break;
        case 'f': buf_putc(b, '\f'); break;
        case 'n': buf_putc(b, '\n'); break;
        case 'r': buf_putc(b, '\r'); break;
        case 't': buf_putc(b, '\t'); break;
        case 'u': {
            uint32_t cp = hex4(p);
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                uint32_t lo = hex4(p + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate */
            put_utf8(b, cp);
            break;
        }
        default: buf_putc(b, c); break; /* '"', '\\', '/' */
        }
    }
}

size_t tta_count_newlines(const char *p, size_t n) {
    size_t count = 0;
    const char *end = p + n;
#ifdef __SSE2__
    /* cmpeq gives -1 per '\n'; subtracting accumulates counts per byte lane (at most 255
     * rounds), psadbw sums the lanes. */
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (end - p >= 16) {
        __m128i acc = zero;
        int rounds = 0;
        while (end - p >= 16 && rounds < 255) {
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
            p += 16;
            rounds++;
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        count += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    while (p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (!q) break;
        count++;
        p = q + 1;
    }
    return count;
}

const char *tta_find_triple_colon(const char *p, const char *end) {
#ifdef __SSE2__
    const __m128i c = _mm_set1_epi8(':');
    while (end - p >= 18) {
        __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), c);
        __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 1)), c);
        __m128i d = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 2)), c);
        int m = _mm_movemask_epi8(_mm_and_si128(_mm_and_si128(a, b), d));
        if (m) return p + __builtin_ctz((unsigned)m);
        p += 16;
    }
#endif
    for (; end - p >= 3; p++)
        if (p[0] == ':' && p[1] == ':' && p[2] == ':') return p;
    return NULL;
}
