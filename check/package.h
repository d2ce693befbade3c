/* package.h: check/'s own contract for the package checks (not public): the package rules
 * (schemas/package_rules.json, embedded) and the seed reader. The walk over organisation folders is
 * package.c's; the public entry points are in check/check.h. */
#ifndef TTA_CHECK_PACKAGE_H
#define TTA_CHECK_PACKAGE_H

#include <stddef.h>

#include "check/expr.h"

/* What the package checker does for one ruleset (schemas/package_rules.json). */
typedef struct {
    char ruleset[16];
    int known;          /* 0: the package rules do not have this ruleset */
    int system_desc;    /* the system descriptions are checked */
    int status_checked; /* their status must be one of the availability options */
    int seeds_closed;   /* the seed checker runs on closed-division folders */
    int rcp_closed;     /* the RCP checker runs on closed-division folders (it writes scaling.json) */
} cc_pkg_ruleset;

/* The package rules: every ruleset, the required fields, the availability options. Read once from
 * the embedded file (pthread_once); never freed. */
typedef struct {
    const char *source;
    const char **required;   /* the system description's required fields, in the checker's order */
    size_t n_required;
    const char **options;    /* the availability options of "status" */
    size_t n_options;
    const char **strings;    /* the fields the checker joins as strings (another type stops it) */
    size_t n_strings;
    cc_pkg_ruleset *rulesets;
    size_t n_rulesets;
} cc_pkg_rules;

/* The embedded package rules (a malformed embedded file ends the process: a build defect that
 * tests/cli/check_package.sh catches). */
const cc_pkg_rules *cc_pkg_rules_builtin(void);

/* The rules for ruleset ("5.1.0") into *out; out->known is 0 when the rules lack it. */
void cc_pkg_ruleset_of(const cc_pkg_rules *r, const char *ruleset, cc_pkg_ruleset *out);

/* One seed a log logs: where (the metadata's file and lineno, as comparable keys) and the value as
 * Python's int() gives it, in decimal. */
typedef struct {
    const char *where; /* "<file key>\x1f<lineno key>": equal for Python-equal (file, lineno) pairs */
    const char *seed;  /* decimal */
    long line;         /* the log's line */
} cc_seed;

/* Reads the seeds of the log text data[0..len) as the seed checker does (mlp_parser.parse_file, then
 * (metadata.file, metadata.lineno, int(value)) of each `seed` line) into *out / *n (in a). Returns 0,
 * -1 when the checker's reading raises (a line that does not parse, a seed without file or lineno,
 * a value int() refuses: why says which and the line), or -2 when the checker itself would stop
 * (a file or lineno that Python cannot hash: a list or dict). */
int cc_seeds_read(cc_arena *a, const char *data, size_t len, cc_seed **out, size_t *n, char *why, size_t cap);

/* The same reading line by line, for a reader that parses the lines already (engine.c: one parse of
 * each line serves the compliance checks and the seeds). Zero-initialise; feed every :::MLLOG line in
 * order. */
typedef struct {
    cc_seed *seeds; /* in the arena given */
    size_t n, cap;
    int worst;      /* the worst problem met so far (seeds.c's LINE_*); 0 none */
    char why[200];  /* its reason, the log's line first */
} cc_seed_reader;
/* One line: m its JSON (NULL when it does not parse; n the JSON text's length, 0 for nothing). */
void cc_seeds_line(cc_arena *a, cc_seed_reader *sr, long fileline, const cc_val *m, size_t n);
/* One line's JSON text json[0..n), parsed here. */
void cc_seeds_text_line(cc_arena *a, cc_seed_reader *sr, long fileline, const char *json, size_t n);
/* cc_seeds_read's return for the lines fed: 0, -1 or -2. */
int cc_seeds_status(const cc_seed_reader *sr);

#endif
