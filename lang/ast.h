/*
 * lang/ast.h: the syntax tree the parser builds and the checker walks, the
 * parse state shared by the lexer and the parser, and the diagnostics helpers
 * of the lang module. Internal to lang/: nothing outside includes it.
 *
 * Ownership: every node owns its children and strings; ast_stmt_release()
 * and ast_value_free() free a whole subtree. kopt_loc.file pointers are
 * borrowed from the loader's file table, which outlives every tree.
 */
#ifndef KOPT_LANG_AST_H
#define KOPT_LANG_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* ---- diagnostics ---- */

struct lang_diag {
	kopt_diag_fn *report; /* where every diagnostic goes */
	void *ctx;            /* the reporter's context */
	int nerrors;          /* errors reported so far (warnings and notes do not count) */
};

void lang_err(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...) KOPT_PRINTF(3, 4);
void lang_warn(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...) KOPT_PRINTF(3, 4);
void lang_note(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...) KOPT_PRINTF(3, 4);
/* " (did you mean 'x'?)" for the best candidate within reach, else "" */
char *lang_hint(const char *name, const char *const *cands, size_t n);

/* ---- values ---- */

enum ast_kind {
	AST_STR,  /* "text ${VAR} text" */
	AST_NUM,  /* 16, 1e-4, 10m, 2GiB, 5% */
	AST_BOOL, /* true, false */
	AST_NAME, /* a bare word: a reference, an enumeration word or a variable */
	AST_LIST, /* [a, b] */
	AST_CALL, /* f(arg, key = arg) */
	AST_MAP   /* { "key" = value ... } */
};

enum ast_unit { UNIT_NONE, UNIT_DURATION, UNIT_SIZE, UNIT_PERCENT };

/* A piece of a string literal: literal text, or a ${VAR} reference. */
struct ast_part {
	char *text;          /* the text, or the variable name */
	bool is_var;
	struct kopt_loc loc; /* of the ${VAR} */
};

struct ast_field;

struct ast_value {
	enum ast_kind kind;
	struct kopt_loc loc;
	char *str;             /* NAME: the word; CALL: the function; STR once evaluated: the text */
	struct ast_part *parts; /* STR as written; NULL once evaluated */
	size_t nparts, partcap;
	double num;            /* NUM, in base units: seconds, bytes, a fraction for % */
	enum ast_unit unit;    /* NUM */
	bool is_int;           /* NUM: written without '.', exponent or unit scaling */
	uint64_t u;            /* NUM: exact value when is_int and not negative */
	bool b;                /* BOOL */
	struct ast_field *elems; /* LIST items, CALL arguments, MAP entries */
	size_t nelems, elemcap;
};

/* "name = value", "variant name { ... }", "shape name { ... }", a list
 * item (name NULL) or a positional argument (name NULL). */
enum ast_field_kind { FIELD_SET, FIELD_VARIANT, FIELD_SHAPE };

struct ast_block;

struct ast_field {
	enum ast_field_kind kind;
	char *name;               /* NULL for list items and positional arguments */
	struct kopt_loc name_loc;
	struct ast_value *value;  /* FIELD_SET */
	struct ast_block *block;  /* FIELD_VARIANT, FIELD_SHAPE */
};

struct ast_block {
	struct ast_field *items;
	size_t n, cap;
	bool had_error;      /* a syntax error was recovered inside */
	struct kopt_loc loc; /* the opening brace */
};

enum ast_stmt_kind {
	STMT_VAR, STMT_INCLUDE, STMT_DEVICE, STMT_AGENTS, STMT_GATES, STMT_DEFAULTS,
	STMT_MODEL, STMT_MODELS, STMT_KERNEL, STMT_HELION, STMT_TARGET, STMT_DEFAULT
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct kopt_loc loc;      /* the keyword, or the variable's name */
	char *name;               /* the declared name; NULL for include and defaults */
	struct kopt_loc name_loc;
	struct ast_value *value;  /* VAR, INCLUDE, MODELS, TARGET */
	struct ast_block *block;  /* the { ... } part, or NULL */
	bool had_error;           /* a lexical or syntax error was reported inside */
};

struct ast_value *ast_value_new(enum ast_kind kind, const struct kopt_loc *loc);
void ast_value_free(struct ast_value *v);
struct ast_value *ast_value_copy(const struct ast_value *v);
void ast_part_add(struct ast_value *v, char *text, bool is_var, const struct kopt_loc *loc);
/* appends an element; takes name and value (or block) */
void ast_elem_add(struct ast_value *v, char *name, const struct kopt_loc *name_loc, struct ast_value *val);
void ast_field_release(struct ast_field *f);

struct ast_block *ast_block_new(const struct kopt_loc *loc);
void ast_block_add(struct ast_block *b, struct ast_field *f); /* takes f's contents */
void ast_block_free(struct ast_block *b);

void ast_stmt_release(struct ast_stmt *s);

/* ---- parsing one file ---- */

struct lang_parse {
	struct lang_diag *D;
	const char *file;        /* for locations; owned by the loader's file table */
	int line, col;           /* lexer position of the next byte */
	int prev_end_col;        /* column of the last newline, for end-of-file locations */
	char tok[48];            /* text of the last token, for syntax errors */
	int errors_seen;         /* D->nerrors when the last statement was added */
	/* the '{' still open, as the lexer counts them (a missing '}' gets a
	 * note at the one it leaves open) */
	int nopen;               /* how many */
	struct kopt_loc open[16]; /* where, the innermost 16 */
	int open_indent[16];     /* the column of the first token on each one's line */
	int decl_line;           /* the last declaration word at a line's start inside them: its line */
	bool noted;              /* the note is given: once per file */
	/* a '}' first on its line that lines up with an outer '{' line and not
	 * with the one it closes: that one is likely the '{' left open */
	bool misaligned;
	struct kopt_loc left_open; /* where that '{' is */
	int first_line, first_col; /* the line of the last token, and its first token's column */
	/* the last four tokens, newest first (a syntax error looks for
	 * `10 minutes` just before its lookahead) */
	struct lang_tok {
		struct kopt_loc loc;
		char text[48];
	} hist[4];
	struct ast_stmt *stmts;  /* the file, statement by statement */
	size_t nstmts, cap;
};

/* Parses src into P->stmts, reporting every syntax error; returns 0, or -1
 * when there were errors (the statements that parsed are kept). */
int lang_parse(struct lang_parse *P, const char *src, size_t len);
void lang_parse_release(struct lang_parse *P);

/* lexer helpers shared with the parser */
const char *lang_unit_name(enum ast_unit u);
/* the unit a word after a number means (a unit's own name, or how units
 * are written elsewhere: "minutes" is "m"), or NULL */
const char *lang_unit_meant(const char *word);

/* ---- spec.c: parts of the checked spec ---- */
void lang_llm_release(struct kopt_llm *l);
void lang_variant_release(struct kopt_variant *v);
void lang_variant_copy(struct kopt_variant *dst, const struct kopt_variant *src);
void lang_shape_release(struct kopt_shape *s);
void lang_shape_copy(struct kopt_shape *dst, const struct kopt_shape *src);
void lang_device_release(struct kopt_device *d);
void lang_agents_release(struct kopt_agents *a);
void lang_model_release(struct kopt_model *m);
void lang_target_release(struct kopt_target *t);
/* shortest text that reads back as x */
void lang_fmt_num(struct strbuf *sb, double x);
/* a double-quoted string with escapes */
void lang_fmt_str(struct strbuf *sb, const char *s);

#endif
