/*
 * lang/shape.c: the shapes a torch model is served at (kopt(5), SHAPES).
 *
 *     model m {
 *       source = "models/m.py"
 *       shape b1  { batch_size = 1 }
 *       shape b64 { batch_size = 64  seq_len = 512 }
 *     }
 *
 * A shape block sets module-level names of the model file (KernelBench
 * files make their inputs in get_inputs() from such constants); the worker
 * sets them after the model is made and before get_inputs() makes its
 * inputs (runtime/python/kopt/loader.py). A value is a plain number, a
 * string, true or false, or a list of them, kept as JSON text.
 *
 * Once the spec is read, each name a shape sets must be one the model file
 * assigns at its top level: the files are read by Python's own parser (the
 * ast module, no import of the model, no torch) in one child process for
 * all of them, and a name the file does not assign is an error at the
 * shape, with a did-you-mean from the file's names. A file Python cannot
 * parse is an error at its line and column. Where no Python runs (KOPT_PYTHON,
 * else configure's, else python3), a warning says the names go unchecked:
 * the capture then fails with the model's own error.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "load.h"
#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* how deep a value's lists may nest */
#define SHAPE_DEPTH 16

static bool py_name(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* a value as JSON text: whole numbers stay whole (Python gets an int), a
 * number written with a point or an exponent is a float */
static int value_json(struct loader *L, struct strbuf *sb, const char *name, const struct ast_value *x0, int depth)
{
	const struct ast_value *x = lang_deref(L, x0);
	char buf[64];
	if (!x)
		return -1;
	switch (x->kind) {
	case AST_NUM:
		if (x->unit != UNIT_NONE || !isfinite(x->num))
			break;
		if (x->is_int)
			strbuf_addf(sb, "%.0f", x->num);
		else
			strbuf_addf(sb, "%.17g%s", x->num, x->num == floor(x->num) && fabs(x->num) < 1e17 ? ".0" : "");
		return 0;
	case AST_STR: {
		json_t *s = json_string(x->str);
		char *t = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
		json_decref(s);
		if (!t)
			break;
		strbuf_addstr(sb, t);
		free(t);
		return 0;
	}
	case AST_BOOL:
		strbuf_addstr(sb, x->b ? "true" : "false");
		return 0;
	case AST_LIST:
		if (depth >= SHAPE_DEPTH)
			break;
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < x->nelems; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			if (value_json(L, sb, name, x->elems[i].value, depth + 1) < 0)
				return -1;
		}
		strbuf_addch(sb, ']');
		return 0;
	default:
		break;
	}
	lang_err(&L->D, &x0->loc, "'%s' in a shape wants a plain number, a string, true or false, or a list of them, not %s",
		 name, lang_what(x, buf));
	return -1;
}

void lang_do_shape(struct loader *L, const struct ast_field *it, struct vlist *vl)
{
	struct kopt_shape sh;
	memset(&sh, 0, sizeof sh);
	sh.name = xstrdup(it->name);
	sh.loc = it->block->loc;
	struct smap names = { 0 };
	for (size_t i = 0; i < it->block->n; i++) {
		const struct ast_field *f = &it->block->items[i];
		if (f->kind != FIELD_SET) {
			lang_err(&L->D, &f->block->loc, "a %s block is not allowed in a shape",
				 f->kind == FIELD_VARIANT ? "variant" : "shape");
			continue;
		}
		if (!py_name(f->name)) {
			lang_err(&L->D, &f->name_loc, "'%s' cannot be a name of a Python file (a shape sets the model "
				 "file's module-level names)", f->name);
			continue;
		}
		size_t *first = lang_smap_get(&names, f->name);
		if (first) {
			lang_err(&L->D, &f->name_loc, "duplicate field '%s'", f->name);
			lang_note(&L->D, &sh.set_loc[*first], "'%s' was first set here", f->name);
			continue;
		}
		struct ast_value *v = lang_eval(L, f->value);
		struct strbuf sb = STRBUF_INIT;
		if (!v || value_json(L, &sb, f->name, v, 0) < 0) {
			ast_value_free(v);
			strbuf_release(&sb);
			continue;
		}
		ast_value_free(v);
		sh.set = xrealloc(sh.set, (sh.nset + 1) * sizeof *sh.set);
		sh.set_loc = xrealloc(sh.set_loc, (sh.nset + 1) * sizeof *sh.set_loc);
		sh.set[sh.nset].key = xstrdup(f->name);
		sh.set[sh.nset].json = strbuf_detach(&sb);
		sh.set_loc[sh.nset] = f->name_loc;
		lang_smap_put(&names, sh.set[sh.nset].key, sh.nset);
		sh.nset++;
	}
	lang_smap_release(&names);
	for (size_t i = 0; i < vl->ns; i++)
		if (strcmp(vl->s[i].name, sh.name) == 0) {
			lang_err(&L->D, &it->name_loc, "duplicate shape '%s'", sh.name);
			lang_note(&L->D, &vl->s[i].loc, "'%s' was first defined here", sh.name);
			lang_shape_release(&sh);
			return;
		}
	vl->s = xgrow(vl->s, &vl->scap, vl->ns + 1, sizeof *vl->s);
	vl->s[vl->ns++] = sh;
}

/* ---- the model files' names, by Python's parser ---- */

/* Reads each file named in argv with ast (no import, no torch) and prints
 * one JSON line per file: {"names": [...]}, the names its top-level
 * statements assign (a = ..., a: T = ..., a, b = ...), or {"error": MSG,
 * "line": L, "col": C} where it does not parse. */
static const char py_script[] =
	"import ast, json, sys\n"
	"def names(t, out):\n"
	"    if isinstance(t, ast.Name): out.append(t.id)\n"
	"    elif isinstance(t, (ast.Tuple, ast.List)):\n"
	"        for e in t.elts: names(e, out)\n"
	"for path in sys.argv[1:]:\n"
	"    try:\n"
	"        with open(path, 'rb') as f: tree = ast.parse(f.read(), path)\n"
	"    except SyntaxError as e:\n"
	"        print(json.dumps({'error': e.msg, 'line': e.lineno or 0, 'col': e.offset or 0})); continue\n"
	"    except (OSError, ValueError) as e:\n"
	"        print(json.dumps({'error': str(e), 'line': 0, 'col': 0})); continue\n"
	"    out = []\n"
	"    for s in tree.body:\n"
	"        if isinstance(s, ast.Assign):\n"
	"            for t in s.targets: names(t, out)\n"
	"        elif isinstance(s, ast.AnnAssign) and s.value is not None: names(s.target, out)\n"
	"    print(json.dumps({'names': out}))\n";

static const char *python(void)
{
	const char *p = getenv("KOPT_PYTHON");
	if (p && *p)
		return p;
#ifdef KOPT_PYTHON
	if (*KOPT_PYTHON)
		return KOPT_PYTHON;
#endif
	return "python3";
}

/* Runs the script over files; fills *out (the child's stdout) and returns
 * 0, or -1 with *why (static or in out) when Python did not run it */
static int run_python(const char *const *files, size_t n, struct strbuf *out, const char **why)
{
	const char *py = python();
	int fd[2];
	if (pipe(fd) < 0) {
		*why = strerror(errno);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*why = strerror(errno);
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		const char **argv = xcalloc(n + 6, sizeof *argv);
		size_t a = 0;
		argv[a++] = py;
		argv[a++] = "-I"; /* neither the user's site nor PYTHON* variables */
		argv[a++] = "-S";
		argv[a++] = "-c";
		argv[a++] = py_script;
		for (size_t i = 0; i < n; i++)
			argv[a++] = files[i];
		int null = open("/dev/null", O_RDWR);
		kopt_fds_std(null, fd[1], null);
		close(fd[0]);
		KOPT_COVER_FLUSH();
		execvp(py, (char *const *)argv);
		KOPT_COVER_FLUSH();
		_exit(127);
	}
	close(fd[1]);
	char buf[4096];
	ssize_t r;
	while ((r = read(fd[0], buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		strbuf_add(out, buf, (size_t)r);
	}
	close(fd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "cannot run it" : "it failed";
		return -1;
	}
	return 0;
}

/* the file's line for model m's shapes: each name set must be one of its
 * names, else an error at the name with the nearest of them */
static void check_model(struct loader *L, const struct kopt_model *m, const json_t *line)
{
	json_t *err = json_object_get(line, "error");
	if (json_is_string(err)) {
		long ln = (long)json_integer_value(json_object_get(line, "line"));
		long col = (long)json_integer_value(json_object_get(line, "col"));
		struct kopt_loc at = { m->path, (int)ln, (int)(col > 0 ? col : 1), (int)ln, (int)(col > 0 ? col : 1) };
		/* at the file's line where Python names one, else at the first shape */
		lang_err(&L->D, ln > 0 ? &at : &m->shapes[0].loc, "Python cannot read the model file %s: %s (the "
			 "shapes of '%s' set its names)", m->path, json_string_value(err), m->name);
		return;
	}
	json_t *names = json_object_get(line, "names");
	size_t nn = json_array_size(names);
	const char **cands = xcalloc(nn + 1, sizeof *cands);
	for (size_t i = 0; i < nn; i++)
		cands[i] = json_string_value(json_array_get(names, i));
	for (size_t s = 0; s < m->nshapes; s++)
		for (size_t k = 0; k < m->shapes[s].nset; k++) {
			const char *want = m->shapes[s].set[k].key;
			size_t i;
			for (i = 0; i < nn && strcmp(cands[i] ? cands[i] : "", want) != 0; i++)
				;
			if (i < nn)
				continue;
			char *hint = lang_hint(want, cands, nn);
			lang_err(&L->D, &m->shapes[s].set_loc[k], "shape '%s' sets '%s', which %s does not assign at its "
				 "top level%s", m->shapes[s].name, want, m->path, hint);
			free(hint);
		}
	free(cands);
}

void lang_check_shapes(struct loader *L)
{
	const char **files = xcalloc(L->nmodels + 1, sizeof *files);
	size_t *of = xcalloc(L->nmodels + 1, sizeof *of);
	size_t n = 0;
	for (size_t i = 0; i < L->nmodels; i++) {
		const struct kopt_model *m = &L->models[i];
		size_t set = 0;
		for (size_t s = 0; s < m->nshapes; s++)
			set += m->shapes[s].nset;
		if (m->kind == KOPT_MODEL_TORCH && set && m->path) {
			of[n] = i;
			files[n++] = m->path;
		}
	}
	struct strbuf out = STRBUF_INIT;
	const char *why = NULL;
	if (n && run_python(files, n, &out, &why) < 0) {
		kopt_warn("the names that shapes set are not checked: Python (%s) %s; a shape the model file cannot "
			  "take fails its capture", python(), why);
		n = 0;
	}
	const char *p = out.buf;
	for (size_t i = 0; i < n; i++) {
		const char *e = p ? strchr(p, '\n') : NULL;
		json_t *line = e ? json_loadb(p, (size_t)(e - p), 0, NULL) : NULL;
		if (line)
			check_model(L, &L->models[of[i]], line);
		json_decref(line);
		p = e ? e + 1 : NULL;
	}
	strbuf_release(&out);
	free(files);
	free(of);
}
