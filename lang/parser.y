/*
 * lang/parser.y: the grammar of the spec language (kopt(5)).
 *
 * A pure parser with locations over the reentrant scanner in lexer.l. Each
 * statement is appended to the parse state as soon as it is reduced, so the
 * statements that parsed survive a syntax error later in the file. Error
 * rules at the statement and the field level let the parser resynchronise
 * and report every syntax error of a file; a few rules catch common
 * mistakes and say what was meant.
 */
%code requires {
#include "ast.h"
}

%code top {
#include <stdlib.h>
#include <string.h>
}

%code {
int lang_yylex(LANG_YYSTYPE *val, struct kopt_loc *loc, void *scanner);
static void lang_yyerror(const struct kopt_loc *loc, void *scanner, struct lang_parse *P, const char *msg);
static void add_stmt(struct lang_parse *P, enum ast_stmt_kind kind, const struct kopt_loc *loc,
		     char *name, const struct kopt_loc *name_loc, struct ast_value *value, struct ast_block *block);
static void unknown_decl(struct lang_parse *P, const struct kopt_loc *loc, const char *word);
static char *map_key(struct lang_parse *P, struct ast_value *v);

#define YYLLOC_DEFAULT(Cur, Rhs, N) do {                                   \
	if (N) {                                                           \
		(Cur).file = YYRHSLOC(Rhs, 1).file;                        \
		(Cur).line = YYRHSLOC(Rhs, 1).line;                        \
		(Cur).col = YYRHSLOC(Rhs, 1).col;                          \
		(Cur).end_line = YYRHSLOC(Rhs, N).end_line;                \
		(Cur).end_col = YYRHSLOC(Rhs, N).end_col;                  \
	} else {                                                           \
		(Cur) = YYRHSLOC(Rhs, 0);                                  \
		(Cur).line = (Cur).end_line;                               \
		(Cur).col = (Cur).end_col;                                 \
	}                                                                  \
} while (0)

/* nesting deeper than this is refused ("nesting is too deep") */
#define YYMAXDEPTH 1000
}

%define api.pure full
%define api.prefix {lang_yy}
%define api.location.type {struct kopt_loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {struct lang_parse *P}

%initial-action {
	@$.file = P->file;
	@$.line = @$.end_line = 1;
	@$.col = @$.end_col = 1;
}

%union {
	char *str;
	struct ast_value *val;
	struct ast_block *block;
	struct ast_field field;
}

%token <val> STRING "string" NUMBER "number"
%token <str> WORD "name"
%token <str> INCLUDE "include" DEVICE "device" AGENTS "agents" GATES "gates"
%token <str> DEFAULTS "defaults" MODEL "model" MODELS "models" KERNEL "kernel"
%token <str> HELION "helion" TARGET "target" DEFAULT "default" VARIANT "variant"
%token <str> TRUE "true" FALSE "false"
%token INVALID "invalid text" /* reported by the lexer already */

%type <str> name
%type <val> value list list_items args arg_items map
%type <block> block opt_block items
%type <field> item arg entry

%destructor { free($$); } <str>
%destructor { ast_value_free($$); } <val>
%destructor { ast_block_free($$); } <block>
%destructor { ast_field_release(&$$); } <field>

%%

file:
  %empty
| file stmt
| file error
;

stmt:
  WORD '=' value                  { add_stmt(P, STMT_VAR, &@1, $1, &@1, $3, NULL); }
| INCLUDE STRING                  { free($1); add_stmt(P, STMT_INCLUDE, &@1, NULL, &@2, $2, NULL); }
| DEVICE name block               { free($1); add_stmt(P, STMT_DEVICE, &@1, $2, &@2, NULL, $3); }
| AGENTS name block               { free($1); add_stmt(P, STMT_AGENTS, &@1, $2, &@2, NULL, $3); }
| GATES name block                { free($1); add_stmt(P, STMT_GATES, &@1, $2, &@2, NULL, $3); }
| DEFAULTS block                  { free($1); add_stmt(P, STMT_DEFAULTS, &@1, NULL, &@1, NULL, $2); }
| MODEL name block                { free($1); add_stmt(P, STMT_MODEL, &@1, $2, &@2, NULL, $3); }
| MODELS name '=' value opt_block { free($1); add_stmt(P, STMT_MODELS, &@1, $2, &@2, $4, $5); }
| KERNEL name block               { free($1); add_stmt(P, STMT_KERNEL, &@1, $2, &@2, NULL, $3); }
| HELION name block               { free($1); add_stmt(P, STMT_HELION, &@1, $2, &@2, NULL, $3); }
| TARGET name '=' value           { free($1); add_stmt(P, STMT_TARGET, &@1, $2, &@2, $4, NULL); }
| DEFAULT name                    { free($1); add_stmt(P, STMT_DEFAULT, &@1, $2, &@2, NULL, NULL); }
| ';'
| WORD name block                 { unknown_decl(P, &@1, $1); free($1); free($2); ast_block_free($3); }
| WORD name '=' value opt_block   { unknown_decl(P, &@1, $1); free($1); free($2); ast_value_free($4); ast_block_free($5); }
| WORD STRING                     { unknown_decl(P, &@1, $1); free($1); ast_value_free($2); }
;

name:
  WORD | INCLUDE | DEVICE | AGENTS | GATES | DEFAULTS | MODEL | MODELS
| KERNEL | HELION | TARGET | DEFAULT | VARIANT
;

opt_block:
  %empty                          { $$ = NULL; }
| block
;

block:
  '{' items '}'                   { $$ = $2; $$->loc = @1; }
;

items:
  %empty                          { $$ = ast_block_new(NULL); }
| items item                      { $$ = $1; ast_block_add($$, &$2); }
| items ';'                       { $$ = $1; }
| items error                     { $$ = $1; $$->had_error = true; }
;

item:
  name '=' value {
	memset(&$$, 0, sizeof $$);
	$$.kind = FIELD_SET;
	$$.name = $1;
	$$.name_loc = @1;
	$$.value = $3;
  }
| VARIANT name block {
	free($1);
	memset(&$$, 0, sizeof $$);
	$$.kind = FIELD_VARIANT;
	$$.name = $2;
	$$.name_loc = @2;
	$$.block = $3;
	$$.block->loc = @1;
  }
| WORD name block {
	/* `shape` is a word only here, not a keyword: it names nothing else */
	memset(&$$, 0, sizeof $$);
	if (strcmp($1, "shape") != 0) {
		lang_err(P->D, &@1, "unknown block '%s' (blocks inside a declaration are 'variant NAME { ... }' and "
			 "'shape NAME { ... }')", $1);
		free($1);
		free($2);
		ast_block_free($3);
		YYERROR;
	}
	free($1);
	$$.kind = FIELD_SHAPE;
	$$.name = $2;
	$$.name_loc = @2;
	$$.block = $3;
	$$.block->loc = @1;
  }
;

value:
  STRING
| NUMBER
| TRUE                            { free($1); $$ = ast_value_new(AST_BOOL, &@1); $$->b = true; }
| FALSE                           { free($1); $$ = ast_value_new(AST_BOOL, &@1); $$->b = false; }
| name                            { $$ = ast_value_new(AST_NAME, &@1); $$->str = $1; }
| '[' list ']'                    { $$ = $2; $$->loc = @$; }
| name '(' args ')'               { $$ = $3; $$->str = $1; $$->loc = @$; }
| '{' map '}'                     { $$ = $2; $$->loc = @$; }
;

list:
  %empty                          { $$ = ast_value_new(AST_LIST, NULL); }
| list_items
| list_items ','
;

list_items:
  value                           { $$ = ast_value_new(AST_LIST, NULL); ast_elem_add($$, NULL, NULL, $1); }
| list_items ',' value            { $$ = $1; ast_elem_add($$, NULL, NULL, $3); }
;

args:
  %empty                          { $$ = ast_value_new(AST_CALL, NULL); }
| arg_items
| arg_items ','
;

arg_items:
  arg                             { $$ = ast_value_new(AST_CALL, NULL); ast_elem_add($$, $1.name, &$1.name_loc, $1.value); }
| arg_items ',' arg               { $$ = $1; ast_elem_add($$, $3.name, &$3.name_loc, $3.value); }
;

arg:
  value                           { memset(&$$, 0, sizeof $$); $$.value = $1; $$.name_loc = @1; }
| name '=' value                  { memset(&$$, 0, sizeof $$); $$.name = $1; $$.name_loc = @1; $$.value = $3; }
;

map:
  %empty                          { $$ = ast_value_new(AST_MAP, NULL); }
| map entry                       { $$ = $1; ast_elem_add($$, $2.name, &$2.name_loc, $2.value); }
| map ';'
| map ','
;

entry:
  name '=' value                  { memset(&$$, 0, sizeof $$); $$.name = $1; $$.name_loc = @1; $$.value = $3; }
| STRING '=' value                { memset(&$$, 0, sizeof $$); $$.name = map_key(P, $1); $$.name_loc = @1; $$.value = $3; }
;

%%

static void add_stmt(struct lang_parse *P, enum ast_stmt_kind kind, const struct kopt_loc *loc,
		     char *name, const struct kopt_loc *name_loc, struct ast_value *value, struct ast_block *block)
{
	P->stmts = xgrow(P->stmts, &P->cap, P->nstmts + 1, sizeof *P->stmts);
	struct ast_stmt *s = &P->stmts[P->nstmts++];
	memset(s, 0, sizeof *s);
	/* errors since the previous statement happened in this one */
	s->had_error = P->D->nerrors != P->errors_seen;
	P->errors_seen = P->D->nerrors;
	s->kind = kind;
	s->loc = *loc;
	s->name = name;
	s->name_loc = *name_loc;
	s->value = value;
	s->block = block;
}

static const char *const decl_words[] = {
	"include", "device", "agents", "gates", "defaults", "model", "models",
	"kernel", "helion", "target", "default",
};

static void unknown_decl(struct lang_parse *P, const struct kopt_loc *loc, const char *word)
{
	char *hint = lang_hint(word, decl_words, sizeof decl_words / sizeof decl_words[0]);
	lang_err(P->D, loc, "unknown declaration '%s'%s", word, hint);
	free(hint);
}

/* a quoted map key: its text; ${VAR} is not expanded in keys */
static char *map_key(struct lang_parse *P, struct ast_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < v->nparts; i++) {
		if (v->parts[i].is_var) {
			lang_err(P->D, &v->parts[i].loc, "a map key cannot use '${%s}'", v->parts[i].text);
			continue;
		}
		strbuf_addstr(&sb, v->parts[i].text);
	}
	ast_value_free(v);
	return strbuf_detach(&sb);
}

static void lang_yyerror(const struct kopt_loc *loc, void *scanner, struct lang_parse *P, const char *msg)
{
	(void)scanner;
	if (strstr(msg, "exhausted"))
		lang_err(P->D, loc, "nesting is too deep");
	else
		lang_err(P->D, loc, "%s", msg);
}

static bool is_name_token(yysymbol_kind_t k)
{
	switch (k) {
	case YYSYMBOL_WORD: case YYSYMBOL_INCLUDE: case YYSYMBOL_DEVICE: case YYSYMBOL_AGENTS:
	case YYSYMBOL_GATES: case YYSYMBOL_DEFAULTS: case YYSYMBOL_MODEL: case YYSYMBOL_MODELS:
	case YYSYMBOL_KERNEL: case YYSYMBOL_HELION: case YYSYMBOL_TARGET: case YYSYMBOL_DEFAULT:
	case YYSYMBOL_VARIANT:
		return true;
	default:
		return false;
	}
}

static void describe(struct strbuf *sb, yysymbol_kind_t k, const struct lang_parse *P)
{
	switch (k) {
	case YYSYMBOL_YYEOF: strbuf_addstr(sb, "end of file"); break;
	case YYSYMBOL_STRING: strbuf_addstr(sb, "string"); break;
	case YYSYMBOL_NUMBER: strbuf_addf(sb, "number '%s'", P->tok); break;
	case YYSYMBOL_WORD: strbuf_addf(sb, "name '%s'", P->tok); break;
	default:
		if (is_name_token(k) || k == YYSYMBOL_TRUE || k == YYSYMBOL_FALSE)
			strbuf_addf(sb, "'%s'", P->tok);
		else
			strbuf_addstr(sb, yysymbol_name(k));
	}
}

/* w, a unit's word, and the number before it on its line: said */
static bool spaced_unit_at(struct lang_parse *P, const struct lang_tok *w)
{
	const struct lang_tok *num = w + 1;
	const char *unit = lang_unit_meant(w->text);
	const char *t = num->text + (num->text[0] == '-');
	if (!unit || w->loc.line != num->loc.line || !(*t >= '0' && *t <= '9') ||
	    strspn(num->text, "0123456789.eE+-") != strlen(num->text))
		return false;
	struct kopt_loc at = num->loc;
	at.end_line = w->loc.end_line;
	at.end_col = w->loc.end_col;
	lang_err(P->D, &at, "'%s %s': a number and its unit are written together (did you mean '%s%s'?)", num->text,
		 w->text, num->text, unit);
	return true;
}

/* "10 minutes" just before the lookahead, or before the name before it
 * ("10 minutes launcher =" reads as a block named launcher): a number and
 * a unit written apart (a field's name after a number is followed by
 * '='); the error is the two words' */
static bool spaced_unit(struct lang_parse *P, yysymbol_kind_t look)
{
	int i = look == YYSYMBOL_YYEOF ? 0 : 1;
	for (; i <= 2; i++)
		if (spaced_unit_at(P, &P->hist[i]))
			return true;
	return false;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct lang_parse *P)
{
	(void)scanner;
	struct strbuf sb = STRBUF_INIT;
	yysymbol_kind_t look = yypcontext_token(ctx);
	if (look == YYSYMBOL_INVALID)
		return 0; /* the lexer said what is wrong with it */
	strbuf_addstr(&sb, "syntax error");
	if (look != YYSYMBOL_YYEMPTY) {
		strbuf_addstr(&sb, ": unexpected ");
		describe(&sb, look, P);
	}
	yysymbol_kind_t exp[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
	bool has[YYNTOKENS] = { false }, equals = false, close = false;
	for (int i = 0; i < n; i++) {
		if (exp[i] >= 0 && exp[i] < YYNTOKENS)
			has[exp[i]] = true;
		if (strcmp(yysymbol_name(exp[i]), "'='") == 0)
			equals = true;
		if (strcmp(yysymbol_name(exp[i]), "'}'") == 0)
			close = true;
	}
	/* name the classes of tokens, not their members */
	const char *phrase = NULL;
	bool drop_names = has[YYSYMBOL_WORD], drop_values = false, drop_ends = false;
	if (has[YYSYMBOL_NUMBER]) {
		phrase = "a value";
		drop_values = true;
	} else if (has[YYSYMBOL_WORD] && has[YYSYMBOL_YYEOF]) {
		phrase = "a declaration";
		drop_ends = true;
	} else if (has[YYSYMBOL_WORD] && !equals) {
		phrase = has[YYSYMBOL_VARIANT] && close ? "a field" : "a name";
	}
	const char *phrases[YYNTOKENS + 1];
	int np = 0;
	if (phrase)
		phrases[np++] = phrase;
	for (int i = 0; i < n; i++) {
		yysymbol_kind_t k = exp[i];
		const char *name = yysymbol_name(k);
		if (drop_names && is_name_token(k))
			continue;
		if (drop_values && (k == YYSYMBOL_STRING || k == YYSYMBOL_NUMBER || k == YYSYMBOL_TRUE ||
				    k == YYSYMBOL_FALSE || !strcmp(name, "'['") || !strcmp(name, "'{'")))
			continue;
		if (drop_ends && (k == YYSYMBOL_YYEOF || !strcmp(name, "';'")))
			continue;
		if (k == YYSYMBOL_YYerror || k == YYSYMBOL_INVALID)
			continue;
		phrases[np++] = name;
	}
	/* a '}' missing was said already: the end of the file wanting one is
	 * the same mistake */
	if (look == YYSYMBOL_YYEOF && close && P->noted) {
		strbuf_release(&sb);
		return 0;
	}
	if (look != YYSYMBOL_YYEMPTY && spaced_unit(P, look)) {
		strbuf_release(&sb);
		return 0;
	}
	if (np > 0 && np <= 5) {
		strbuf_addstr(&sb, ", expecting ");
		for (int i = 0; i < np; i++) {
			if (i)
				strbuf_addstr(&sb, i == np - 1 ? " or " : ", ");
			strbuf_addstr(&sb, phrases[i]);
		}
	}
	lang_err(P->D, yypcontext_location(ctx), "%s", sb.buf);
	strbuf_release(&sb);
	/* a '}' missing: the error comes where the next declaration or the end
	 * is met; the note goes to the '{' left open */
	const struct kopt_loc *at = yypcontext_location(ctx);
	if (P->nopen > 0 && !P->noted && (look == YYSYMBOL_YYEOF || (P->decl_line && at->line == P->decl_line))) {
		/* the one a '}' lined up with an outer line passed over, else the innermost */
		const struct kopt_loc *o = P->misaligned ? &P->left_open : &P->open[P->nopen <= 16 ? P->nopen - 1 : 15];
		if (look == YYSYMBOL_YYEOF)
			lang_note(P->D, o, "this '{' is not closed before the end of the file");
		else
			lang_note(P->D, o, "this '{' is not closed before the declaration on line %d", P->decl_line);
		P->noted = true;
	}
	return 0;
}

/* from lexer.l */
int lang_yylex_init_extra(struct lang_parse *extra, void **scanner);
int lang_yylex_destroy(void *scanner);
void *lang_yy_scan_bytes(const char *bytes, int len, void *scanner);

int lang_parse(struct lang_parse *P, const char *src, size_t len)
{
	void *scanner;
	int before = P->D->nerrors;
	if (len > (size_t)1 << 30) {
		struct kopt_loc loc = { P->file, 0, 0, 0, 0 };
		lang_err(P->D, &loc, "file is too large");
		return -1;
	}
	P->line = P->col = 1;
	P->prev_end_col = 1;
	P->tok[0] = '\0';
	P->errors_seen = P->D->nerrors;
	if (lang_yylex_init_extra(P, &scanner))
		kopt_die("out of memory starting the lexer");
	lang_yy_scan_bytes(src, (int)len, scanner);
	int r = lang_yyparse(scanner, P);
	lang_yylex_destroy(scanner);
	return r == 0 && P->D->nerrors == before ? 0 : -1;
}
