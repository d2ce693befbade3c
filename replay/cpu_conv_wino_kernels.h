/* cpu_conv_wino_kernels.h: the vector kernels of tta's Winograd F(2x2, 3x3) (cpu_conv_wino.c)
 * for one vector width: the channel product, the input, output and output-gradient transforms.
 * cpu_conv_wino.c includes it once per width, with these defined:
 *   WV            lanes of a vector, and the channel block of the maps (8: nChw8c, 16: nChw16c)
 *   WVEC          the vector type (__m256, __m512)
 *   WTARGET       the function attribute that compiles for it (CPU_TARGET_AVX2, CPU_TARGET_AVX512)
 *   WFN(name)     the name of this width's copy of a function (name##_avx2, name##_avx512)
 *   WROWS         rows of a register block of the product (2 x WROWS sums, 2 rows of B, 1
 *                 broadcast fit the ISA's vector registers: 16 for AVX2, 32 for AVX-512)
 *   WLOAD, WSTORE, WADD, WSUB, WMAX, WFMA(a, b, c) = a * b + c, WBCAST (a float's address),
 *   WZERO()       the operations, unaligned.
 * It undefines them at its end, for the next width.
 * The arithmetic is the same in both widths, lane by lane: a channel's result does not depend on
 * the width (each output channel is one lane of one vector, summed in the same order).
 * Why one body: the two copies differ only in width; a fix made in one place reaches both. */

/* c[R][NV*WV] = (or += with ADD) a x b over K: a's element (r, k) at a[r * ar + k * ak], b[K][NV*WV]
 * (rows ldb apart), c's rows ldc apart. R, NV and ADD are constants where it is inlined, so the
 * sums live in registers. The forward's products read a row-major V (ar = K, ak = 1); the weight
 * gradient's read V transposed (ar = 1, ak = channels) and add to partial sums. */
WTARGET static inline __attribute__((always_inline)) void
WFN(block)(float *restrict c, int ldc, const float *restrict a, int ar, int ak, const float *restrict b, int ldb,
           int K, const int R, const int NV, const int ADD) {
    WVEC acc[WROWS][2];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++) acc[r][v] = WZERO();
    for (int k = 0; k < K; k++) {
        WVEC b0 = WLOAD(b + (size_t)k * ldb), b1 = b0;
        if (NV == 2) b1 = WLOAD(b + (size_t)k * ldb + WV);
        for (int r = 0; r < R; r++) {
            WVEC x = WBCAST(a + (size_t)r * ar + (size_t)k * ak);
            acc[r][0] = WFMA(x, b0, acc[r][0]);
            if (NV == 2) acc[r][1] = WFMA(x, b1, acc[r][1]);
        }
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++) {
            float *cp = c + (size_t)r * ldc + v * WV;
            WSTORE(cp, ADD ? WADD(WLOAD(cp), acc[r][v]) : acc[r][v]);
        }
}

#define WINO_BLOCK_CASE(n, NV, ADD)                                                                  \
    case n: WFN(block)(c, ldc, a, ar, ak, b, ldb, K, n, NV, ADD); break;
#if WROWS == 12 /* the block heights above 6 */
#define WINO_BLOCK_TALL(NV, ADD)                                                                     \
    WINO_BLOCK_CASE(12, NV, ADD) WINO_BLOCK_CASE(11, NV, ADD) WINO_BLOCK_CASE(10, NV, ADD)           \
    WINO_BLOCK_CASE(9, NV, ADD) WINO_BLOCK_CASE(8, NV, ADD) WINO_BLOCK_CASE(7, NV, ADD)
#elif WROWS == 6
#define WINO_BLOCK_TALL(NV, ADD)
#else
#error "WROWS: 6 or 12"
#endif
#define WINO_BLOCK_ROWS(NV, ADD)                                                                     \
    switch (R) {                                                                                     \
        WINO_BLOCK_TALL(NV, ADD)                                                                     \
        WINO_BLOCK_CASE(6, NV, ADD) WINO_BLOCK_CASE(5, NV, ADD) WINO_BLOCK_CASE(4, NV, ADD)          \
        WINO_BLOCK_CASE(3, NV, ADD) WINO_BLOCK_CASE(2, NV, ADD)                                      \
    default: WFN(block)(c, ldc, a, ar, ak, b, ldb, K, 1, NV, ADD);                                   \
    }

/* C[rows][N] = A x B over K (add: C +=), A's element (r, k) at A[r * ar + k * ak], B[K][N];
 * N % WV == 0; blocks of at most WROWS rows (of even heights) by 2 WV columns, then WV. The forward and the data gradient:
 * M[T][N] = V[T][K] x U[K][N] for one of the 16 positions (ar = K, ak = 1). The weight gradient:
 * dU[C][N] += V[T][C]^T x dM[T][N], the sums over the tiles (ar = 1, ak = C, K = T, add). */
WTARGET static void WFN(product)(float *restrict C, const float *restrict A, int ar, int ak, const float *restrict B,
                                 int rows, int K, int N, int add) {
    const int ldb = N, ldc = N;
    for (int r0 = 0, left = (rows + WROWS - 1) / WROWS, R; r0 < rows; r0 += R, left--) {
        R = (rows - r0 + left - 1) / left; /* blocks of even height: 16 rows are 8 + 8, not 12 + 4 */
        const float *a = A + (size_t)r0 * ar;
        for (int j = 0; j < N; j += 2 * WV) {
            float *c = C + (size_t)r0 * N + j;
            const float *b = B + j;
            if (j + 2 * WV <= N && add) WINO_BLOCK_ROWS(2, 1)
            else if (j + 2 * WV <= N) WINO_BLOCK_ROWS(2, 0)
            else if (add) WINO_BLOCK_ROWS(1, 1)
            else WINO_BLOCK_ROWS(1, 0)
        }
    }
}
#undef WINO_BLOCK_ROWS
#undef WINO_BLOCK_TALL
#undef WINO_BLOCK_CASE

/* V[p][t][K] (positions ps floats apart) for the tiles of tile rows ty0 .. ty0+rows-1 of one
 * image x (K channels in blocks of WV, h x w), from tile t0 on: the 4x4 window of tile (ty, tx)
 * starts at row 2ty-1, column 2tx-1; outside the map it reads zeros (the padding). */
WTARGET static void WFN(input_transform)(float *restrict V, size_t ps, int t0, const float *restrict x, int K, int h,
                                         int w, int ty0, int rows) {
    const int tw = (w + 1) / 2;
    const WVEC zero = WZERO();
    for (int kb = 0; kb < K / WV; kb++) {
        const float *xb = x + (size_t)kb * h * w * WV;
        for (int r = 0; r < rows; r++) {
            const int y0 = 2 * (ty0 + r) - 1;
            for (int tx = 0; tx < tw; tx++) {
                const int x0 = 2 * tx - 1, t = t0 + r * tw + tx;
                WVEC d[4][4];
                if (y0 >= 0 && y0 + 3 < h && x0 >= 0 && x0 + 3 < w) { /* inside the map: no checks */
                    const float *xt = xb + ((size_t)y0 * w + x0) * WV;
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++) d[i][j] = WLOAD(xt + ((size_t)i * w + j) * WV);
                } else {
                    for (int i = 0; i < 4; i++) {
                        int y = y0 + i;
                        for (int j = 0; j < 4; j++) {
                            int xx = x0 + j;
                            d[i][j] = y >= 0 && y < h && xx >= 0 && xx < w ? WLOAD(xb + ((size_t)y * w + xx) * WV)
                                                                           : zero;
                        }
                    }
                }
                WVEC s[4][4]; /* B^T d */
                for (int j = 0; j < 4; j++) {
                    s[0][j] = WSUB(d[0][j], d[2][j]);
                    s[1][j] = WADD(d[1][j], d[2][j]);
                    s[2][j] = WSUB(d[2][j], d[1][j]);
                    s[3][j] = WSUB(d[1][j], d[3][j]);
                }
                float *v = V + (size_t)t * K + kb * WV;
                for (int i = 0; i < 4; i++) { /* (B^T d) B */
                    WSTORE(v + (i * 4 + 0) * ps, WSUB(s[i][0], s[i][2]));
                    WSTORE(v + (i * 4 + 1) * ps, WADD(s[i][1], s[i][2]));
                    WSTORE(v + (i * 4 + 2) * ps, WSUB(s[i][2], s[i][1]));
                    WSTORE(v + (i * 4 + 3) * ps, WSUB(s[i][1], s[i][3]));
                }
            }
        }
    }
}

/* y (one image, N channels in blocks of WV, h x w) of tile rows ty0 .. ty0+rows-1 from M[p][t][N]
 * (positions ps floats apart, from tile t0 on): A^T M A, plus the bias, then the ReLU; the parts
 * of a tile past the map's edge are not written. */
WTARGET static void WFN(output_transform)(float *restrict y, const float *restrict M, size_t ps, int t0,
                                          const float *bias, int relu, int N, int h, int w, int ty0, int rows) {
    const int tw = (w + 1) / 2;
    const WVEC zero = WZERO();
    for (int nb = 0; nb < N / WV; nb++) {
        float *yb = y + (size_t)nb * h * w * WV;
        const WVEC b = bias ? WLOAD(bias + nb * WV) : zero;
        for (int r = 0; r < rows; r++) {
            const int oy = 2 * (ty0 + r);
            for (int tx = 0; tx < tw; tx++) {
                const int ox = 2 * tx, t = t0 + r * tw + tx;
                const float *m = M + (size_t)t * N + nb * WV;
                WVEC s[2][4]; /* A^T M */
                for (int j = 0; j < 4; j++) {
                    WVEC m0 = WLOAD(m + (0 * 4 + j) * ps), m1 = WLOAD(m + (1 * 4 + j) * ps);
                    WVEC m2 = WLOAD(m + (2 * 4 + j) * ps), m3 = WLOAD(m + (3 * 4 + j) * ps);
                    s[0][j] = WADD(WADD(m0, m1), m2);
                    s[1][j] = WSUB(WSUB(m1, m2), m3);
                }
                for (int i = 0; i < 2 && oy + i < h; i++) { /* (A^T M) A */
                    WVEC o0 = WADD(WADD(WADD(s[i][0], s[i][1]), s[i][2]), b);
                    WVEC o1 = WADD(WSUB(WSUB(s[i][1], s[i][2]), s[i][3]), b);
                    if (relu) {
                        o0 = WMAX(o0, zero);
                        o1 = WMAX(o1, zero);
                    }
                    float *yr = yb + ((size_t)(oy + i) * w + ox) * WV;
                    WSTORE(yr, o0);
                    if (ox + 1 < w) WSTORE(yr + WV, o1);
                }
            }
        }
    }
}

/* dM[p][t][N] (positions ps floats apart, from tile t0 on) = A dY A^T for the output tiles of
 * tile rows ty0 .. ty0+rows-1 of one image's dout (N channels in blocks of WV, h x w), the adjoint
 * of output_transform: a tile's pixels past the map's edge have no gradient (zero). With bsum,
 * each channel's dout over those rows is added to bsum[N] (the bias gradient). */
WTARGET static void WFN(dout_transform)(float *restrict dM, size_t ps, int t0, const float *restrict dy, int N, int h,
                                        int w, int ty0, int rows, double *bsum) {
    const int tw = (w + 1) / 2;
    const WVEC zero = WZERO();
    for (int nb = 0; nb < N / WV; nb++) {
        const float *db = dy + (size_t)nb * h * w * WV;
        WVEC bacc = zero;
        for (int r = 0; r < rows; r++) {
            const int oy = 2 * (ty0 + r);
            for (int tx = 0; tx < tw; tx++) {
                const int ox = 2 * tx, t = t0 + r * tw + tx;
                WVEC g[2][2];
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++)
                        g[i][j] = oy + i < h && ox + j < w ? WLOAD(db + ((size_t)(oy + i) * w + ox + j) * WV) : zero;
                bacc = WADD(bacc, WADD(WADD(g[0][0], g[0][1]), WADD(g[1][0], g[1][1])));
                WVEC s[4][2] = {/* A dY */
                                {g[0][0], g[0][1]},
                                {WADD(g[0][0], g[1][0]), WADD(g[0][1], g[1][1])},
                                {WSUB(g[0][0], g[1][0]), WSUB(g[0][1], g[1][1])},
                                {WSUB(zero, g[1][0]), WSUB(zero, g[1][1])}};
                float *m = dM + (size_t)t * N + nb * WV;
                for (int i = 0; i < 4; i++) { /* (A dY) A^T */
                    WSTORE(m + (i * 4 + 0) * ps, s[i][0]);
                    WSTORE(m + (i * 4 + 1) * ps, WADD(s[i][0], s[i][1]));
                    WSTORE(m + (i * 4 + 2) * ps, WSUB(s[i][0], s[i][1]));
                    WSTORE(m + (i * 4 + 3) * ps, WSUB(zero, s[i][1]));
                }
            }
        }
        if (bsum) {
            float l[WV];
            WSTORE(l, bacc);
            for (int k = 0; k < WV; k++) bsum[nb * WV + k] += l[k];
        }
    }
}

#undef WV
#undef WVEC
#undef WTARGET
#undef WFN
#undef WROWS
#undef WLOAD
#undef WSTORE
#undef WADD
#undef WSUB
#undef WMAX
#undef WFMA
#undef WBCAST
#undef WZERO
