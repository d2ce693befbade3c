/* profile.c: `tta report profile`: a stored profile (`tta profile`) as tables, a roofline against
 * the host's measured peaks (`tta profile --peaks`) and a memory breakdown by batch size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/profile_json.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"

/* ---- Loading ------------------------------------------------------------------------------- */

/* db.h's rows of a profile and of its layers. */
typedef tta_profile_row profile_row;
typedef tta_profile_layer_row layer_row;

/* ---- Tables ---------------------------------------------------------------------------------- */

enum {
    P_ID, P_HOST, P_MODEL, P_DEVICE, P_THREADS, P_BATCH, P_STEP, P_SAMPLES, P_GFLOPS, P_PEAK_SHARE, P_DATA, P_FWD,
    P_BWD, P_OPT, P_MEM_MIB, P_MEM0, P_COUNT = P_MEM0 + 7
};

static const tta_column profile_columns[P_COUNT] = {
    [P_ID] = {"profile", "profile", TTA_COL_INT, 0, TTA_FOR_ALL},
    [P_HOST] = {"host", "host", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [P_MODEL] = {"model", "model", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [P_DEVICE] = {"device", "device", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [P_THREADS] = {"threads", "threads", TTA_COL_INT, 0, TTA_FOR_ALL},
    [P_BATCH] = {"batch", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    [P_STEP] = {"step_s", "step (s)", TTA_COL_SECONDS, 4, TTA_FOR_ALL},
    [P_SAMPLES] = {"samples_per_s", "samples/s", TTA_COL_NUMBER, 0, TTA_FOR_ALL},
    [P_GFLOPS] = {"gflops", "GFLOP/s", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    [P_PEAK_SHARE] = {"sgemm_peak_share", "of SGEMM (%)", TTA_COL_PERCENT, 0, TTA_FOR_ALL},
    [P_DATA] = {"data_share", "data (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [P_FWD] = {"forward_share", "fwd (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [P_BWD] = {"backward_share", "bwd (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [P_OPT] = {"optimizer_share", "opt (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [P_MEM_MIB] = {"memory_mib", "memory (MiB)", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [P_MEM0 + 0] = {"mem_weights", "weights", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 1] = {"mem_weight_grads", "weight grads", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 2] = {"mem_optimizer_state", "optimizer state", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 3] = {"mem_feature_maps", "feature maps", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 4] = {"mem_workspace", "workspace", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 5] = {"mem_data", "data", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [P_MEM0 + 6] = {"mem_total", "total", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
};

static tta_table *profiles_table(const profile_row *p, size_t n, double peak_gflops) {
    tta_table *t = tta_table_new(profile_columns, P_COUNT);
    for (size_t i = 0; i < n; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_number(t, r, P_ID, (double)p[i].id);
        tta_table_set_text(t, r, P_HOST, p[i].host);
        tta_table_set_text(t, r, P_MODEL, p[i].model);
        tta_table_set_text(t, r, P_DEVICE, p[i].device);
        tta_table_set_number(t, r, P_THREADS, p[i].threads);
        tta_table_set_number(t, r, P_BATCH, p[i].batch);
        tta_table_set_number(t, r, P_STEP, p[i].step_s);
        tta_table_set_number(t, r, P_SAMPLES, p[i].samples_per_s);
        tta_table_set_number(t, r, P_GFLOPS, p[i].gflops);
        tta_table_set_number_or(t, r, P_PEAK_SHARE, peak_gflops > 0 ? p[i].gflops / peak_gflops : NAN,
                                "no peaks for this host (tta profile --peaks)");
        tta_table_set_number(t, r, P_DATA, p[i].data_s / p[i].step_s);
        tta_table_set_number(t, r, P_FWD, p[i].forward_s / p[i].step_s);
        tta_table_set_number(t, r, P_BWD, p[i].backward_s / p[i].step_s);
        tta_table_set_number(t, r, P_OPT, p[i].optimizer_s / p[i].step_s);
        tta_table_set_number(t, r, P_MEM_MIB, p[i].mem[6] / 1048576.0);
        for (int k = 0; k < 7; k++) tta_table_set_number(t, r, P_MEM0 + k, p[i].mem[k]);
        if (!p[i].settled) tta_table_add_note(t, r, "throughput did not settle during warm-up");
    }
    return t;
}

enum {
    L_NAME, L_TYPE, L_ALGORITHM, L_FUSED, L_MFLOP, L_FLOPS, L_MB, L_BYTES, L_MS, L_TIME, L_SHARE, L_GFLOPS, L_INTENSITY, L_ROOF,
    L_ROOF_SHARE, L_BOUND, L_COUNT
};

static const tta_column layer_columns[L_COUNT] = {
    [L_NAME] = {"name", "layer", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [L_TYPE] = {"type", "type", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [L_ALGORITHM] = {"algorithm", "algorithm", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [L_FUSED] = {"fused_into", "fused into", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [L_MFLOP] = {"mflop", "MFLOP", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [L_FLOPS] = {"flops", "FLOPs", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [L_MB] = {"mb", "MB moved", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [L_BYTES] = {"bytes", "bytes", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [L_MS] = {"time_ms", "time (ms)", TTA_COL_NUMBER, 3, TTA_FOR_PEOPLE},
    [L_TIME] = {"time_s", "time (s)", TTA_COL_SECONDS, 6, TTA_FOR_SCRIPTS},
    [L_SHARE] = {"step_share", "of step (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [L_GFLOPS] = {"gflops", "GFLOP/s", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [L_INTENSITY] = {"intensity", "FLOP/byte", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [L_ROOF] = {"roof_gflops", "roof", TTA_COL_NUMBER, 1, TTA_FOR_ALL},
    [L_ROOF_SHARE] = {"roof_share", "of roof (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [L_BOUND] = {"bound", "bound", TTA_COL_TEXT, 0, TTA_FOR_ALL},
};

static tta_table *layers_table(const layer_row *L, size_t n, double step_s, double peak, double bw) {
    tta_table *t = tta_table_new(layer_columns, L_COUNT);
    const char *no_peaks = "no peaks for this host (tta profile --peaks)";
    for (size_t i = 0; i < n; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_text(t, r, L_NAME, L[i].name);
        tta_table_set_text(t, r, L_TYPE, L[i].type);
        tta_table_set_text(t, r, L_ALGORITHM, L[i].algorithm[0] ? L[i].algorithm : NULL);
        tta_table_set_text(t, r, L_FUSED, L[i].fused_into[0] ? L[i].fused_into : NULL);
        tta_table_set_number(t, r, L_MFLOP, L[i].flops * 1e-6);
        tta_table_set_number(t, r, L_FLOPS, L[i].flops);
        tta_table_set_number(t, r, L_MB, L[i].bytes * 1e-6);
        tta_table_set_number(t, r, L_BYTES, L[i].bytes);
        if (L[i].fused_into[0]) {
            /* a fused layer has FLOPs but no bytes or time of its own (its host's row counts
             * them): no intensity, roof or rate, for that reason and not for want of FLOPs */
            buf why_b = {0};
            buf_printf(&why_b, "fused: runs inside %s", L[i].fused_into);
            const char *why = buf_str(&why_b);
            tta_table_set_missing(t, r, L_INTENSITY, why);
            tta_table_set_missing(t, r, L_ROOF, why);
            tta_table_set_missing(t, r, L_BOUND, why);
            tta_table_set_missing(t, r, L_MS, why);
            tta_table_set_missing(t, r, L_TIME, why);
            tta_table_set_missing(t, r, L_SHARE, why);
            tta_table_set_missing(t, r, L_GFLOPS, why);
            tta_table_set_missing(t, r, L_ROOF_SHARE, why);
            buf_free(&why_b);
            continue;
        }
        double roof = peak > 0 && L[i].intensity > 0 ? fmin(peak, bw * L[i].intensity) : NAN;
        tta_table_set_number_or(t, r, L_ROOF, roof, peak > 0 ? "no FLOPs" : no_peaks);
        if (peak > 0 && L[i].intensity > 0)
            tta_table_set_text(t, r, L_BOUND, bw * L[i].intensity < peak ? "memory" : "compute");
        tta_table_set_number(t, r, L_INTENSITY, L[i].intensity);
        tta_table_set_number(t, r, L_MS, L[i].time_s * 1e3);
        tta_table_set_number(t, r, L_TIME, L[i].time_s);
        tta_table_set_number(t, r, L_SHARE, L[i].time_s / step_s);
        tta_table_set_number_or(t, r, L_GFLOPS, L[i].gflops, "not timed");
        double share = isfinite(roof) && roof > 0 ? L[i].gflops / roof : NAN;
        tta_table_set_number_or(t, r, L_ROOF_SHARE, share, peak > 0 ? "no FLOPs" : no_peaks);
        /* not an impossible figure, but one to explain: the memory roof is STREAM triad's rate,
         * which counts 3 arrays moved a step while the cache also reads the array it writes */
        if (share > 1.0 && tta_algorithm_is_winograd(L[i].algorithm))
            tta_table_add_note(t, r,
                               "above its roof: a Winograd convolution's FLOPs are counted as the direct "
                               "convolution's (the model's), and it does fewer multiplications");
        else if (share > 1.0)
            tta_table_add_note(t, r,
                               "above its roof: the memory roof is STREAM triad's bandwidth (tta profile --peaks), "
                               "which a layer beats where its stores bypass the cache or its data is still cached");
    }
    return t;
}

/* ---- Plots ----------------------------------------------------------------------------------- */

enum { GROUPS = 6 };

/* Which roofline series a layer belongs to: by type, and a Winograd convolution apart, since its
 * GFLOP/s count the direct convolution's FLOPs and can stand above the SGEMM roof. */
static int layer_group(const layer_row *L) {
    const char *type = L->type;
    if (tta_algorithm_is_winograd(L->algorithm)) return 5;
    if (!strcmp(type, "conv") || !strcmp(type, "linear")) return 0;
    if (!strcmp(type, "bn")) return 1;
    if (strstr(type, "pool") || !strcmp(type, "gap") || !strcmp(type, "gmp")) return 2;
    if (!strcmp(type, "update")) return 4;
    return 3;
}

static void roofline_plot(const profile_row *p, const layer_row *L, size_t n, double peak, double bw, int peak_threads,
                          buf *svg) {
    static const char *const group_names[GROUPS] = {"conv / linear", "batch norm", "pooling", "element-wise",
                                                    "optimizer update", "Winograd conv (direct FLOPs)"};
    double *x = mallocCheck((n ? n : 1) * GROUPS * sizeof *x), *y = mallocCheck((n ? n : 1) * GROUPS * sizeof *y);
    const char **labels = mallocCheck((n ? n : 1) * GROUPS * sizeof *labels);
    tta_series series[GROUPS + 2];
    size_t ns = 0, counts[GROUPS] = {0};
    double imin = 1e30, imax = 0;
    for (size_t i = 0; i < n; i++) {
        if (L[i].fused_into[0] || !(L[i].gflops > 0) || !(L[i].intensity > 0)) continue;
        int g = layer_group(&L[i]);
        size_t k = (size_t)g * n + counts[g]++;
        x[k] = L[i].intensity;
        y[k] = L[i].gflops;
        labels[k] = L[i].name;
        imin = fmin(imin, L[i].intensity);
        imax = fmax(imax, L[i].intensity);
    }
    for (int g = 0; g < GROUPS; g++) {
        if (!counts[g]) continue;
        series[ns++] = (tta_series){group_names[g], x + (size_t)g * n, y + (size_t)g * n, counts[g], NULL,
                                    labels + (size_t)g * n, TTA_MARK_POINTS, 0, 0, 0};
    }
    double rx[2], ry[2], cx[2], cy[2];
    char mem_name[96], peak_name[96];
    if (peak > 0 && bw > 0) {
        double ridge = peak / bw;
        double lo = fmin(imin, ridge) / 2, hi = fmax(imax, ridge) * 2;
        if (!(lo > 0) || lo > hi) lo = ridge / 10, hi = ridge * 10;
        rx[0] = lo, ry[0] = bw * lo, rx[1] = ridge, ry[1] = peak;
        cx[0] = ridge, cy[0] = peak, cx[1] = hi, cy[1] = peak;
        snprintf(mem_name, sizeof mem_name, "memory %.1f GB/s", bw);
        snprintf(peak_name, sizeof peak_name, "SGEMM %.0f GFLOP/s (%d thread%s)", peak, peak_threads,
                 peak_threads == 1 ? "" : "s");
        series[ns++] = (tta_series){mem_name, rx, ry, 2, NULL, NULL, TTA_MARK_LINE, 1, 0, 0};
        series[ns++] = (tta_series){peak_name, cx, cy, 2, NULL, NULL, TTA_MARK_LINE, 1, 0, 0};
    }
    char title[200];
    snprintf(title, sizeof title, "Roofline: %s, batch %d, %s %d thread%s%s", p->model, p->batch, p->device, p->threads,
             p->threads == 1 ? "" : "s", peak > 0 ? "" : " (no peaks: run tta profile --peaks)");
    tta_xy_plot plot = {title, 0, 0, {"operational intensity (FLOP/byte)", TTA_AXIS_LOG10, 0, 0, 0},
                        {"achieved (GFLOP/s)", TTA_AXIS_LOG10, 0, 0, 0}, series, ns, NULL, 0};
    tta_svg_xy(svg, &plot);
    free(x);
    free(y);
    free(labels);
}

static void memory_plot(const profile_row *p, size_t n, buf *svg) {
    static const char *const names[7] = {"weights", "weight gradients", "optimizer state", "feature maps",
                                         "workspace", "data", "other (BN stats, inference path)"};
    char (*cat)[32] = mallocCheck((n ? n : 1) * sizeof *cat);
    const char **cats = mallocCheck((n ? n : 1) * sizeof *cats);
    double *v = mallocCheck((n ? n : 1) * 7 * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        snprintf(cat[i], sizeof cat[i], "batch %d", p[i].batch);
        cats[i] = cat[i];
        double other = p[i].mem[6];
        for (int k = 0; k < 6; k++) {
            v[i * 7 + (size_t)k] = p[i].mem[k] / 1048576.0;
            other -= p[i].mem[k];
        }
        v[i * 7 + 6] = fmax(other, 0) / 1048576.0;
    }
    char title[160];
    snprintf(title, sizeof title, "Memory by category: %s on %s", n ? p[0].model : "", n ? p[0].device : "");
    tta_bar_plot plot = {title, 0, 0, {"memory (MiB)", TTA_AXIS_LINEAR, 0, 0, 1}, "batch size", cats, n, names, 7,
                         v, 1, 1, 1, NULL, NULL, 0};
    tta_svg_bars(svg, &plot);
    free(cat);
    free(cats);
    free(v);
}

/* ---- The report ------------------------------------------------------------------------------ */

/* Everything one report needs. */
typedef struct {
    profile_row *profiles;
    size_t n_profiles, sel;
    layer_row *layers;
    size_t n_layers;
    double peak, bw;
    int peak_threads;
} profile_data;

static void profile_data_free(profile_data *d) {
    free(d->profiles);
    free(d->layers);
}

/* 0 with d loaded (d->n_profiles == 0 when nothing is stored), or 1 with *err. */
static int profile_data_load(sqlite3 *db, int64_t id, profile_data *d, char **err) {
    memset(d, 0, sizeof *d);
    tta_error db_err;
    if (tta_db_profiles(db, id, &d->profiles, &d->n_profiles, &d->sel, &db_err) != TTA_OK)
        return tta_report_fail(&db_err, err);
    if (d->n_profiles == 0) return 0;
    const profile_row *p = &d->profiles[d->sel];
    if (tta_db_profile_layers(db, p->id, &d->layers, &d->n_layers, &db_err) != TTA_OK) {
        profile_data_free(d);
        return tta_report_fail(&db_err, err);
    }
    tta_host_peaks peaks;
    if (tta_db_host_peaks(db, p->host, p->threads, &peaks)) {
        d->peak = peaks.sgemm_gflops;
        d->bw = peaks.mem_gbs;
        d->peak_threads = peaks.threads;
    }
    return 0;
}

int tta_report_profile(sqlite3 *db, int64_t profile_id, const tta_report_options *o, const char *memory_svg,
                       FILE *out, char **err) {
    profile_data d;
    if (profile_data_load(db, profile_id, &d, err)) return 1;
    const profile_row *p = d.n_profiles ? &d.profiles[d.sel] : NULL;
    tta_table *pt = profiles_table(d.profiles, d.n_profiles, d.peak);
    tta_table *lt = layers_table(d.layers, d.n_layers, p ? p->step_s : NAN, d.peak, d.bw);
    if (!p && o->format == TTA_FORMAT_TABLE)
        fprintf(stderr, "tta report profile: no profile stored (run `tta profile SPEC`)\n");
    switch (o->format) {
    case TTA_FORMAT_JSON: {
        buf b = {0};
        buf_puts(&b, "{\"profiles\": ");
        tta_table_render(pt, TTA_OUT_JSON, NULL, &b);
        while (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
        buf_puts(&b, ",\n\"layers\": ");
        tta_table_render(lt, TTA_OUT_JSON, NULL, &b);
        while (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
        buf_puts(&b, "}\n");
        fputs(buf_str(&b), out);
        buf_free(&b);
        break;
    }
    case TTA_FORMAT_CSV: /* one table per stream: the layers of the profile */
        tta_table_write(lt, TTA_OUT_CSV, out);
        break;
    default: {
        tta_out_format f = o->format == TTA_FORMAT_MARKDOWN ? TTA_OUT_MARKDOWN : TTA_OUT_TABLE;
        tta_table_write(pt, f, out);
        if (p) {
            fprintf(out, "\nprofile %lld: %s, batch %d, %d warm-up steps discarded, %d measured", (long long)p->id,
                    p->model, p->batch, p->warmup_steps, p->measured_steps);
            if (d.peak > 0)
                fprintf(out, "; roofs (%d thread%s): SGEMM %.1f GFLOP/s, memory %.1f GB/s, ridge %.1f FLOP/byte\n\n",
                        d.peak_threads, d.peak_threads == 1 ? "" : "s", d.peak, d.bw, d.peak / d.bw);
            else
                fprintf(out, "; no peaks stored for host %s (tta profile --peaks)\n\n", p->host);
            /* layer names are what people look for: give the table the room they need */
            buf b = {0};
            tta_text_options to = {.max_width = 132};
            tta_table_render(lt, f, &to, &b);
            fputs(buf_str(&b), out);
            buf_free(&b);
        }
    }
    }
    int rc = 0;
    if (o->svg_path && p) {
        buf svg = {0};
        roofline_plot(p, d.layers, d.n_layers, d.peak, d.bw, d.peak_threads, &svg);
        rc = tta_write_file(o->svg_path, &svg, err);
        buf_free(&svg);
    }
    if (rc == 0 && memory_svg && p) {
        buf svg = {0};
        memory_plot(d.profiles, d.n_profiles, &svg);
        rc = tta_write_file(memory_svg, &svg, err);
        buf_free(&svg);
    }
    tta_table_free(pt);
    tta_table_free(lt);
    profile_data_free(&d);
    return rc;
}

int tta_profile_html_section(sqlite3 *db, buf *page, char **err) {
    profile_data d;
    if (profile_data_load(db, 0, &d, err)) return 1;
    if (d.n_profiles == 0) return 0;
    const profile_row *p = &d.profiles[d.sel];
    tta_html_heading(page, "Profile of a training step on this machine");
    buf text = {0}, svg = {0};
    buf_printf(&text, "Profile %lld (tta profile): %s on %s with %d thread%s, batch %d: %.4f s per step, %.0f samples/s, "
                      "%.1f GFLOP/s.", (long long)p->id, p->model, p->device, p->threads, p->threads == 1 ? "" : "s",
               p->batch, p->step_s, p->samples_per_s, p->gflops);
    tta_html_paragraph(page, buf_str(&text));
    roofline_plot(p, d.layers, d.n_layers, d.peak, d.bw, d.peak_threads, &svg);
    tta_html_figure(page, buf_str(&svg), "Achieved GFLOP/s of each layer against its operational intensity, under "
                                         "the host's memory-bandwidth and SGEMM roofs");
    buf_clear(&svg);
    memory_plot(d.profiles, d.n_profiles, &svg);
    tta_html_figure(page, buf_str(&svg), "Memory the trainer allocated, by category and batch size");
    tta_table *pt = profiles_table(d.profiles, d.n_profiles, d.peak);
    tta_table *lt = layers_table(d.layers, d.n_layers, p->step_s, d.peak, d.bw);
    tta_html_table(page, pt, NULL);
    tta_html_table(page, lt, NULL);
    tta_table_free(pt);
    tta_table_free(lt);
    buf_free(&text);
    buf_free(&svg);
    profile_data_free(&d);
    return 0;
}
