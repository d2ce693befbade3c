/* parse_json.c: system descriptions (<submitter>/systems/<name>.json), v0.5 entry.json and
 * DAWNBench entry descriptions.
 *
 * Descriptions are hand-written: trailing commas, comments, numbers written as strings ("16",
 * "1 200 GB"), misspelt keys ("divison", "sumitter", "number of nodes"), a byte-order mark,
 * and in v0.6 NVIDIA's systems/<name>.json even the log's "key: {"value": ...}" lines with a Python
 * dict inside a string. The text goes through the relaxed reader (parse_relaxed.c) into strict
 * JSON, then cJSON; fields are found by normalised key. raw_json is the description as parsed,
 * re-serialised, so it is always valid JSON.
 */
#include <ctype.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "ingest/benchmarks.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

/* ---- keys and values ---- */

/* Key in normal form: lowercase, runs of other characters as one '_'. */
static void normal_key(const char *k, char *out, size_t cap) {
    size_t n = 0;
    int sep = 0;
    for (; *k && n + 2 < cap; k++) {
        unsigned char c = (unsigned char)*k;
        if (isalnum(c)) {
            if (sep && n) out[n++] = '_';
            sep = 0;
            out[n++] = (char)tolower(c);
        } else {
            sep = 1;
        }
    }
    out[n] = '\0';
}

/* The member of obj whose normalised key is one of names (a NULL-terminated list). */
static cJSON *member(const cJSON *obj, const char *const *names) {
    if (!cJSON_IsObject(obj)) return NULL;
    char k[96];
    for (cJSON *c = obj->child; c; c = c->next) {
        if (!c->string) continue;
        normal_key(c->string, k, sizeof k);
        for (const char *const *n = names; *n; n++)
            if (!strcmp(k, *n)) return c;
    }
    return NULL;
}

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

static int placeholder(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    return !*s || !strcmp(s, "-") || !strcasecmp(s, "n/a") || !strcasecmp(s, "na") || !strcasecmp(s, "none") ||
           !strcasecmp(s, "null") || !strcasecmp(s, "tbd");
}

/* A text member as an arena string; NULL when absent, empty or a placeholder ("N/A", "-"). */
static char *text_of(tta_parsed_file *f, const cJSON *v) {
    char tmp[64];
    const char *s = NULL;
    if (cJSON_IsString(v)) {
        s = v->valuestring;
    } else if (cJSON_IsNumber(v)) {
        snprintf(tmp, sizeof tmp, "%.15g", v->valuedouble);
        s = tmp;
    }
    if (!s || placeholder(s)) return NULL;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    return tta_arena_strndup(&f->arena, s, n);
}

/* A count written as a number or a string ("16", " 8 ", "1 200"); -1 when there is none. */
static int count_of(const cJSON *v) {
    if (cJSON_IsNumber(v)) return v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble : -1;
    if (!cJSON_IsString(v)) return -1;
    const char *s = v->valuestring;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return -1;
    long n = 0;
    for (; *s; s++) {
        if (isdigit((unsigned char)*s)) {
            n = n * 10 + (*s - '0');
            if (n > 1000000000L) return -1;
        } else if ((*s == ' ' || *s == ',') && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
                   isdigit((unsigned char)s[3]) && !isdigit((unsigned char)s[4])) {
            continue; /* a thousands separator: "1 200" */
        } else {
            break;
        }
    }
    return (int)n;
}

/* A string member holding a dict (Python repr or JSON) parsed into an object, or NULL. */
static cJSON *object_in_string(const cJSON *v) {
    if (!cJSON_IsString(v)) return NULL;
    const char *s = v->valuestring;
    while (isspace((unsigned char)*s)) s++;
    if (*s != '{') return NULL;
    buf b = {0};
    cJSON *o = NULL;
    if (tta_relaxed_to_json(s, strlen(s), TTA_RELAXED_BARE_WORDS, &b)) o = cJSON_ParseWithLength(buf_str(&b), b.len);
    buf_free(&b);
    if (o && !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/* ---- DAWNBench hardware strings ---- */

typedef struct {
    char text[48];
    int number; /* -1 unless the token is all digits */
} hw_token;

static int is_specific_accelerator(const char *t) {
    static const char *const contains[] = {"v100", "p100", "a100", "h100", "tpu", "gtx", "rtx", "titan", "1080",
                                           "2080", "3090", "ascend", "radeon", "mi100", "mi250"};
    static const char *const exact[] = {"t4", "p4", "k80", "m60", "k40", "a10", "l4"};
    char low[48];
    size_t n = strlen(t);
    for (size_t i = 0; i <= n && i < sizeof low; i++) low[i] = (char)tolower((unsigned char)t[i]);
    low[sizeof low - 1] = '\0';
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(low, exact[i])) return 1;
    for (size_t i = 0; i < sizeof contains / sizeof contains[0]; i++)
        if (strstr(low, contains[i])) return 1;
    return 0;
}

static int is_generic_accelerator(const char *t) { return !strcasecmp(t, "gpu") || !strcasecmp(t, "gpus") || !strcasecmp(t, "npu"); }

/* Words between a count and the accelerator they count ("8 x Nvidia Tesla V100"). */
static int is_connector(const char *t) {
    return !strcmp(t, "*") || !strcasecmp(t, "x") || !strcasecmp(t, "nvidia") || !strcasecmp(t, "tesla") ||
           !strcasecmp(t, "geforce") || !strcasecmp(t, "volta") || !strcasecmp(t, "amd");
}

/* Splits a hardware string into words; '*' is a word, "4xV100" is "4", "x", "V100". */
static size_t hw_tokens(const char *s, hw_token *t, size_t cap) {
    size_t n = 0;
    while (*s && n < cap) {
        while (*s && (isspace((unsigned char)*s) || strchr("/()[]{},;+|:", *s))) s++;
        if (!*s) break;
        size_t len = 0;
        char w[48];
        if (*s == '*') {
            w[len++] = *s++;
        } else {
            while (*s && !isspace((unsigned char)*s) && !strchr("/()[]{},;+|:*", *s)) {
                if (len + 1 < sizeof w) w[len++] = *s;
                s++;
            }
        }
        w[len] = '\0';
        size_t d = 0;
        while (isdigit((unsigned char)w[d])) d++;
        if (d > 0 && d + 1 == len && (w[d] == 'x' || w[d] == 'X') && n + 2 <= cap) {
            /* "4x GTX" */
            snprintf(t[n].text, sizeof t[n].text, "%.*s", (int)d, w);
            t[n].number = atoi(t[n].text);
            n++;
            snprintf(t[n].text, sizeof t[n].text, "x");
            t[n++].number = -1;
            continue;
        }
        if (d > 0 && d < len && (w[d] == 'x' || w[d] == 'X') && w[d + 1] && !isdigit((unsigned char)w[d + 1]) &&
            n + 3 <= cap) {
            /* "4xV100" */
            snprintf(t[n].text, sizeof t[n].text, "%.*s", (int)d, w);
            t[n].number = atoi(t[n].text);
            n++;
            snprintf(t[n].text, sizeof t[n].text, "x");
            t[n++].number = -1;
            snprintf(t[n].text, sizeof t[n].text, "%s", w + d + 1);
            t[n++].number = -1;
            continue;
        }
        snprintf(t[n].text, sizeof t[n].text, "%s", w);
        t[n].number = d == len && len < 7 ? atoi(w) : -1;
        n++;
    }
    return n;
}

/* Accelerators of a DAWNBench "hardware" string ("8 * V100 (AWS p3.16xlarge)", "1 TPUv2",
 * "4xV100", "8 nodes with InfiniBand (8*P100 for each node)", "no GPU"): total count (-1 when
 * the string names no accelerator), model and node count. */
static void parse_hardware(tta_parsed_file *f, const char *s, int *count, char **model, int *nodes) {
    hw_token t[64];
    size_t n = hw_tokens(s, t, 64);
    *count = -1;
    *model = NULL;
    *nodes = -1;
    long a = -1;
    for (size_t i = 0; i < n && a < 0; i++)
        if (is_specific_accelerator(t[i].text)) a = (long)i;
    for (size_t i = 0; i < n && a < 0; i++)
        if (is_generic_accelerator(t[i].text)) a = (long)i;
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i].number > 0 && !strncasecmp(t[i + 1].text, "node", 4)) *nodes = t[i].number;
    if (a < 0) return;
    if (a > 0 && !strcasecmp(t[a - 1].text, "no")) {
        *count = 0; /* "no GPU" */
        return;
    }
    int has_digit = 0;
    for (const char *c = t[a].text; *c; c++) has_digit |= isdigit((unsigned char)*c);
    if (!has_digit && (size_t)a + 1 < n && t[a + 1].number > 0) { /* "GTX 1080" */
        char m[112];
        snprintf(m, sizeof m, "%.47s %.47s", t[a].text, t[a + 1].text);
        *model = tta_arena_strdup(&f->arena, m);
    } else {
        *model = tta_arena_strdup(&f->arena, t[a].text);
    }
    /* A count before the accelerator, multiplied along "16 * 8 * V100"; else after it
     * ("V100 * 8 GPU", "V100*1"); else one. */
    long c = -1;
    for (long i = a - 1; i >= 0; i--) {
        if (t[i].number >= 0) {
            c = c < 0 ? t[i].number : c * t[i].number;
            if (i > 0 && (!strcmp(t[i - 1].text, "*") || !strcasecmp(t[i - 1].text, "x")) && i > 1 && t[i - 2].number >= 0) {
                i--; /* the next number multiplies */
                continue;
            }
            break;
        }
        if (!is_connector(t[i].text)) break;
    }
    /* After it, only a count behind '*' or 'x' ("V100 * 8 GPU"): "GTX 1080" is a model. */
    for (size_t i = (size_t)a + 1; c < 0 && i + 1 < n; i++) {
        if ((!strcmp(t[i].text, "*") || !strcasecmp(t[i].text, "x")) && t[i + 1].number >= 0) {
            c = t[i + 1].number;
            break;
        }
        if (!is_connector(t[i].text) && !is_specific_accelerator(t[i].text)) break;
    }
    if (c < 0) c = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        if ((!strcasecmp(t[i].text, "each") || !strcasecmp(t[i].text, "per")) && !strncasecmp(t[i + 1].text, "node", 4) &&
            *nodes > 0) {
            c *= *nodes;
            break;
        }
    }
    *count = c > 1000000 ? -1 : (int)c;
}

/* ---- descriptions ---- */

/* The pod-slice size an accelerator name ends in ("tpuv3-512", "tpuv2-8": a hyphen, then only
 * digits), or -1 ("Tesla V100-SXM2-16GB", "NA" and other names spell none). */
static int slice_size(const char *name) {
    const char *dash = name ? strrchr(name, '-') : NULL;
    if (!dash || !isdigit((unsigned char)dash[1])) return -1;
    long n = 0;
    for (const char *c = dash + 1; *c; c++) {
        if (!isdigit((unsigned char)*c) || n > 1000000L) return -1;
        n = n * 10 + (*c - '0');
    }
    return (int)n;
}

/* Sums v0.5 entry.json style "nodes": [{"num_nodes", "num_accelerators", "accelerator", "cpu"}]
 * into s's nodes, accelerators and accelerators_per_node (each stays as it is when already set).
 * A group's num_accelerators counts each node's accelerators, except where the group's
 * accelerator names a pod slice of exactly that size ("accelerator": "tpuv3-512",
 * "num_accelerators": 512 on 32 hosts): then it counts the slice, the whole group's
 * (docs/ingest.md, "Systems"). */
static void read_node_list(tta_parsed_file *f, const cJSON *list, tta_system_record *s) {
    int nodes = 0, accs = 0, any = 0, first_per_node = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        cJSON *parsed = object_in_string(e);
        const cJSON *node = parsed ? parsed : e;
        if (!cJSON_IsObject(node)) continue;
        int nn = count_of(member(node, NAMES("num_nodes", "number_of_nodes", "nodes")));
        int na = count_of(member(node, NAMES("num_accelerators", "accelerators_per_node", "accelerators")));
        char *model = text_of(f, member(node, NAMES("accelerator", "accelerator_model_name")));
        if (nn < 0) nn = 1;
        int group = na < 0 ? -1 : na > 0 && slice_size(model) == na ? na : nn * na;
        if (!any) {
            first_per_node = group >= 0 && nn > 0 && group % nn == 0 ? group / nn : na;
            if (!s->accelerator_model) s->accelerator_model = model;
            if (!s->host_processor) s->host_processor = text_of(f, member(node, NAMES("cpu", "host_processor_model_name")));
        }
        nodes += nn;
        accs = accs < 0 || group < 0 ? -1 : accs + group;
        any = 1;
        if (parsed) cJSON_Delete(parsed);
    }
    if (!any) return;
    if (s->accelerators_per_node < 0) s->accelerators_per_node = first_per_node;
    if (s->nodes < 0) s->nodes = nodes;
    if (s->accelerators < 0) s->accelerators = accs;
}

/* Node count a system name spells: a leading "<N>x" ("2xC4140"), "_n<N>_" ("dgxa100_n32_ngc"),
 * "<N>-node(s)" ("4-nodes-16s-cpx"); -1 when it spells none. */
static int nodes_from_system_name(const char *name) {
    if (!name) return -1;
    const char *p = name;
    if (isdigit((unsigned char)*p)) {
        char *e;
        long n = strtol(p, &e, 10);
        if (n > 0 && n < 100000 && (*e == 'x' || *e == 'X') && isalpha((unsigned char)e[1])) return (int)n;
        if (n > 0 && n < 100000 && !strncasecmp(e, "-node", 5)) return (int)n;
    }
    for (const char *q = strstr(name, "_n"); q; q = strstr(q + 1, "_n")) {
        if (!isdigit((unsigned char)q[2])) continue;
        char *e;
        long n = strtol(q + 2, &e, 10);
        if (n > 0 && n < 100000 && (*e == '_' || *e == '\0')) return (int)n;
    }
    return -1;
}

static void read_system(tta_parsed_file *f, cJSON *d, tta_system_record *s) {
    /* v0.6 NVIDIA: the description is in "entry", a Python dict in a string. */
    cJSON *entry = object_in_string(member(d, NAMES("entry", "submission_entry")));
    const cJSON *src = entry ? entry : d;
    s->division = tta_parsed_lower(f, text_of(f, member(d, NAMES("division", "divison", "submission_division"))));
    s->status = text_of(f, member(d, NAMES("status", "availability", "submission_status")));
    if (!s->division && entry) s->division = tta_parsed_lower(f, text_of(f, member(entry, NAMES("division", "divison"))));
    if (!s->status && entry) s->status = text_of(f, member(entry, NAMES("status")));
    s->accelerator_model = text_of(f, member(src, NAMES("accelerator_model_name", "accelerator_model", "accelerator")));
    s->host_processor =
        text_of(f, member(src, NAMES("host_processor_model_name", "host_processors_model_name", "cpu")));
    s->framework = text_of(f, member(src, NAMES("framework")));
    /* v0.5 entry.json (and some v0.6 descriptions): a "nodes" list of node groups; v0.6 NVIDIA:
     * a Python dict in a string. Top-level counts (v0.6 on) take precedence. */
    const cJSON *list = member(src, NAMES("nodes"));
    if (cJSON_IsArray(list)) {
        read_node_list(f, list, s);
    } else if (cJSON_IsString(list)) {
        cJSON *obj = object_in_string(list);
        if (obj) {
            cJSON *wrap = cJSON_CreateArray();
            cJSON_AddItemToArray(wrap, obj);
            read_node_list(f, wrap, s);
            cJSON_Delete(wrap);
        } else if (count_of(list) >= 0) {
            s->nodes = count_of(list);
        }
    }
    int nodes = count_of(member(src, NAMES("number_of_nodes", "num_nodes")));
    int per_node = count_of(member(src, NAMES("accelerators_per_node", "accelerator_per_node")));
    if (nodes >= 0) s->nodes = nodes;
    /* Descriptions without a node count (DellEMC, SIAT, Tencent v0.7: the official summarizer
     * stops there) still name it in the system name: "2xC4140", "dgxa100_n32_...",
     * "4-nodes-16s-...". */
    if (s->nodes < 0) s->nodes = nodes_from_system_name(s->name);
    if (per_node >= 0) {
        s->accelerators_per_node = per_node;
        s->accelerators = per_node == 0 ? 0 : s->nodes >= 0 ? s->nodes * per_node : -1;
    }
    if (s->accelerators < 0 && s->accelerators_per_node == 0) s->accelerators = 0; /* CPU only */
    if (s->accelerators == 0) s->accelerator_model = NULL;
    if (!s->submitter) s->submitter = text_of(f, member(d, NAMES("submitter", "sumitter", "org", "submission_org")));
    if (entry) {
        /* raw_json: the entry as an object rather than a string. */
        cJSON *slot = member(d, NAMES("entry", "submission_entry"));
        if (!slot || !cJSON_ReplaceItemInObjectCaseSensitive(d, slot->string, entry)) cJSON_Delete(entry);
    }
}

static void read_dawnbench(tta_parsed_file *f, cJSON *d, tta_system_record *s) {
    s->division = "open";
    s->framework = text_of(f, member(d, NAMES("framework")));
    char *hw = text_of(f, member(d, NAMES("hardware")));
    if (hw) parse_hardware(f, hw, &s->accelerators, &s->accelerator_model, &s->nodes);
    if (s->accelerators > 0 && s->nodes > 0 && s->accelerators % s->nodes == 0)
        s->accelerators_per_node = s->accelerators / s->nodes;
    else if (s->accelerators >= 0 && s->nodes < 0)
        s->accelerators_per_node = s->accelerators;
}

int tta_parse_description(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    tta_system_record *s = &f->system;
    s->nodes = s->accelerators_per_node = s->accelerators = -1;
    cJSON *d = tta_parse_description_json(data, len, f->format == TTA_FMT_SYSTEM_JSON);
    if (!cJSON_IsObject(d)) {
        /* Where the relaxed reader gave up is not tracked: report the first line that is not
         * blank, which is where a reader starts. */
        uint32_t line = 1;
        const char *p = data, *end = data + len;
        while (p < end && isspace((unsigned char)*p)) line += *p++ == '\n';
        tta_parse_fail(f, line, "not a JSON object even read leniently");
        cJSON_Delete(d);
        return 0;
    }
    s->round = (char *)pm->round;
    s->submitter = (char *)pm->submitter;
    s->name = (char *)(pm->system ? pm->system : pm->stem);
    if (f->format == TTA_FMT_DAWNBENCH_JSON) {
        /* An inference entry (DAWNBench's other leaderboard: "latency", "cost" per 10,000 images)
         * often has the name of a training entry in the train/ folder beside it; filed under a
         * round of its own, it never describes that training entry's system (which of the two
         * was read last would otherwise decide its accelerators and cost per hour). */
        s->round = member(d, NAMES("latency")) ? "dawnbench-inference" : "dawnbench";
        s->name = tta_dawnbench_entry_name(pm->stem, &f->arena, NULL);
        s->submitter = text_of(f, member(d, NAMES("author")));
        if (!s->submitter) s->submitter = s->name;
        read_dawnbench(f, d, s);
    } else {
        read_system(f, d, s);
        if (!s->division && pm->division) s->division = (char *)pm->division;
        /* tta's replays file their logs and systems under the round the log names (TTA_REPLAY_ROUND). */
        const char *round = text_of(f, member(d, NAMES(TTA_KEY_ROUND)));
        if (round) s->round = (char *)round;
    }
    char *raw = cJSON_PrintUnformatted(d);
    if (raw) {
        s->raw_json = tta_arena_strdup(&f->arena, raw);
        cJSON_free(raw);
    }
    cJSON_Delete(d);
    return 0;
}
