/* parse_json.c: system descriptions (systems/<name>.json), v0.5 entry.json and DAWNBench entry
 * descriptions, read leniently: a byte-order mark, trailing commas, // comments, numbers
 * written as strings ("16", "1 200 GB") and misspelt keys ("divison") are all accepted.
 */
#include <ctype.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/parsers.h"

/* Copies JSON text without a BOM, comments and trailing commas, so that cJSON accepts it. */
char *tta_lenient_json(const char *p, size_t len) {
    buf out = {0};
    const char *end = p + len;
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    int in_string = 0;
    while (p < end) {
        char c = *p;
        if (in_string) {
            buf_putc(&out, c);
            if (c == '\\' && p + 1 < end) {
                buf_putc(&out, p[1]);
                p += 2;
                continue;
            }
            if (c == '"') in_string = 0;
            p++;
            continue;
        }
        if (c == '"') {
            in_string = 1;
        } else if (c == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n') p++;
            continue;
        } else if (c == ',') {
            const char *q = p + 1;
            while (q < end && isspace((unsigned char)*q)) q++;
            if (q < end && (*q == '}' || *q == ']')) {
                p++;
                continue;
            }
        } else if (c == '\0') {
            break;
        }
        buf_putc(&out, c);
        p++;
    }
    return buf_take(&out);
}

/* Member lookup that also accepts known misspellings of the key. */
static const cJSON *member(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v) return v;
    if (!strcmp(key, "division")) return cJSON_GetObjectItemCaseSensitive(obj, "divison");
    return NULL;
}

/* A string value; NULL for absent, empty or placeholder values ("-", "N/A", "NA", "none"). */
static char *text_member(tta_parsed_file *f, const cJSON *obj, const char *key) {
    const cJSON *v = member(obj, key);
    char tmp[64];
    const char *s = NULL;
    if (cJSON_IsString(v)) {
        s = v->valuestring;
    } else if (cJSON_IsNumber(v)) {
        snprintf(tmp, sizeof tmp, "%g", v->valuedouble);
        s = tmp;
    }
    if (!s) return NULL;
    while (isspace((unsigned char)*s)) s++;
    if (!*s || !strcmp(s, "-") || !strcasecmp(s, "n/a") || !strcasecmp(s, "na") || !strcasecmp(s, "none"))
        return NULL;
    return tta_arena_strdup(&f->arena, s);
}

/* A count: a JSON number or a string starting with digits ("16", "8 (2 per node)"); -1. */
static int count_member(const cJSON *obj, const char *key) {
    const cJSON *v = member(obj, key);
    if (cJSON_IsNumber(v)) return v->valuedouble >= 0 && v->valuedouble < 1e7 ? (int)v->valuedouble : -1;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        while (isspace((unsigned char)*s)) s++;
        if (!isdigit((unsigned char)*s)) return -1;
        long n = strtol(s, NULL, 10);
        return n >= 0 && n < 10000000 ? (int)n : -1;
    }
    return -1;
}

static int is_placeholder_model(const char *m) {
    return !m || !strcasecmp(m, "none") || !strcasecmp(m, "na") || !strcasecmp(m, "n/a") || !strcmp(m, "-");
}

/* Accelerator count from DAWNBench "hardware" text: "8 V100", "4xV100", "1 x TPUv2",
 * "V100 (AWS p3.2xlarge)" (one), "16 vCPUs" (CPU only: 0); -1 when it cannot tell. */
static int accelerators_from_text(const char *s) {
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    long n = -1;
    if (isdigit((unsigned char)*s)) {
        char *e;
        n = strtol(s, &e, 10);
        s = e;
        while (*s == ' ' || *s == 'x' || *s == 'X') s++;
    }
    if (strncasecmp(s, "vcpu", 4) == 0 || strncasecmp(s, "cpu", 3) == 0 || strstr(s, "CPU") == s) return 0;
    static const char *const kinds[] = {"V100", "P100", "K80", "TPU", "GPU", "GTX", "Tesla", "A100", "T4", "M60",
                                        "1080", "2080", "Titan", "Ascend"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcasestr(s, kinds[i])) return n >= 0 ? (int)n : 1;
    return n >= 0 ? (int)n : -1;
}

int tta_parse_description(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    char *text = tta_lenient_json(data, len);
    const char *parse_end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &parse_end, 0);
    if (!root || !cJSON_IsObject(root)) {
        unsigned line = parse_end ? tta_line_of(text, parse_end) : 1;
        tta_parse_fail(f, line, "not a valid JSON object");
        cJSON_Delete(root);
        free(text);
        return 0;
    }
    tta_system_record *y = &f->system;
    y->nodes = y->accelerators_per_node = y->accelerators = -1;
    y->round = (char *)pm->round;
    y->name = (char *)pm->system;
    if (!y->name) y->name = (char *)pm->stem;
    y->submitter = (char *)pm->submitter;
    y->division = text_member(f, root, "division");
    y->status = text_member(f, root, "status");
    y->framework = text_member(f, root, "framework");
    if (!y->submitter) y->submitter = text_member(f, root, "submitter");

    if (f->format == TTA_FMT_SYSTEM_JSON) {
        y->accelerator_model = text_member(f, root, "accelerator_model_name");
        y->host_processor = text_member(f, root, "host_processor_model_name");
        y->nodes = count_member(root, "number_of_nodes");
        y->accelerators_per_node = count_member(root, "accelerators_per_node");
        if (is_placeholder_model(y->accelerator_model) && y->accelerators_per_node <= 0) y->accelerators_per_node = 0;
        if (y->accelerators_per_node >= 0) y->accelerators = (y->nodes > 0 ? y->nodes : 1) * y->accelerators_per_node;
    } else if (f->format == TTA_FMT_ENTRY_JSON) {
        /* v0.5: "nodes": [{"num_nodes", "cpu", "accelerator", "num_accelerators"}] */
        const cJSON *nodes = member(root, "nodes");
        if (cJSON_IsArray(nodes)) {
            int total_nodes = 0, total_acc = 0, known = 0;
            const cJSON *node;
            cJSON_ArrayForEach(node, nodes) {
                int nn = count_member(node, "num_nodes");
                int na = count_member(node, "num_accelerators");
                if (nn < 0) nn = 1;
                total_nodes += nn;
                if (na >= 0) {
                    total_acc += nn * na;
                    known = 1;
                }
                if (!y->accelerator_model) {
                    char *m = text_member(f, node, "accelerator");
                    if (!is_placeholder_model(m)) y->accelerator_model = m;
                }
                if (!y->host_processor) y->host_processor = text_member(f, node, "cpu");
                if (na >= 0 && y->accelerators_per_node < 0) y->accelerators_per_node = na;
            }
            y->nodes = total_nodes;
            if (known) y->accelerators = total_acc;
        }
        if (!y->host_processor) y->host_processor = text_member(f, root, "hardware");
    } else { /* DAWNBench entry description */
        char *author = text_member(f, root, "author");
        if (author) y->submitter = author;
        y->round = "dawnbench";
        y->division = "open";
        char *hw = text_member(f, root, "hardware");
        y->accelerator_model = hw;
        y->accelerators = accelerators_from_text(hw);
        y->nodes = 1;
    }
    char *printed = cJSON_PrintUnformatted(root);
    y->raw_json = tta_arena_strdup(&f->arena, printed ? printed : "{}");
    free(printed);
    cJSON_Delete(root);
    free(text);
    return 0;
}
