/* replay_profile.c: `tta report profile` with an entry filter: the profile each selected replay
 * logged of itself while it trained (its tta_memory and tta_layer_profile records, stored typed
 * by ingest: db/reader.h's tta_db_replay_profiles): the memory the trainer allocated by category,
 * and per layer its FLOPs, bytes and measured time per step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"

/* ---- Memory: one row per run ---------------------------------------------------------------- */

enum { M_ENTRY, M_RUN, M_SYSTEM, M_BENCHMARK, M_INDEX, M_STEPS, M_TOTAL_MIB, M_TOTAL, M_CAT0 };
#define M_COUNT (M_CAT0 + 2 * TTA_REPLAY_MEMORY_CATEGORIES)

static const tta_column memory_fixed_columns[M_CAT0] = {
    [M_ENTRY] = TTA_ENTRY_COLUMN,
    [M_RUN] = {"run", "run", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_SYSTEM] = TTA_SYSTEM_COLUMN,
    [M_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [M_INDEX] = {"run_index", "result", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_STEPS] = {"steps", "steps", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_TOTAL_MIB] = {"memory_mib", "memory (MiB)", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [M_TOTAL] = {"memory_bytes", "memory", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
};

/* The memory table's columns: the fixed ones, then per category (tta_replay_memory order) its MiB
 * for people and its bytes for scripts, both named as the log's member (common/profile_json.h):
 * people see "weights", scripts get "weights" in bytes. mib_keys holds the people's keys. */
static void memory_columns(tta_column *cols, char (*mib_keys)[48]) {
    memcpy(cols, memory_fixed_columns, sizeof memory_fixed_columns);
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++) {
        const char *name = tta_profile_memory_names[tta_replay_memory[i]];
        snprintf(mib_keys[i], sizeof mib_keys[i], "%s_mib", name);
        cols[M_CAT0 + 2 * i] = (tta_column){mib_keys[i], name, TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE};
        cols[M_CAT0 + 2 * i + 1] = (tta_column){name, name, TTA_COL_INT, 0, TTA_FOR_SCRIPTS};
    }
}

/* The sum of a run's known categories (NAN when it logged no memory or none is known). */
static double memory_total(const tta_replay_profile *p) {
    double total = NAN;
    for (int i = 0; p->has_memory && i < TTA_REPLAY_MEMORY_CATEGORIES; i++)
        if (!isnan(p->memory[i])) total = (isnan(total) ? 0 : total) + p->memory[i];
    return total;
}

/* A table of the runs' memory (one row each); cols and their keys outlive it (memory_columns). */
static tta_table *memory_table(const tta_replay_profile *p, size_t n, const tta_column *cols) {
    tta_table *t = tta_table_new(cols, M_COUNT);
    for (size_t i = 0; i < n; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_number(t, r, M_ENTRY, (double)p[i].entry_id);
        tta_table_set_number(t, r, M_RUN, (double)p[i].run_id);
        tta_table_set_text(t, r, M_SYSTEM, p[i].system);
        tta_table_set_text(t, r, M_BENCHMARK, p[i].benchmark);
        tta_table_set_number(t, r, M_INDEX, p[i].run_index >= 0 ? p[i].run_index : NAN);
        tta_table_set_number_or(t, r, M_STEPS, p[i].steps, p[i].has_layers ? "not a number in the log"
                                                                          : "the log has no layer profile");
        const char *why = p[i].has_memory ? "not in the log's memory record" : "the log has no memory record";
        double total = memory_total(&p[i]);
        tta_table_set_number_or(t, r, M_TOTAL_MIB, total / 1048576.0, why);
        tta_table_set_number_or(t, r, M_TOTAL, total, why);
        for (int k = 0; k < TTA_REPLAY_MEMORY_CATEGORIES; k++) {
            tta_table_set_number_or(t, r, M_CAT0 + 2 * k, p[i].memory[k] / 1048576.0, why);
            tta_table_set_number_or(t, r, M_CAT0 + 2 * k + 1, p[i].memory[k], why);
        }
    }
    return t;
}

/* ---- Layers: one row per layer of a run ------------------------------------------------------ */

enum { L_RUN, L_NAME, L_TYPE, L_MFLOP, L_FLOPS, L_MB, L_BYTES, L_MS, L_TIME, L_SHARE, L_GFLOPS, L_INTENSITY, L_COUNT };

static const tta_column layer_columns[L_COUNT] = {
    [L_RUN] = {"run", "run", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [L_NAME] = {"name", "layer", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [L_TYPE] = {"type", "type", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [L_MFLOP] = {"mflop", "MFLOP", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [L_FLOPS] = {"flops", "FLOPs", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [L_MB] = {"mb", "MB moved", TTA_COL_NUMBER, 1, TTA_FOR_PEOPLE},
    [L_BYTES] = {"bytes", "bytes", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [L_MS] = {"time_ms", "time (ms)", TTA_COL_NUMBER, 3, TTA_FOR_PEOPLE},
    [L_TIME] = {"time_s", "time (s)", TTA_COL_SECONDS, 6, TTA_FOR_SCRIPTS},
    [L_SHARE] = {"layers_share", "of layers (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [L_GFLOPS] = {"gflops", "GFLOP/s", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [L_INTENSITY] = {"intensity", "FLOP/byte", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
};

/* The seconds per step of a run's timed layers together (NAN when none is known). */
static double layers_time(const tta_replay_profile *p) {
    double sum = NAN;
    for (size_t i = 0; i < p->n_layers; i++)
        if (!isnan(p->layers[i].time_s)) sum = (isnan(sum) ? 0 : sum) + p->layers[i].time_s;
    return sum;
}

/* Adds the layers of run p to t: FLOPs and bytes per step as logged, time per step, its share of
 * the layers' time, achieved GFLOP/s (FLOPs over time: none for a layer without time of its own,
 * one fused into another) and operational intensity (FLOPs over bytes). */
static void add_layer_rows(tta_table *t, const tta_replay_profile *p) {
    double total = layers_time(p);
    for (size_t i = 0; i < p->n_layers; i++) {
        const tta_replay_layer_row *L = &p->layers[i];
        size_t r = tta_table_add_row(t);
        tta_table_set_number(t, r, L_RUN, (double)p->run_id);
        tta_table_set_text(t, r, L_NAME, L->name);
        tta_table_set_text(t, r, L_TYPE, L->type);
        tta_table_set_number(t, r, L_MFLOP, L->flops * 1e-6);
        tta_table_set_number(t, r, L_FLOPS, L->flops);
        tta_table_set_number(t, r, L_MB, L->bytes * 1e-6);
        tta_table_set_number(t, r, L_BYTES, L->bytes);
        tta_table_set_number(t, r, L_MS, L->time_s * 1e3);
        tta_table_set_number(t, r, L_TIME, L->time_s);
        tta_table_set_number_or(t, r, L_SHARE, total > 0 ? L->time_s / total : NAN, "no layer was timed");
        tta_table_set_number_or(t, r, L_GFLOPS, L->time_s > 0 ? L->flops / L->time_s * 1e-9 : NAN,
                                L->time_s == 0 ? "no time of its own (fused into another layer)" : "not timed");
        tta_table_set_number_or(t, r, L_INTENSITY, L->bytes > 0 ? L->flops / L->bytes : NAN, "no bytes");
    }
}

/* ---- The report ------------------------------------------------------------------------------ */

/* Appends table t rendered as fmt to b without its trailing newlines. */
static void render_trimmed(const tta_table *t, tta_out_format fmt, buf *b) {
    tta_table_render(t, fmt, NULL, b);
    while (b->len && b->data[b->len - 1] == '\n') b->data[--b->len] = '\0';
}

int tta_report_replay_profile(sqlite3 *db, const tta_filter *f, int format, FILE *out, char **err) {
    tta_replay_profile *p = NULL;
    size_t n = 0;
    tta_error db_err;
    if (tta_db_replay_profiles(db, f, &p, &n, &db_err) != TTA_OK) return tta_report_fail(&db_err, err);
    tta_column cols[M_COUNT];
    char mib_keys[TTA_REPLAY_MEMORY_CATEGORIES][48];
    memory_columns(cols, mib_keys);
    tta_table *mt = memory_table(p, n, cols);
    tta_table *all_layers = tta_table_new(layer_columns, L_COUNT);
    for (size_t i = 0; i < n; i++) add_layer_rows(all_layers, &p[i]);
    if (n == 0 && format == TTA_FORMAT_TABLE)
        fprintf(stderr, "tta report profile: no replay in the selection logged a profile (tta replay logs one)\n");
    switch (format) {
    case TTA_FORMAT_JSON: {
        buf b = {0};
        buf_puts(&b, "{\"runs\": ");
        render_trimmed(mt, TTA_OUT_JSON, &b);
        buf_puts(&b, ",\n\"layers\": ");
        render_trimmed(all_layers, TTA_OUT_JSON, &b);
        buf_puts(&b, "}\n");
        fputs(buf_str(&b), out);
        buf_free(&b);
        break;
    }
    case TTA_FORMAT_CSV: /* one table per stream: the layers, each with its run */
        tta_table_write(all_layers, TTA_OUT_CSV, out);
        break;
    default: {
        tta_out_format fmt = format == TTA_FORMAT_MARKDOWN ? TTA_OUT_MARKDOWN : TTA_OUT_TABLE;
        fputs("Memory the trainer allocated (MiB), as each replay logged it:\n", out);
        tta_table_write(mt, fmt, out);
        for (size_t i = 0; i < n; i++) {
            if (!p[i].has_layers) continue;
            fprintf(out, "\nrun %lld (%s, %s", (long long)p[i].run_id, p[i].system ? p[i].system : "?",
                    p[i].benchmark ? p[i].benchmark : "?");
            if (p[i].run_index >= 0) fprintf(out, ", result_%d", p[i].run_index);
            fputs("): per layer, one training step", out);
            if (!isnan(p[i].steps)) fprintf(out, ", times averaged over %.0f steps", p[i].steps);
            double total = layers_time(&p[i]);
            if (!isnan(total)) fprintf(out, "; the layers take %.3f ms per step", total * 1e3);
            fputs("\n\n", out);
            tta_table *lt = tta_table_new(layer_columns, L_COUNT);
            add_layer_rows(lt, &p[i]);
            /* layer names are what people look for: give the table the room they need */
            buf b = {0};
            tta_text_options to = {.max_width = 132};
            tta_table_render(lt, fmt, &to, &b);
            fputs(buf_str(&b), out);
            buf_free(&b);
            tta_table_free(lt);
        }
    }
    }
    tta_table_free(mt);
    tta_table_free(all_layers);
    tta_replay_profiles_free(p, n);
    return 0;
}
