/* ruleset.h: check/'s rules in memory (read by rules_load.c from schemas/compliance_rules.json, run by
 * engine.c). Nothing outside check/ sees them. */
#ifndef TTA_CHECK_RULESET_H
#define TTA_CHECK_RULESET_H

#include "check/check.h"
#include "check/expr.h"

/* One piece of a rule's Python: its text and tree, or why tta cannot parse it (node NULL). */
typedef struct {
    const char *text;
    cc_node *node;
    const char *why;
} cc_code;

/* A KEY record. */
typedef struct {
    const char *name;
    const char *req; /* EXACTLY_ONE, AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(a,...), OPTIONAL, or NULL */
    int once;        /* the name holds "submission_": PRE/CHECK/POST run on its first line only */
    int has_pre, has_post, has_atleast;
    cc_code pre, post, atleast;
    cc_code *check, *first_check;
    int n_check, n_first_check;
} cc_key;

/* One YAML file of the checker ("training_5.1.0/closed_bert.yaml"). */
typedef struct {
    const char *name;
    int has_begin, has_end, has_end_pre;
    cc_code begin, end_pre;
    cc_code *end_check;
    int n_end_check;
    cc_key *keys; /* in the checker's order */
    int n_keys;
    int *by_name; /* indices of keys sorted by name, for the per-line lookup */
} cc_config;

/* The files of a ruleset as they were when its round was published, where they differ from today's. */
typedef struct {
    const char *ruleset, *commit, *date;
    cc_config *configs; /* sorted by name */
    int n_configs;
} cc_published;

struct tta_check_rules {
    cc_arena arena;
    cc_config *configs; /* sorted by name */
    int n_configs;
    cc_published *published;
    int n_published;
    const char *source;
    const char *rulesets; /* "0.7.0,1.0.0,..." */
};

/* The config named name[0..n), or NULL; as_published: the file as published for ruleset where
 * the rules keep one (else today's). */
const cc_config *cc_config_find(const tta_check_rules *r, const char *name, size_t n);
const cc_config *cc_config_find_as(const tta_check_rules *r, const char *ruleset, int as_published, const char *name,
                                   size_t n);
/* The key record of c named key[0..n), or NULL. */
const cc_key *cc_key_find(const cc_config *c, const char *key, size_t n);

/* tta_check_log_text with the caller's scratch arena (reset, not freed, at the end: a worker's logs reuse
 * its memory). */
int cc_check_text(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, const char *data,
                  size_t len, cc_arena *scratch, tta_check_log *out, tta_error *err);

/* tta_check_log_file likewise. */
int cc_check_file(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, cc_arena *scratch,
                  tta_check_log *out, tta_error *err);

#endif
