/*
 * tests/unit/slurm_test.c: engine/slurm.c without a cluster. Slurm's
 * reasons are read from srun stderr recorded on a real Slurm
 * (tests/fixtures/slurm/), and a line with only the start of one is
 * none; the srun line koptmake builds; whether sinfo's GRES says GPUs
 * (a TEST DOUBLE of sinfo); and the end of a
 * step whose srun ignores SIGTERM, with TEST DOUBLES of squeue and scancel
 * (shell scripts written here) that record how they are called.
 */
#define _GNU_SOURCE
#include <config.h>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../engine/slurm.h"
#include "../tap.h"

/* the fixture's lines less its comment, as the pool keeps them: the last
 * 8, '\n'-separated */
static char *tail_of(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *p = xasprintf("%s/tests/fixtures/slurm/%s", top ? top : "..", name);
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	strbuf_init(&sb);
	strbuf_init(&out);
	if (strbuf_read_file(&sb, p) < 0)
		tap_diag("cannot read %s", p);
	free(p);
	char *lines[64];
	int n = 0;
	char *save = NULL;
	for (char *l = strtok_r(sb.buf, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#')
			lines[n++] = l;
	for (int i = n > 8 ? n - 8 : 0; i < n; i++) {
		if (out.len)
			strbuf_addch(&out, '\n');
		strbuf_addstr(&out, lines[i]);
	}
	strbuf_release(&sb);
	return strbuf_detach(&out);
}

static void reason_is(const char *fixture, const char *want)
{
	char *tail = tail_of(fixture);
	char *got = slurm_reason(tail);
	char *name = xasprintf("reason of %s", fixture);
	TAP_IS_STR(got, want, name);
	free(name);
	free(got);
	free(tail);
}

/* a line holding only the start of one of Slurm's messages, then
 * something else ("Node failure: ..." from a worker's own traceback): no
 * reason, whatever the length of the part that matches */
static void test_partial_reasons(void)
{
	static const char *const msgs[] = { "Node failure on ", "Unable to allocate resources: ",
					    "Unable to create step for job ", "kopt1: task 0: Out Of Memory",
					    "kopt1: task 0: Killed" };
	int bad = 0;
	char first[128] = "";
	for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++)
		for (size_t len = 1; len < strlen(msgs[m]); len++) {
			char *line = xasprintf("srun: error: %.*s#kopt2\nsrun: done\n", (int)len, msgs[m]);
			char *r = slurm_reason(line);
			if (r && !bad++)
				snprintf(first, sizeof first, "'%.*s#' read as '%s'", (int)len, msgs[m], r);
			free(r);
			free(line);
		}
	TAP_OK(bad == 0, "a line with only the start of a Slurm message is no reason (%d were: %s)", bad, first);
}

static void test_reasons(void)
{
	reason_is("step-cancelled.txt", "Slurm cancelled job step 3.0 on kopt1");
	reason_is("job-cancelled.txt", "Slurm cancelled job step 4.0 on kopt1");
	reason_is("time-limit.txt", "Slurm ended job step 9.0 on kopt1 at its time limit");
	reason_is("node-failure.txt", "Slurm lost node kopt1 (node failure)");
	reason_is("node-failure-step.txt", "Slurm lost node kopt1 (node failure); job step 7.0 cancelled");
	reason_is("unavailable.txt",
		  "Slurm cannot allocate the worker's job: Requested node configuration is not available");
	reason_is("srun-terminated.txt", "Slurm cancelled job step 5.0 on kopt1");
	char *r = slurm_reason("sim-worker: verify softmax\nTraceback (most recent call last):\nValueError: x");
	TAP_OK(r == NULL, "a worker's own stderr has no Slurm reason");
	free(r);
	r = slurm_reason("slurmstepd-n3: error: *** JOB 88 ON n3 CANCELLED AT 2026-12-01T10:00:00 DUE TO PREEMPTION ***\n"
			 "slurmstepd-n3: error: *** STEP 88.2 ON n3 CANCELLED AT 2026-12-01T10:00:00 ***");
	TAP_IS_STR(r, "Slurm preempted job 88 on n3", "a cause beats a later bare cancellation");
	free(r);
	r = slurm_reason("slurmstepd-n3: error: *** JOB 88 ON n3 CANCELLED AT 2026-12-01T10:00:00 DUE TO JOB REQUEUE ***");
	TAP_IS_STR(r, "Slurm cancelled job 88 on n3 (due to job requeue)", "another cause, in Slurm's words");
	free(r);
	/* srun's own line when slurmstepd's did not reach it (a loaded machine, after scancel) */
	r = slurm_reason("srun: error: kopt1: task 0: Killed\n");
	TAP_IS_STR(r, "Slurm killed the worker's step (scancel, a time limit or a lost node)", "a killed task alone");
	free(r);
	r = slurm_reason("srun: error: kopt1: task 0: Killed\n"
			 "slurmstepd-kopt1: error: *** STEP 3.0 ON kopt1 CANCELLED AT 2026-12-01T10:00:00 ***\n");
	TAP_IS_STR(r, "Slurm cancelled job step 3.0 on kopt1", "slurmstepd's line beats srun's when both came");
	free(r);
	/* a reason taken from a line that is not the tail's last: its text
	 * to the line's end, not the newline */
	r = slurm_reason("srun: error: Unable to allocate resources: Invalid partition name specified\nsrun: done\n");
	TAP_IS_STR(r, "Slurm cannot allocate the worker's job: Invalid partition name specified",
		   "an allocation refused, on a line before another: its words to the line's end");
	free(r);
	r = slurm_reason("srun: error: Node failure on kopt2\nsrun: done\n");
	TAP_IS_STR(r, "Slurm lost node kopt2 (node failure)", "a node failure, on a line before another: the node's name");
	free(r);
	r = slurm_reason("srun: error: Unable to create step for job 1234: Job/step already completing or completed\n"
			 "srun: done\n");
	TAP_IS_STR(r, "Slurm cannot create the worker's step in job 1234: Job/step already completing or completed",
		   "a step refused in its job: the job and Slurm's words, to the line's end");
	free(r);
	r = slurm_reason("srun: error: kopt1: task 0: Out Of Memory\n");
	TAP_IS_STR(r, "Slurm killed the worker's step: out of memory", "the step's task out of memory");
	free(r);
	test_partial_reasons();
}

static int count(char **v)
{
	int n = 0;
	while (v[n])
		n++;
	return n;
}

static char *joined(char **v)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb);
	for (int i = 0; v[i]; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, v[i]);
	}
	return strbuf_detach(&sb);
}

static void test_argv(void)
{
	char *plain[] = { "srun" };
	char *full[] = { "/opt/slurm/bin/srun", "-J", "mine", "-n", "1", "--overlap", "--gres=gpu:h200:1", "-p", "gpu" };
	char *other[] = { "ssh", "host" };
	TAP_OK(slurm_is_srun(plain, 1) && slurm_is_srun(full, 9) && !slurm_is_srun(other, 2),
	       "srun is known by its last path component");
	char **v = slurm_worker_argv(plain, 1, "/x/kopt-worker", "koptmake.w3.77", true);
	char *s = joined(v);
	TAP_IS_STR(s, "srun --job-name=koptmake.w3.77 --ntasks=1 --exact --gres=gpu:1 /x/kopt-worker",
		   "a bare srun gets a name, one task, --exact and a GPU");
	free(s);
	slurm_argv_free(v);
	v = slurm_worker_argv(full, 9, "w", "koptmake.w0.1", false);
	s = joined(v);
	TAP_IS_STR(s, "/opt/slurm/bin/srun -J mine -n 1 --overlap --gres=gpu:h200:1 -p gpu w",
		   "what the launcher says itself is left as it is");
	TAP_IS_INT(count(v), 10, "nothing added");
	free(s);
	slurm_argv_free(v);
	TAP_OK(!slurm_wants_gres(full, 9), "a launcher that asks for GPUs gets no --gres added");
	TAP_OK(!slurm_wants_gres(other, 2), "not srun: no GRES");
	/* short options glued to their values, long ones with "=": the
	 * launcher's own; an option that only begins like one is another */
	char *glued[] = { "srun", "-Jmine", "-n1", "--exclusive", "-G1" };
	v = slurm_worker_argv(glued, 5, "w", "koptmake.w0.1", false);
	s = joined(v);
	TAP_IS_STR(s, "srun -Jmine -n1 --exclusive -G1 w", "-Jmine, -n1 and --exclusive are the launcher's: nothing added");
	free(s);
	slurm_argv_free(v);
	TAP_OK(!slurm_wants_gres(glued, 5), "-G1 asks for GPUs: no --gres added");
	char *longer[] = { "srun", "--job-name=mine", "--ntasks-per-node=1", "--exactly", "--gpus=2" };
	v = slurm_worker_argv(longer, 5, "w", "koptmake.w0.1", false);
	s = joined(v);
	TAP_IS_STR(s, "srun --ntasks=1 --exact --job-name=mine --ntasks-per-node=1 --exactly --gpus=2 w",
		   "--job-name=V is the launcher's; --ntasks-per-node and --exactly are other options");
	free(s);
	slurm_argv_free(v);
	TAP_OK(!slurm_wants_gres(longer, 5), "--gpus=2 asks for GPUs: no --gres added");
}

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(body, f);
		fclose(f);
	}
	chmod(path, 0755);
}

/* an srun that ignores SIGTERM: killed after the grace time, and its step
 * cancelled through squeue and scancel by name */
static void test_end(void)
{
	char dir[] = "/tmp/kopt-slurm-test-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *log = xasprintf("%s/calls", dir), *squeue = xasprintf("%s/squeue", dir);
	char *scancel = xasprintf("%s/scancel", dir), *srun = xasprintf("%s/srun", dir);
	char *body = xasprintf("#!/bin/sh\necho \"squeue $*\" >>%s\nprintf '41.0 other\\n41.2 koptmake.w1.5\\n'\n", log);
	write_script(squeue, body);
	free(body);
	body = xasprintf("#!/bin/sh\necho \"scancel $*\" >>%s\n", log);
	write_script(scancel, body);
	free(body);
	int ready[2];
	if (pipe(ready) < 0) {
		TAP_OK(0, "pipe");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGTERM, SIG_IGN);
		ssize_t w = write(ready[1], "x", 1);
		(void)w;
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	char c;
	ssize_t rd = read(ready[0], &c, 1); /* deaf to SIGTERM from here on */
	(void)rd;
	close(ready[0]);
	close(ready[1]);
	double t0 = kopt_now();
	int st = slurm_end(pid, "koptmake.w1.5", srun, kopt_now() + 0.3);
	double took = kopt_now() - t0;
	TAP_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "an srun deaf to SIGTERM is killed");
	TAP_OK(took >= 0.3 && took < 5, "after the grace time (%.2fs)", took);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb);
	strbuf_read_file(&sb, log);
	char uid[64];
	snprintf(uid, sizeof uid, "--user=%ld", (long)getuid());
	char *want = xasprintf("squeue --noheader --steps %s --format=%%i %%j\nscancel --quiet 41.2\n"
			       "scancel --quiet %s --name=koptmake.w1.5\n", uid, uid);
	TAP_IS_STR(sb.buf, want, "its step and job are cancelled by name, the other step left alone");
	free(want);
	strbuf_release(&sb);
	unlink(log);
	unlink(squeue);
	unlink(scancel);
	rmdir(dir);
	free(log);
	free(squeue);
	free(scancel);
	free(srun);

	/* an srun that ends on SIGTERM is not waited for */
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	t0 = kopt_now();
	st = slurm_end(pid, "koptmake.w0.5", "/nonexistent/srun", kopt_now() + 5);
	TAP_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && kopt_now() - t0 < 2, "srun that ends on SIGTERM: no wait");
}

/* the partition srun names, in each form srun takes it, is the one whose
 * GPUs sinfo is asked about: "-p V", "-pV", "--partition=V",
 * "--partition V" (a fake sinfo beside the srun: GPUs on gpu alone) */
static void test_gres_partition(void)
{
	char dir[] = "/tmp/kopt-slurm-part-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *log = xasprintf("%s/calls", dir), *sinfo = xasprintf("%s/sinfo", dir), *srun = xasprintf("%s/srun", dir);
	char *body = xasprintf("#!/bin/sh\necho \"$*\" >>%s\ncase \"$*\" in *--partition=gpu) echo 'gpu:h200:8(S:0-1)' ;; "
			       "*) echo '(null)' ;; esac\n", log);
	write_script(sinfo, body);
	free(body);
	static const struct { const char *a[3]; int n; bool gres; const char *asked; } cases[] = {
		{ { "-p", "gpu" }, 2, true, "--partition=gpu" }, { { "-pgpu" }, 1, true, "--partition=gpu" },
		{ { "--partition=gpu" }, 1, true, "--partition=gpu" }, { { "--partition", "gpu" }, 2, true, "--partition=gpu" },
		{ { "-pcpu" }, 1, false, "--partition=cpu" }, { { "--partition=cpu" }, 1, false, "--partition=cpu" },
		{ { "-J", "x" }, 2, false, "--format=%G" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *argv[4] = { srun };
		for (int k = 0; k < cases[i].n; k++)
			argv[k + 1] = (char *)cases[i].a[k];
		unlink(log);
		bool g = slurm_wants_gres(argv, cases[i].n + 1);
		struct strbuf sb = STRBUF_INIT;
		strbuf_init(&sb);
		strbuf_read_file(&sb, log);
		size_t al = strlen(cases[i].asked);
		bool asked = sb.len > al && !strncmp(sb.buf + sb.len - al - 1, cases[i].asked, al);
		if (g == cases[i].gres && asked)
			right++;
		else
			tap_diag("srun %s %s: gres %d, sinfo asked '%s'", cases[i].a[0], cases[i].n > 1 ? cases[i].a[1] : "", g,
				 sb.buf);
		strbuf_release(&sb);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases), "the partition srun names (-p V, -pV, --partition=V, "
		   "--partition V) is the one sinfo is asked about for GPUs");
	unlink(log);
	unlink(sinfo);
	rmdir(dir);
	free(log);
	free(sinfo);
	free(srun);
}

/* what sinfo's GRES column (--format=%G, one line a node group) says
 * about GPUs: a "gpu" entry with a count, a type or neither, first on its
 * line or after a comma, on any line, the last with or without its
 * newline; a name that only holds "gpu", or none at all, is not one (a
 * TEST DOUBLE of sinfo prints each output) */
static void test_gres_lines(void)
{
	char dir[] = "/tmp/kopt-slurm-gres-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *sinfo = xasprintf("%s/sinfo", dir), *srun = xasprintf("%s/srun", dir), *out = xasprintf("%s/out", dir);
	char *body = xasprintf("#!/bin/sh\ncat %s\n", out);
	write_script(sinfo, body);
	static const struct { const char *out; bool gpus; } cases[] = {
		{ "gpu:2\n", true },
		{ "gpu:h200:8(S:0-1)\n", true },
		{ "gpu\n", true },
		{ "gpu", true },
		{ "gpu:1", true },
		{ "(null)\ngpu\n", true },
		{ "(null)\ngpu\n(null)\n", true },
		{ "craynetwork:4,gpu:1\n", true },
		{ "craynetwork:4,gpu\n", true },
		{ "(null)\n", false },
		{ "", false },
		{ "gpus:2\n", false },
		{ "mygpu:2\n", false },
		{ "craynetwork:4\n(null)\n", false },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		write_script(out, cases[i].out);
		char *argv[] = { srun };
		bool g = slurm_wants_gres(argv, 1);
		if (g == cases[i].gpus)
			right++;
		else
			tap_diag("sinfo said '%s': GPUs %d", cases[i].out, g);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases),
		   "sinfo's GRES lines: a gpu entry (with a count, a type or neither, on any line) means GPUs, "
		   "gpus or mygpu does not");
	unlink(sinfo);
	unlink(out);
	rmdir(dir);
	free(body);
	free(sinfo);
	free(srun);
	free(out);
}

/* an sinfo that printed GPUs and then failed, by its exit status or by a
 * signal, is not believed: no --gres (a TEST DOUBLE of sinfo) */
static void test_sinfo_failed(void)
{
	char dir[] = "/tmp/kopt-slurm-failed-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *sinfo = xasprintf("%s/sinfo", dir), *srun = xasprintf("%s/srun", dir);
	static const struct { const char *body, *what; } cases[] = {
		{ "#!/bin/sh\necho 'gpu:2'\nexit 0\n", "exits 0" },
		{ "#!/bin/sh\necho 'gpu:2'\nexit 1\n", "exits 1" },
		{ "#!/bin/sh\necho 'gpu:2'\nkill -KILL $$\n", "is killed by SIGKILL" },
		{ "#!/bin/sh\necho 'gpu:2'\nkill -TERM $$\n", "is killed by SIGTERM" },
	};
	static const bool want[] = { true, false, false, false };
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		write_script(sinfo, cases[i].body);
		char *argv[] = { srun };
		bool g = slurm_wants_gres(argv, 1);
		TAP_OK(g == want[i], "an sinfo that prints gpu:2 and %s: GPUs %s (got %d)", cases[i].what,
		       want[i] ? "yes" : "no", g);
	}
	unlink(sinfo);
	rmdir(dir);
	free(sinfo);
	free(srun);
}

/* sinfo, asked whether the partition has GPUs, reads nothing of
 * koptmake's standard input and writes nothing to its stderr */
static void test_sinfo_quiet(void)
{
	char dir[] = "/tmp/kopt-slurm-quiet-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *sinfo = xasprintf("%s/sinfo", dir), *srun = xasprintf("%s/srun", dir), *err = xasprintf("%s/err", dir);
	char *in = xasprintf("%s/in", dir), *got = xasprintf("%s/got", dir);
	char *body = xasprintf("#!/bin/sh\necho sinfo-noise >&2\ncat > %s\necho 'gpu:2'\n", got);
	write_script(sinfo, body);
	write_script(in, "koptmake's own input\n");
	fflush(stderr);
	int save0 = dup(0), save2 = dup(2);
	int fin = open(in, O_RDONLY), ferr = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fin, 0);
	dup2(ferr, 2);
	char *argv[] = { srun };
	bool g = slurm_wants_gres(argv, 1);
	dup2(save0, 0);
	dup2(save2, 2);
	close(fin);
	close(ferr);
	close(save0);
	close(save2);
	struct strbuf e = STRBUF_INIT, r = STRBUF_INIT;
	strbuf_init(&e);
	strbuf_init(&r);
	strbuf_read_file(&e, err);
	strbuf_read_file(&r, got);
	TAP_OK(g && e.len == 0 && r.len == 0,
	       "sinfo's stderr is not koptmake's, nor is its standard input (GPUs %d, %zu bytes said, %zu read)", g, e.len,
	       r.len);
	strbuf_release(&e);
	strbuf_release(&r);
	unlink(sinfo);
	unlink(in);
	unlink(err);
	unlink(got);
	rmdir(dir);
	free(body);
	free(sinfo);
	free(srun);
	free(err);
	free(in);
	free(got);
}

int main(void)
{
	test_reasons();
	test_gres_partition();
	test_gres_lines();
	test_sinfo_quiet();
	test_sinfo_failed();
	test_argv();
	test_end();
	return tap_done();
}
