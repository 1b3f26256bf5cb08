/*
 * rules/modelcheck.c: the model files read with Python's own parser, by
 * `-t check` and before a build's first step (the rule set's precheck
 * hook): a missing colon, an empty file or a file without get_inputs is
 * said in a second, at its file, line and column, instead of at capture
 * minutes later on a GPU.
 *
 * The reading is rules/modelcheck.py (what each kind of file needs), run
 * with the worker's interpreter (KOPT_PYTHON, else configure's PYTHON) as a
 * child process, `-I -S` (no site, no environment, no user folder): the
 * koptmake process loads no Python, and no model file runs. The build
 * embeds the script's text (rules/modelcheck.inc, made from the .py).
 *
 * A build checks only the files not checked before with this interpreter:
 * the cache's env file remembers, under "sources:checked", the hashes of
 * (CHECK_VERSION, interpreter, kind, file content) that passed, so a null
 * build starts no Python.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../engine/proc.h"
#include "modelcheck.h"
#include "plan.h"
#include "rules.h"

static const char check_py[] =
#include "rules/modelcheck.inc"
	;

#define CHECK_VERSION 1   /* bump when modelcheck.py passes or fails other files */
#define CHECK_WAIT_S 60   /* a reading that takes longer (and 10 ms a file) is given up */
#define CHECKED_KEY "sources:checked" /* in the env file: no device is named with a ':' */
#define CHECKED_MAX 131072 /* passes remembered at most */

extern char **environ;

/* whether the program py can be run: a path, or a name on PATH */
static bool runnable(const char *py)
{
	if (strchr(py, '/'))
		return access(py, X_OK) == 0;
	const char *path = getenv("PATH");
	char *dirs = xstrdup(path && *path ? path : "/usr/bin:/bin");
	bool found = false;
	for (char *save = NULL, *dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", py);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(dirs);
	return found;
}

const char *rule_python(char **why)
{
	const char *env = getenv("KOPT_PYTHON"), *py = env && *env ? env : KOPT_PYTHON;
	*why = NULL;
	if (!*py || strcmp(py, ":") == 0) {
		*why = xstrdup("no Python: configure found none; set KOPT_PYTHON to a Python with torch >= 2.6 and triton");
		return NULL;
	}
	if (runnable(py))
		return py;
	if (env && *env)
		*why = xasprintf("no Python at '%s' (KOPT_PYTHON names it): set KOPT_PYTHON to a Python with torch >= "
				 "2.6 and triton, or unset it for configure's ('%s')", py, KOPT_PYTHON);
	else
		*why = xasprintf("no Python at '%s' (configure's PYTHON): set KOPT_PYTHON to a Python with torch >= "
				 "2.6 and triton", py);
	return NULL;
}

/* reads out and err until both end, or wait seconds are up (-1) */
static int drain(int out, int err, struct strbuf *ob, struct strbuf *eb, double wait)
{
	struct pollfd p[2] = { { .fd = out, .events = POLLIN }, { .fd = err, .events = POLLIN } };
	double end = kopt_now() + wait;
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		double left = end - kopt_now();
		if (left <= 0)
			return -1;
		if (poll(p, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -1;
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			char buf[4096];
			ssize_t r = read(p[i].fd, buf, sizeof buf);
			if (r > 0)
				strbuf_add(i ? eb : ob, buf, (size_t)r);
			else if (r == 0 || (errno != EAGAIN && errno != EINTR))
				p[i].fd = -1;
		}
	}
	return 0;
}

/* the last line of text, at most 200 bytes */
static char *last_line(const char *text)
{
	size_t n = strlen(text);
	while (n && text[n - 1] == '\n')
		n--;
	size_t b = n;
	while (b && text[b - 1] != '\n')
		b--;
	return xstrndup(text + b, n - b > 200 ? 200 : n - b);
}

/* the word that declares a model of kind k */
static const char *decl_word(enum kopt_model_kind k)
{
	return k == KOPT_MODEL_TRITON ? "kernel" : k == KOPT_MODEL_HELION ? "helion" : "model";
}

/* modelcheck.py's lines, reported; returns how many problems */
static int report(const struct kopt_model *const *m, size_t n, const char *out, kopt_diag_fn *fn, void *ctx)
{
	int found = 0;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_t *j = json_loadb(p, len, 0, NULL);
		json_int_t i = json_integer_value(json_object_get(j, "i"));
		const char *msg = json_string_value(json_object_get(j, "msg"));
		if (msg && i >= 0 && (size_t)i < n) {
			const struct kopt_model *mm = m[i];
			int line = (int)json_integer_value(json_object_get(j, "line"));
			int col = (int)json_integer_value(json_object_get(j, "col"));
			int end = (int)json_integer_value(json_object_get(j, "end"));
			struct kopt_diag d = { KOPT_ERROR, { mm->path, line, col > 0 ? col : 1, line, end > col ? end : col },
					       msg };
			fn(ctx, &d);
			char *note = xasprintf("%s '%s' reads it", decl_word(mm->kind), mm->name);
			struct kopt_diag dn = { KOPT_NOTE, mm->loc, note };
			fn(ctx, &dn);
			free(note);
			found++;
		}
		json_decref(j);
		p += len + (nl ? 1 : 0);
	}
	return found;
}

int rule_check_models(const char *py, const struct kopt_model *const *models, size_t n, kopt_diag_fn *fn, void *ctx,
		      int *nerrors)
{
	*nerrors = 0;
	if (n == 0)
		return 0;
	const char *argv[] = { py, "-I", "-S", "-c", check_py, NULL };
	int in, out, err;
	pid_t pid = proc_start((char *const *)argv, environ, &in, &out, &err);
	if (pid < 0) {
		kopt_error("cannot read the model files: cannot start '%s': %s", py, strerror(errno));
		return 1;
	}
	/* the files on its stdin (a list of 40,000 does not fit in argv); it
	 * reads them all before it writes */
	struct strbuf list = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&list, lang_model_kind_names[models[i]->kind]);
		strbuf_addch(&list, '\0');
		strbuf_addstr(&list, models[i]->path);
		strbuf_addch(&list, '\0');
	}
	fcntl(in, F_SETFL, 0);
	void (*was)(int) = signal(SIGPIPE, SIG_IGN); /* a child that died: said below */
	kopt_write_all(in, list.buf, list.len);
	close(in);
	signal(SIGPIPE, was);
	strbuf_release(&list);
	struct strbuf ob = STRBUF_INIT, eb = STRBUF_INIT;
	bool late = drain(out, err, &ob, &eb, CHECK_WAIT_S + (double)n / 100) < 0;
	close(out);
	close(err);
	if (late)
		kill(-pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int status = 0;
	if (late || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char *tail = last_line(eb.buf ? eb.buf : "");
		kopt_error("cannot read the model files with '%s': %s", py,
			   late ? "it took too long" : *tail ? tail : "it failed");
		free(tail);
		status = 1;
	} else if ((*nerrors = report(models, n, ob.buf ? ob.buf : "", fn, ctx)) > 0) {
		status = 2;
	}
	strbuf_release(&ob);
	strbuf_release(&eb);
	return status;
}

/* the closing line of a check that found problems */
static void say_errors(int nerrors, const char *after)
{
	fprintf(stderr, "%s: %d error%s in the model files%s\n", kopt_progname, nerrors, kopt_plural(nerrors),
		after);
}

int rule_tool_check(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)o;
	(void)args;
	(void)nargs;
	char *why;
	const char *py = rule_python(&why);
	int st = 0, nerrors;
	if (!py) /* the spec stands; a build would say this as an error */
		kopt_warn("the model files are not read: %s", why);
	free(why);
	if (py) {
		const struct kopt_model **m = xcalloc(spec->nmodels + 1, sizeof *m);
		for (size_t i = 0; i < spec->nmodels; i++)
			m[i] = &spec->models[i];
		struct kopt_diag_printer pr;
		kopt_diag_printer_init(&pr, stderr);
		st = rule_check_models(py, m, spec->nmodels, kopt_diag_printer_print, &pr, &nerrors);
		kopt_diag_printer_release(&pr);
		free(m);
	}
	if (st == 2)
		say_errors(nerrors, "");
	if (st == 0)
		printf("%s: check: ok: %zu model%s, %zu target%s%s\n", kopt_progname, spec->nmodels,
		       kopt_plural(spec->nmodels), spec->ntargets, kopt_plural(spec->ntargets),
		       py ? "" : " (their files not read)");
	return st;
}

/* the key a file's passing is remembered by */
static void checked_hex(const char *py, const struct rule_model *dm, char *hex)
{
	struct hash_key k;
	hash_key_init(&k, "modelcheck", CHECK_VERSION);
	hash_key_str(&k, "python", py);
	hash_key_str(&k, "kind", lang_model_kind_names[dm->spec->kind]);
	hash_key_hash(&k, "file", dm->file_hash);
	hash_hex(hash_key_final(&k), hex);
	hash_key_release(&k);
}

int rule_precheck(struct dag *d)
{
	struct rule_plan *pl = d->plan;
	if (!pl || !pl->nmodels)
		return 0;
	char *why;
	const char *py = rule_python(&why);
	if (!py) {
		/* no worker can run either; -n runs none */
		if (d->opts->dry_run)
			kopt_warn("the model files are not read: %s", why);
		else
			kopt_error("%s", why);
		free(why);
		return d->opts->dry_run ? 0 : 1;
	}
	const json_t *old = cache_env_get(d->cache, CHECKED_KEY);
	const struct kopt_model **m = xcalloc(pl->nmodels + 1, sizeof *m);
	char (*hex)[HASH_HEX] = xcalloc(pl->nmodels + 1, sizeof *hex);
	size_t n = 0;
	for (size_t i = 0; i < pl->nmodels; i++) {
		const struct rule_model *dm = &pl->models[i];
		if (dm->file_error) /* its capture says why */
			continue;
		checked_hex(py, dm, hex[n]);
		if (!json_object_get(json_object_get(old, "passed"), hex[n]))
			m[n++] = dm->spec;
	}
	int st = 0, nerrors = 0;
	if (n) {
		struct kopt_diag_printer pr;
		kopt_diag_printer_init(&pr, stderr);
		st = rule_check_models(py, m, n, kopt_diag_printer_print, &pr, &nerrors);
		kopt_diag_printer_release(&pr);
		if (st == 2)
			say_errors(nerrors, "; nothing was run");
	}
	if (st == 0 && n && cache_exists(d->cache) && !d->opts->dry_run) { /* -n writes nothing */
		/* the passes so far and these; past CHECKED_MAX, these alone */
		json_t *was = json_object_get(old, "passed");
		json_t *set = json_object_size(was) + n <= CHECKED_MAX ? json_deep_copy(was) : NULL;
		if (!set)
			set = json_object();
		for (size_t i = 0; i < n; i++)
			json_object_set_new(set, hex[i], json_true());
		json_t *rec = json_pack("{s:o}", "passed", set);
		cache_env_set(d->cache, CHECKED_KEY, rec);
		json_decref(rec);
	}
	free(hex);
	free(m);
	return st;
}
