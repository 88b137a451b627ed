/* The scalar engine's run-time support, shared by the VM (_engine_vm.h, built into
 * revsrc._kernels) and by every program the native tier compiles (revsrc/native.py
 * pastes this file into each translation).
 *
 * Every operation reproduces CPython's float semantics bit for bit: the same libm
 * calls as the math module, CPython's own algorithms where it has them (float floor
 * division and modulo, float ** float, math.pow, math.hypot, math.atan2), and NumPy's
 * own float64 inner loops for np.* functions. Both are compiled with
 * -ffp-contract=off and without -ffast-math, so a*b + c stays two roundings.
 *
 * Ints and bools live in doubles. Integer-kind registers always hold exact integer
 * values (never -0.0); an integer operation whose exact result might not fit
 * (|r| >= 2**53) stops the run with RV_E_FALLBACK and the caller takes the Python path.
 *
 * Needs the RV_E_* error codes (from _engine_ops.py, emitted before this file).
 */
#ifndef REVSRC_ENGINE_RT_H
#define REVSRC_ENGINE_RT_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ----- NumPy's own float64 loops -----
 * A NumPy function on floats runs through the very inner loop NumPy runs for a
 * float64 scalar on this machine (looked up in ufunc->functions), so every path agrees
 * to the last bit whatever SIMD code NumPy dispatched to (AVX-512 exp and arcsin,
 * AVX2 tanh differ from libm by an ulp). The strides are 0, as NumPy passes them for
 * 0-d operands: some loops take another path for a scalar operand (np.power(x, 0.5)
 * is sqrt(x), so np.power(-0.0, 0.5) is -0.0 where the general path gives 0.0). */
typedef void (*rv_uloop_fn)(char **args, const intptr_t *dims, const intptr_t *steps,
                            void *data);

typedef struct {
    rv_uloop_fn fn;
    void *data;
} rv_uloop;

static inline double rv_ufunc1(const rv_uloop *u, double x)
{
    double out = 0.0;
    char *args[2];
    intptr_t n = 1;
    intptr_t steps[2] = {0, 0};
    args[0] = (char *)&x;
    args[1] = (char *)&out;
    u->fn(args, &n, steps, u->data);
    return out;
}

static inline double rv_ufunc2(const rv_uloop *u, double x, double y)
{
    double out = 0.0;
    char *args[3];
    intptr_t n = 1;
    intptr_t steps[3] = {0, 0, 0};
    args[0] = (char *)&x;
    args[1] = (char *)&y;
    args[2] = (char *)&out;
    u->fn(args, &n, steps, u->data);
    return out;
}

#define UFUNC1(u, x) rv_ufunc1(&uloops[(u)], (x))
#define UFUNC2(u, x, y) rv_ufunc2(&uloops[(u)], (x), (y))

/* ----- A run's state -----
 * Registers, the stacks of saved values, and where a paused run resumes. The VM and
 * a native program use the same state, so a run paused in one may resume in the
 * other. */
/* More stacks than the float and the int one: a derivative of a derivative saves on
 * the stacks of each level (revsrc/passes/reverse/stacks.py names them "f1", "i1",
 * "f1b"...), whose pushes and pops interleave with level 0's. The lowering numbers
 * them; each holds doubles (an int stack's values are exact integers there, as in the
 * registers). They start empty and unallocated (all zero), and grow as the main ones. */
#define RV_NAUX 16
typedef struct rv_aux {
    double *data;
    intptr_t size, cap;
} rv_aux;

typedef struct rv_state {
    double *regs;
    const int *code;              /* the VM's instructions */
    const rv_uloop *uloops;       /* the VM's table of NumPy loops */
    double *fdata;                /* float stack */
    intptr_t fsize, fcap;
    int64_t *idata;               /* int stack: branch decisions, trip counts */
    intptr_t isize, icap;
    unsigned long long iters;     /* loop iterations, for stats() */
    unsigned long long tick_mask; /* pause every tick_mask + 1 back edges */
    int resume;                   /* code offset to resume at; 0 starts a run */
    int err_arg;                  /* an error's argument (assert message index) */
    rv_aux aux[RV_NAUX];          /* the other stacks (zeroed: empty, unallocated) */
} rv_state;

/* Every other stack emptied for a new run; one a big run grew is given back. */
static inline void rv_aux_reset(rv_state *st)
{
    int k;
    for (k = 0; k < RV_NAUX; k++) {
        st->aux[k].size = 0;
        if (st->aux[k].cap > ((intptr_t)1 << 22)) {
            free(st->aux[k].data);
            st->aux[k].data = NULL;
            st->aux[k].cap = 0;
        }
    }
}

static inline void rv_aux_free(rv_state *st)
{
    int k;
    for (k = 0; k < RV_NAUX; k++) {
        free(st->aux[k].data);
        st->aux[k].data = NULL;
        st->aux[k].size = st->aux[k].cap = 0;
    }
}

typedef int (*rv_run_fn)(rv_state *);

/* ----- Stacks: growth, written once ----- */

/* A block of at least `need` items of `item` bytes holding `data`'s contents, or NULL
 * (then `data` and `*cap` are unchanged). Capacity doubles, so n pushes cost O(n). */
static inline void *rv_grow(void *data, intptr_t *cap, intptr_t need, size_t item)
{
    intptr_t c = 2 * *cap;
    void *p;
    if (c < need)
        c = need;
    p = realloc(data, (size_t)c * item);
    if (p != NULL)
        *cap = c;
    return p;
}

#define RV_RESERVE(data, size, cap, n, type)                                       \
    do {                                                                           \
        if ((size) + (n) > (cap)) {                                                \
            void *grown_ = rv_grow((data), &(cap), (size) + (n), sizeof(type));    \
            if (grown_ == NULL)                                                    \
                FAIL(RV_E_NOMEM);                                                  \
            (data) = (type *)grown_;                                               \
        }                                                                          \
    } while (0)
#define FRESERVE(n) RV_RESERVE(fdata, fsize, fcap, n, double)
#define IRESERVE(n) RV_RESERVE(idata, isize, icap, n, int64_t)
/* a push on / a pop from other stack k (k < RV_NAUX: the lowering checks) */
#define XPUSH(k, x)                                                                \
    do {                                                                           \
        rv_aux *s_ = &st->aux[(k)];                                                \
        RV_RESERVE(s_->data, s_->size, s_->cap, 1, double);                        \
        s_->data[s_->size++] = (x);                                                \
    } while (0)
#define XPOP(k, x)                                                                 \
    do {                                                                           \
        rv_aux *s_ = &st->aux[(k)];                                                \
        if (s_->size == 0)                                                         \
            FAIL(RV_E_POP);                                                        \
        (x) = s_->data[--s_->size];                                                \
    } while (0)

#define CHECK(call)                                                                \
    do {                                                                           \
        if ((err = (call)) != 0)                                                   \
            goto out;                                                              \
    } while (0)
#define FAIL(e)                                                                    \
    do {                                                                           \
        err = (e);                                                                 \
        goto out;                                                                  \
    } while (0)
#define DONE goto out
#define ITER (++iters)
#define ERRARG(k) (st->err_arg = (k))
#define M1FN(m) rv_m1_fn[(m)]
#define M1MODE(m) rv_m1_mode[(m)]

/* ----- CPython's float algorithms, in C ----- */

#define RV_TWO53 9007199254740992.0

static inline int rv_big(double x) { return !(fabs(x) < RV_TWO53); }

static inline int rv_odd_integer(double x) { return fmod(fabs(x), 2.0) == 1.0; }

/* float.__floordiv__: CPython's float_divmod quotient. */
static inline int rv_float_floordiv(double vx, double wx, double *out)
{
    double mod, div, fd;
    if (wx == 0.0)
        return RV_E_FFLOORDIV;
    mod = fmod(vx, wx);
    div = (vx - mod) / wx;
    if (mod) {
        if ((wx < 0) != (mod < 0))
            div -= 1.0;
    }
    if (div) {
        fd = floor(div);
        if (div - fd > 0.5)
            fd += 1.0;
    }
    else {
        fd = copysign(0.0, vx / wx);
    }
    *out = fd;
    return 0;
}

/* float.__mod__: the remainder takes the divisor's sign. */
static inline int rv_float_mod(double vx, double wx, double *out)
{
    double mod;
    if (wx == 0.0)
        return RV_E_FMOD;
    mod = fmod(vx, wx);
    if (mod) {
        if ((wx < 0) != (mod < 0))
            mod += wx;
    }
    else {
        mod = copysign(0.0, wx);
    }
    *out = mod;
    return 0;
}

/* int // int and int % int, floor semantics. */
static inline int rv_int_floordiv(double a, double b, double *out, int modulo)
{
    int64_t ia, ib, iq;
    if (b == 0.0)
        return modulo ? RV_E_IMOD : RV_E_IFLOORDIV;
    if (rv_big(a) || rv_big(b))
        return RV_E_FALLBACK;
    ia = (int64_t)a;
    ib = (int64_t)b;
    iq = ia / ib; /* truncates toward zero */
    if ((ia - iq * ib) != 0 && ((ia < 0) != (ib < 0)))
        iq -= 1;
    *out = modulo ? (double)(ia - iq * ib) : (double)iq;
    return 0;
}

/* float.__pow__ (``**``), with CPython's special cases before libm pow. */
static inline int rv_float_pow(double iv, double iw, double *out)
{
    int negate = 0;
    double ix;
    if (iw == 0.0) {
        *out = 1.0;
        return 0;
    }
    if (isnan(iv)) {
        *out = iv;
        return 0;
    }
    if (isnan(iw)) {
        *out = iv == 1.0 ? 1.0 : iw;
        return 0;
    }
    if (isinf(iw)) {
        iv = fabs(iv);
        if (iv == 1.0)
            *out = 1.0;
        else if ((iw > 0.0) == (iv > 1.0))
            *out = fabs(iw);
        else
            *out = 0.0;
        return 0;
    }
    if (isinf(iv)) {
        if (iw > 0.0)
            *out = rv_odd_integer(iw) ? iv : fabs(iv);
        else
            *out = rv_odd_integer(iw) ? copysign(0.0, iv) : 0.0;
        return 0;
    }
    if (iv == 0.0) {
        if (iw < 0.0)
            return RV_E_POW_ZERO;
        *out = rv_odd_integer(iw) ? iv : 0.0;
        return 0;
    }
    if (iv < 0.0) {
        if (iw != floor(iw))
            return RV_E_FALLBACK; /* Python returns a complex number */
        iv = -iv;
        negate = rv_odd_integer(iw);
    }
    if (iv == 1.0) {
        *out = negate ? -1.0 : 1.0;
        return 0;
    }
    errno = 0;
    ix = pow(iv, iw);
    if (errno == 0) {
        if (isinf(ix))
            return RV_E_POW_RANGE;
    }
    else if (errno == ERANGE && ix == 0.0) {
        errno = 0;
    }
    if (errno != 0)
        return errno == ERANGE ? RV_E_POW_RANGE : RV_E_DOMAIN;
    *out = negate ? -ix : ix;
    return 0;
}

/* int ** int: exact below 2**53; a negative exponent is float ** float. */
static inline int rv_int_pow(double a, double b, double *out)
{
    double v;
    if (b < 0.0)
        return rv_float_pow(a, b, out);
    v = pow(a, b);
    if (rv_big(v))
        return RV_E_FALLBACK;
    *out = v;
    return 0;
}

/* math.pow. */
static inline int rv_math_pow(double x, double y, double *out)
{
    double r;
    int odd_y;
    if (!isfinite(x) || !isfinite(y)) {
        if (isnan(x)) {
            r = y == 0.0 ? 1.0 : x;
        }
        else if (isnan(y)) {
            r = x == 1.0 ? 1.0 : y;
        }
        else if (isinf(x)) {
            odd_y = isfinite(y) && rv_odd_integer(y);
            if (y > 0.0)
                r = odd_y ? x : fabs(x);
            else if (y == 0.0)
                r = 1.0;
            else
                r = odd_y ? copysign(0.0, x) : 0.0;
        }
        else {
            if (fabs(x) == 1.0)
                r = 1.0;
            else if (y > 0.0 && fabs(x) > 1.0)
                r = y;
            else if (y < 0.0 && fabs(x) < 1.0)
                r = -y;
            else
                r = 0.0;
        }
        *out = r;
        return 0;
    }
    r = pow(x, y);
    if (isnan(r))
        return RV_E_DOMAIN;
    if (isinf(r))
        return x == 0.0 ? RV_E_DOMAIN : RV_E_RANGE;
    *out = r;
    return 0;
}

/* math.atan2 (CPython's m_atan2 special cases, then libm). */
static inline double rv_math_atan2(double y, double x)
{
    const double pi = 3.141592653589793;
    if (isnan(x) || isnan(y))
        return NAN;
    if (isinf(y)) {
        if (isinf(x)) {
            if (copysign(1.0, x) == 1.0)
                return copysign(0.25 * pi, y);
            return copysign(0.75 * pi, y);
        }
        return copysign(0.5 * pi, y);
    }
    if (isinf(x) || y == 0.0) {
        if (copysign(1.0, x) == 1.0)
            return copysign(0.0, y);
        return copysign(pi, y);
    }
    return atan2(y, x);
}

/* Veltkamp splitting: x == hi + lo exactly, each with at most 26 significant bits. */
static inline void rv_split(double x, double *hi, double *lo)
{
    double t = x * 134217729.0;
    *hi = t - (t - x);
    *lo = x - *hi;
}

/* Dekker's product: z + zz == x * y exactly. */
static inline void rv_two_prod(double x, double y, double *z, double *zz)
{
    double xh, xl, yh, yl, p, q;
    rv_split(x, &xh, &xl);
    rv_split(y, &yh, &yl);
    p = xh * yh;
    q = xh * yl + xl * yh;
    *z = p + q;
    *zz = p - *z + q + xl * yl;
}

/* The two-coordinate case of CPython's vector_norm: scaled squares summed in doubled
 * precision, then a square root with one differential correction. */
static inline double rv_norm2(double a, double b, double mx)
{
    double scale, x, h, csum = 1.0, frac1 = 0.0, frac2 = 0.0, p, pl, s;
    double v[2];
    int e, i;
    frexp(mx, &e);
    if (e < -1023) {
        return 2.2250738585072014e-308 * rv_norm2(a / 2.2250738585072014e-308,
                                                  b / 2.2250738585072014e-308,
                                                  mx / 2.2250738585072014e-308);
    }
    scale = ldexp(1.0, -e);
    v[0] = a;
    v[1] = b;
    for (i = 0; i < 2; i++) {
        x = v[i] * scale;
        rv_two_prod(x, x, &p, &pl);
        s = csum + p;
        frac2 += (csum - s) + p;
        csum = s;
        frac1 += pl;
    }
    h = sqrt(csum - 1.0 + (frac1 + frac2));
    rv_two_prod(-h, h, &p, &pl);
    s = csum + p;
    frac2 += (csum - s) + p;
    csum = s;
    frac1 += pl;
    x = csum - 1.0 + (frac1 + frac2);
    h += x / (2.0 * h);
    return h / scale;
}

/* math.hypot(x, y). */
static inline double rv_math_hypot(double x, double y)
{
    double a = fabs(x), b = fabs(y), mx = 0.0;
    if (a > mx)
        mx = a;
    if (b > mx)
        mx = b;
    if (isinf(mx))
        return mx;
    if (isnan(a) || isnan(b))
        return NAN;
    if (mx == 0.0)
        return mx;
    return rv_norm2(a, b, mx);
}

/* int(x) for a float: truncate; NaN and infinities raise as in Python. */
static inline int rv_to_int(double x, double *out)
{
    if (isnan(x))
        return RV_E_INT_NAN;
    if (isinf(x))
        return RV_E_INT_INF;
    *out = trunc(x) + 0.0; /* + 0.0: an int is never -0.0 */
    return 0;
}

/* float.__round__ without ndigits: half to even. */
static inline double rv_py_round(double x)
{
    double r = round(x);
    if (fabs(x - r) == 0.5)
        r = 2.0 * round(x / 2.0);
    return r;
}

#endif /* REVSRC_ENGINE_RT_H */
