/* layers_ref.c: plain C reference forward/backward of every layer (see engine.h).
 *
 * These loops are the specification that every backend is tested against, and their double
 * instances are what the finite-difference gradient checks differentiate. Clarity over speed:
 * no blocking, no threads. The file includes itself twice to instantiate every function for
 * T = float (suffix _f) and T = double (suffix _d) from one body, so the code that is
 * gradient-checked in double is the same code that runs in float.
 */
#ifndef REF_BODY

#include <assert.h>
#include <math.h>
#include <string.h>

#include "replay/engine.h"

#define REF_BODY 1
#define T float
#define FN(name) name##_f
#include "layers_ref.c"
#undef T
#undef FN
#define T double
#define FN(name) name##_d
#include "layers_ref.c"
#undef T
#undef FN

#else /* REF_BODY: the instantiated body */

void FN(ref_conv_forward)(T *out, const T *inp, const T *w, const T *b, int B, int C, int H,
                          int W, int OC, int K, int St, int P, int OH, int OW) {
    assert(OH == (H + 2 * P - K) / St + 1 && OW == (W + 2 * P - K) / St + 1);
    for (int n = 0; n < B; n++) {
        for (int o = 0; o < OC; o++) {
            T *outp = out + ((size_t)n * OC + o) * OH * OW;
            for (int oh = 0; oh < OH; oh++) {
                for (int ow = 0; ow < OW; ow++) {
                    T acc = b ? b[o] : 0;
                    for (int c = 0; c < C; c++) {
                        const T *ip = inp + ((size_t)n * C + c) * H * W;
                        const T *wp = w + ((size_t)o * C + c) * K * K;
                        for (int kh = 0; kh < K; kh++) {
                            int ih = oh * St - P + kh;
                            if (ih < 0 || ih >= H) continue;
                            for (int kw = 0; kw < K; kw++) {
                                int iw = ow * St - P + kw;
                                if (iw < 0 || iw >= W) continue;
                                acc += ip[ih * W + iw] * wp[kh * K + kw];
                            }
                        }
                    }
                    outp[oh * OW + ow] = acc;
                }
            }
        }
    }
}

void FN(ref_conv_backward)(T *dinp, T *dw, T *db, const T *dout, const T *inp, const T *w,
                           int B, int C, int H, int W, int OC, int K, int St, int P, int OH,
                           int OW) {
    if (dinp) memset(dinp, 0, sizeof(T) * (size_t)B * C * H * W);
    memset(dw, 0, sizeof(T) * (size_t)OC * C * K * K);
    if (db) memset(db, 0, sizeof(T) * (size_t)OC);
    for (int n = 0; n < B; n++) {
        for (int o = 0; o < OC; o++) {
            const T *dop = dout + ((size_t)n * OC + o) * OH * OW;
            for (int oh = 0; oh < OH; oh++) {
                for (int ow = 0; ow < OW; ow++) {
                    T g = dop[oh * OW + ow];
                    if (db) db[o] += g;
                    for (int c = 0; c < C; c++) {
                        size_t ioff = ((size_t)n * C + c) * H * W;
                        size_t woff = ((size_t)o * C + c) * K * K;
                        for (int kh = 0; kh < K; kh++) {
                            int ih = oh * St - P + kh;
                            if (ih < 0 || ih >= H) continue;
                            for (int kw = 0; kw < K; kw++) {
                                int iw = ow * St - P + kw;
                                if (iw < 0 || iw >= W) continue;
                                dw[woff + kh * K + kw] += g * inp[ioff + ih * W + iw];
                                if (dinp) dinp[ioff + ih * W + iw] += g * w[woff + kh * K + kw];
                            }
                        }
                    }
                }
            }
        }
    }
}

void FN(ref_bn_forward)(T *out, T *mean, T *rstd, const T *inp, const T *gamma, const T *beta,
                        T *run_mean, T *run_var, int B, int C, int HW, T eps, T momentum,
                        int train) {
    size_t N = (size_t)B * HW;
    for (int c = 0; c < C; c++) {
        T m, rs;
        if (train) {
            /* Two passes in double-or-better precision: the variance of post-conv features is
             * small next to their mean, and a one-pass E[x^2]-E[x]^2 loses it in float. */
            double s = 0;
            for (int n = 0; n < B; n++)
                for (int i = 0; i < HW; i++) s += inp[((size_t)n * C + c) * HW + i];
            double mu = s / (double)N;
            double v = 0;
            for (int n = 0; n < B; n++)
                for (int i = 0; i < HW; i++) {
                    double d = inp[((size_t)n * C + c) * HW + i] - mu;
                    v += d * d;
                }
            double var = v / (double)N;
            m = (T)mu;
            rs = (T)(1.0 / sqrt(var + (double)eps));
            if (mean) mean[c] = m;
            if (rstd) rstd[c] = rs;
            if (run_mean && run_var) {
                double unbiased = N > 1 ? var * (double)N / (double)(N - 1) : var;
                run_mean[c] = (T)((1.0 - momentum) * run_mean[c] + momentum * mu);
                run_var[c] = (T)((1.0 - momentum) * run_var[c] + momentum * unbiased);
            }
        } else {
            m = run_mean[c];
            rs = (T)(1.0 / sqrt((double)run_var[c] + (double)eps));
        }
        T g = gamma ? gamma[c] : 1, bb = beta ? beta[c] : 0;
        for (int n = 0; n < B; n++) {
            const T *ip = inp + ((size_t)n * C + c) * HW;
            T *op = out + ((size_t)n * C + c) * HW;
            for (int i = 0; i < HW; i++) op[i] = (ip[i] - m) * rs * g + bb;
        }
    }
}

void FN(ref_bn_backward)(T *dinp, T *dgamma, T *dbeta, const T *dout, const T *inp,
                         const T *gamma, const T *mean, const T *rstd, int B, int C, int HW) {
    /* With xhat = (x - mean) * rstd and y = gamma * xhat + beta:
     * dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)). */
    size_t N = (size_t)B * HW;
    for (int c = 0; c < C; c++) {
        double sdy = 0, sdyx = 0;
        for (int n = 0; n < B; n++) {
            size_t off = ((size_t)n * C + c) * HW;
            for (int i = 0; i < HW; i++) {
                double xh = ((double)inp[off + i] - mean[c]) * rstd[c];
                sdy += dout[off + i];
                sdyx += dout[off + i] * xh;
            }
        }
        if (dgamma) dgamma[c] = (T)sdyx;
        if (dbeta) dbeta[c] = (T)sdy;
        if (!dinp) continue;
        T g = gamma ? gamma[c] : 1;
        double mdy = sdy / (double)N, mdyx = sdyx / (double)N;
        for (int n = 0; n < B; n++) {
            size_t off = ((size_t)n * C + c) * HW;
            for (int i = 0; i < HW; i++) {
                double xh = ((double)inp[off + i] - mean[c]) * rstd[c];
                dinp[off + i] = (T)(g * rstd[c] * (dout[off + i] - mdy - xh * mdyx));
            }
        }
    }
}

void FN(ref_relu_forward)(T *out, const T *inp, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = inp[i] > 0 ? inp[i] : 0;
}

void FN(ref_relu_backward)(T *dinp, const T *dout, const T *out, size_t n) {
    for (size_t i = 0; i < n; i++) dinp[i] = out[i] > 0 ? dout[i] : 0;
}

void FN(ref_maxpool_forward)(T *out, const T *inp, int B, int C, int H, int W, int K, int St,
                             int P, int OH, int OW) {
    assert(OH == (H + 2 * P - K) / St + 1 && OW == (W + 2 * P - K) / St + 1);
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        const T *ip = inp + nc * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                T m = -INFINITY;
                for (int kh = 0; kh < K; kh++) {
                    int ih = oh * St - P + kh;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = 0; kw < K; kw++) {
                        int iw = ow * St - P + kw;
                        if (iw < 0 || iw >= W) continue;
                        if (ip[ih * W + iw] > m) m = ip[ih * W + iw];
                    }
                }
                out[nc * OH * OW + oh * OW + ow] = m;
            }
    }
}

void FN(ref_maxpool_backward)(T *dinp, const T *dout, const T *inp, int B, int C, int H, int W,
                              int K, int St, int P, int OH, int OW) {
    memset(dinp, 0, sizeof(T) * (size_t)B * C * H * W);
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        const T *ip = inp + nc * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                T m = -INFINITY;
                int arg = -1;
                for (int kh = 0; kh < K; kh++) {
                    int ih = oh * St - P + kh;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = 0; kw < K; kw++) {
                        int iw = ow * St - P + kw;
                        if (iw < 0 || iw >= W) continue;
                        if (ip[ih * W + iw] > m || arg < 0) {
                            m = ip[ih * W + iw];
                            arg = ih * W + iw;
                        }
                    }
                }
                assert(arg >= 0);
                dinp[nc * H * W + arg] += dout[nc * OH * OW + oh * OW + ow];
            }
    }
}

void FN(ref_avgpool_forward)(T *out, const T *inp, int B, int C, int H, int W, int K, int St,
                             int P, int OH, int OW) {
    T inv = (T)1 / (T)(K * K); /* count_include_pad = True */
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        const T *ip = inp + nc * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                T s = 0;
                for (int kh = 0; kh < K; kh++) {
                    int ih = oh * St - P + kh;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = 0; kw < K; kw++) {
                        int iw = ow * St - P + kw;
                        if (iw < 0 || iw >= W) continue;
                        s += ip[ih * W + iw];
                    }
                }
                out[nc * OH * OW + oh * OW + ow] = s * inv;
            }
    }
}

void FN(ref_avgpool_backward)(T *dinp, const T *dout, int B, int C, int H, int W, int K, int St,
                              int P, int OH, int OW) {
    T inv = (T)1 / (T)(K * K);
    memset(dinp, 0, sizeof(T) * (size_t)B * C * H * W);
    for (size_t nc = 0; nc < (size_t)B * C; nc++)
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                T g = dout[nc * OH * OW + oh * OW + ow] * inv;
                for (int kh = 0; kh < K; kh++) {
                    int ih = oh * St - P + kh;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = 0; kw < K; kw++) {
                        int iw = ow * St - P + kw;
                        if (iw < 0 || iw >= W) continue;
                        dinp[nc * H * W + ih * W + iw] += g;
                    }
                }
            }
}

void FN(ref_gap_forward)(T *out, const T *inp, int B, int C, int HW) {
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        T s = 0;
        for (int i = 0; i < HW; i++) s += inp[nc * HW + i];
        out[nc] = s / (T)HW;
    }
}

void FN(ref_gap_backward)(T *dinp, const T *dout, int B, int C, int HW) {
    for (size_t nc = 0; nc < (size_t)B * C; nc++)
        for (int i = 0; i < HW; i++) dinp[nc * HW + i] = dout[nc] / (T)HW;
}

void FN(ref_gmp_forward)(T *out, const T *inp, int B, int C, int HW) {
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        T m = inp[nc * HW];
        for (int i = 1; i < HW; i++)
            if (inp[nc * HW + i] > m) m = inp[nc * HW + i];
        out[nc] = m;
    }
}

void FN(ref_gmp_backward)(T *dinp, const T *dout, const T *inp, int B, int C, int HW) {
    for (size_t nc = 0; nc < (size_t)B * C; nc++) {
        int arg = 0;
        for (int i = 1; i < HW; i++)
            if (inp[nc * HW + i] > inp[nc * HW + arg]) arg = i;
        for (int i = 0; i < HW; i++) dinp[nc * HW + i] = i == arg ? dout[nc] : 0;
    }
}

void FN(ref_linear_forward)(T *out, const T *inp, const T *w, const T *b, int B, int In, int O) {
    for (int n = 0; n < B; n++)
        for (int o = 0; o < O; o++) {
            T acc = b ? b[o] : 0;
            for (int i = 0; i < In; i++) acc += inp[(size_t)n * In + i] * w[(size_t)o * In + i];
            out[(size_t)n * O + o] = acc;
        }
}

void FN(ref_linear_backward)(T *dinp, T *dw, T *db, const T *dout, const T *inp, const T *w,
                             int B, int In, int O) {
    if (dinp) {
        for (int n = 0; n < B; n++)
            for (int i = 0; i < In; i++) {
                T acc = 0;
                for (int o = 0; o < O; o++) acc += dout[(size_t)n * O + o] * w[(size_t)o * In + i];
                dinp[(size_t)n * In + i] = acc;
            }
    }
    for (int o = 0; o < O; o++) {
        for (int i = 0; i < In; i++) {
            T acc = 0;
            for (int n = 0; n < B; n++) acc += dout[(size_t)n * O + o] * inp[(size_t)n * In + i];
            dw[(size_t)o * In + i] = acc;
        }
        if (db) {
            T acc = 0;
            for (int n = 0; n < B; n++) acc += dout[(size_t)n * O + o];
            db[o] = acc;
        }
    }
}

void FN(ref_add_forward)(T *out, const T *a, const T *b, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void FN(ref_scale_forward)(T *out, const T *inp, T factor, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = inp[i] * factor;
}

void FN(ref_dropout_forward)(T *out, const T *inp, size_t n, float p, uint64_t seed,
                             uint64_t step) {
    T scale = p < 1 ? (T)1 / ((T)1 - (T)p) : 0;
    for (size_t i = 0; i < n; i++) out[i] = tta_dropout_keep(seed, step, i, p) ? inp[i] * scale : 0;
}

void FN(ref_dropout_backward)(T *dinp, const T *dout, size_t n, float p, uint64_t seed,
                              uint64_t step) {
    FN(ref_dropout_forward)(dinp, dout, n, p, seed, step); /* the same mask and scale */
}

void FN(ref_shortcut_forward)(T *out, const T *inp, int B, int C, int H, int W, int OC, int St,
                              int pad_front, int OH, int OW) {
    assert(pad_front >= 0 && pad_front + C <= OC);
    memset(out, 0, sizeof(T) * (size_t)B * OC * OH * OW);
    for (int n = 0; n < B; n++)
        for (int c = 0; c < C; c++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++)
                    out[(((size_t)n * OC + c + pad_front) * OH + oh) * OW + ow] =
                        inp[(((size_t)n * C + c) * H + oh * St) * W + ow * St];
}

void FN(ref_shortcut_backward)(T *dinp, const T *dout, int B, int C, int H, int W, int OC, int St,
                               int pad_front, int OH, int OW) {
    memset(dinp, 0, sizeof(T) * (size_t)B * C * H * W);
    for (int n = 0; n < B; n++)
        for (int c = 0; c < C; c++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++)
                    dinp[(((size_t)n * C + c) * H + oh * St) * W + ow * St] =
                        dout[(((size_t)n * OC + c + pad_front) * OH + oh) * OW + ow];
}

/* PyTorch's CrossEntropyLoss(label_smoothing=e): the target distribution is
 * (1 - e) * onehot + e / K, so loss_n = -sum_k q_k log softmax_k. */
T FN(ref_xent_forward)(const T *logits, const int32_t *labels, int B, int K, T smoothing,
                       int *correct) {
    double total = 0;
    int hits = 0;
    for (int n = 0; n < B; n++) {
        const T *z = logits + (size_t)n * K;
        int arg = 0;
        for (int k = 1; k < K; k++)
            if (z[k] > z[arg]) arg = k;
        double mx = z[arg], s = 0, sumz = 0;
        for (int k = 0; k < K; k++) {
            s += exp((double)z[k] - mx);
            sumz += z[k];
        }
        double lse = mx + log(s);
        int y = labels[n];
        assert(y >= 0 && y < K);
        double nll = lse - z[y];
        double uniform = lse - sumz / K; /* mean_k of -log p_k */
        total += (1.0 - smoothing) * nll + smoothing * uniform;
        hits += arg == y;
    }
    if (correct) *correct = hits;
    return (T)(total / B);
}

void FN(ref_xent_backward)(T *dlogits, const T *logits, const int32_t *labels, int B, int K,
                           T smoothing) {
    for (int n = 0; n < B; n++) {
        const T *z = logits + (size_t)n * K;
        T *dz = dlogits + (size_t)n * K;
        double mx = z[0], s = 0;
        for (int k = 1; k < K; k++)
            if (z[k] > mx) mx = z[k];
        for (int k = 0; k < K; k++) s += exp((double)z[k] - mx);
        for (int k = 0; k < K; k++) {
            double q = smoothing / K + (k == labels[n] ? 1.0 - smoothing : 0.0);
            dz[k] = (T)((exp((double)z[k] - mx) / s - q) / B);
        }
    }
}

#endif /* REF_BODY */
