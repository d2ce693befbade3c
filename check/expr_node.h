/* expr_node.h: the trees of check/'s rule language, shared by its parser (expr_parse.c) and evaluator
 * (expr_eval.c); nothing outside those two reads them. */
#ifndef TTA_CHECK_EXPR_NODE_H
#define TTA_CHECK_EXPR_NODE_H

#include "check/expr.h"

enum {
    N_CONST,     /* konst */
    N_NAME,      /* name */
    N_LIST,      /* kids: items (op 1: a tuple) */
    N_DICT,      /* kids: key, value, key, value... */
    N_SUBSCRIPT, /* kids: object, index */
    N_ATTR,      /* kids: object; name */
    N_CALL,      /* kids: callee, arguments... */
    N_UNARY,     /* op OP_NEG/OP_POS/OP_NOT; kids: operand */
    N_BINOP,     /* op OP_*; kids: left, right */
    N_BOOLOP,    /* op OP_AND/OP_OR; kids: left, right */
    N_COMPARE,   /* kids: n operands; ops: n-1 CMP_* */
    N_IFEXP,     /* kids: value, condition, otherwise */
    N_EXPRSTMT,  /* kids: expression */
    N_ASSIGN,    /* kids: target, value */
    N_AUGASSIGN, /* op OP_*; kids: target, value */
    N_IF,        /* kids: condition, then-block, else-block or NULL */
    N_BLOCK,     /* kids: statements */
    N_FOR,       /* kids: target (a name), iterable, body */
};

enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_BITOR, OP_BITAND, OP_BITXOR,
    OP_NEG, OP_POS, OP_NOT, OP_AND, OP_OR,
};

enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_IN, CMP_NOTIN, CMP_IS, CMP_ISNOT };

struct cc_node {
    int kind, op;
    cc_val konst;
    const char *name;
    cc_node **kids;
    int nkids;
    int *ops;
};

/* The builtins a rule may call (CV_FUNC's fn, CV_METHOD's fn). */
enum {
    CC_FN_MIN, CC_FN_MAX, CC_FN_ABS, CC_FN_LEN, CC_FN_SORTED, CC_FN_INT, CC_FN_FLOAT, CC_FN_STR, CC_FN_BOOL,
    CC_FN_ROUND, CC_FN_ISINSTANCE, CC_FN_IS_INTEGER, CC_FN_ENQUEUE, CC_FN_LIST, CC_FN_DICT,
    CC_FN_CEIL, CC_FN_FLOOR, CC_FN_LOG2, CC_FN_LOG, CC_FN_LOG10, CC_FN_SQRT, CC_FN_EXP, CC_FN_ISCLOSE,
    CC_FN_M_FORMAT, CC_FN_M_UPDATE, CC_FN_M_GET, CC_FN_M_APPEND, CC_FN_M_KEYS, CC_FN_M_STARTSWITH,
    CC_FN_M_ENDSWITH, CC_FN_M_LOWER, CC_FN_REPLACE, CC_FN_M_VALUES, CC_FN_M_EXTEND,
};

#endif
