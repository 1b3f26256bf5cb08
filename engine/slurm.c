/*
 * engine/slurm.c: see slurm.h.
 *
 * The stderr lines read for reasons are srun's and slurmstepd's own, as
 * Slurm 22.05 prints them (tests/fixtures/slurm/ holds recorded ones):
 *
 *   slurmstepd-NODE: error: *** STEP J.S ON NODE CANCELLED AT T ***
 *   slurmstepd-NODE: error: *** STEP J.S ON NODE CANCELLED AT T DUE TO TIME LIMIT ***
 *   slurmstepd-NODE: error: *** JOB J ON NODE CANCELLED AT T DUE TO NODE FAILURE, ... ***
 *   srun: error: Node failure on NODE
 *   srun: error: Unable to allocate resources: WHY
 *   srun: error: Unable to create step for job J: WHY
 *   srun: error: NODE: task 0: Out Of Memory
 *
 * The last line that says something wins, except that a cancellation's
 * cause (time limit, node failure, preemption) beats a bare cancellation.
 */
#define _GNU_SOURCE
#include <config.h>

#include "slurm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/util.h"

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

bool slurm_is_srun(char *const *argv, int n)
{
	return n > 0 && strcmp(base_name(argv[0]), "srun") == 0;
}

/* whether argv has one of the options in names: "--long" matches "--long"
 * and "--long=..."; "-x" matches "-x" and "-xVALUE" */
static bool has_opt(char *const *argv, int n, const char *const *names)
{
	for (int i = 1; i < n; i++) {
		for (const char *const *o = names; *o; o++) {
			size_t l = strlen(*o);
			if (strncmp(argv[i], *o, l) != 0)
				continue;
			if (argv[i][l] == '\0' || (l > 2 && argv[i][l] == '=') || (l == 2 && (*o)[1] != '-'))
				return true;
		}
	}
	return false;
}

/* the value of an option given as "--long=V", "--long V", "-xV" or "-x V" */
static const char *opt_value(char *const *argv, int n, const char *lng, const char *shrt)
{
	size_t ll = strlen(lng);
	for (int i = 1; i < n; i++) {
		if (strncmp(argv[i], lng, ll) == 0 && argv[i][ll] == '=')
			return argv[i] + ll + 1;
		if ((strcmp(argv[i], lng) == 0 || strcmp(argv[i], shrt) == 0) && i + 1 < n)
			return argv[i + 1];
		if (strncmp(argv[i], shrt, 2) == 0 && argv[i][2])
			return argv[i] + 2;
	}
	return NULL;
}

/* a Slurm command beside srun (sinfo, squeue, scancel) */
static char *beside(const char *srun, const char *cmd)
{
	const char *slash = strrchr(srun, '/');
	if (!slash)
		return xstrdup(cmd);
	return xasprintf("%.*s/%s", (int)(slash - srun + 1), srun, cmd);
}

/* runs argv with stdin and stderr on /dev/null; its stdout into out (if
 * not NULL); killed after timeout_s. Returns the exit status, -1 if it
 * could not run or did not end in time. */
static int run_cmd(char *const *argv, struct strbuf *out, double timeout_s)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		kopt_fds_std(nul, pfd[1], nul);
		signal(SIGPIPE, SIG_DFL);
		KOPT_COVER_FLUSH();
		execvp(argv[0], argv);
		KOPT_COVER_FLUSH();
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	double deadline = kopt_now() + timeout_s;
	bool open_ = true;
	int status = 0;
	for (;;) {
		double left = deadline - kopt_now();
		if (left <= 0)
			break;
		if (open_) {
			struct pollfd pf = { pfd[0], POLLIN, 0 };
			poll(&pf, 1, (int)(left * 1000) + 1);
			char buf[4096];
			ssize_t r;
			while ((r = read(pfd[0], buf, sizeof buf)) > 0)
				if (out)
					strbuf_add(out, buf, (size_t)r);
			if (r == 0)
				open_ = false;
		} else {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			close(pfd[0]);
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
	}
	close(pfd[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return -1;
}

bool slurm_wants_gres(char *const *argv, int n)
{
	static const char *const gpu_opts[] = { "--gres", "--gpus", "-G", "--gpus-per-node", "--gpus-per-task",
						"--gpus-per-socket", "--tres-per-task", NULL };
	if (!slurm_is_srun(argv, n) || has_opt(argv, n, gpu_opts))
		return false;
	const char *part = opt_value(argv, n, "--partition", "-p");
	char *sinfo = beside(argv[0], "sinfo");
	char *pv = part ? xasprintf("--partition=%s", part) : NULL;
	char *cmd[] = { sinfo, "--noheader", "--format=%G", pv, NULL };
	struct strbuf out = STRBUF_INIT;
	strbuf_init(&out);
	int st = run_cmd(cmd, &out, 10.0);
	/* "gpu:2", "gpu:h200:8(S:0-1)", "(null)" */
	bool gpus = false;
	for (char *p = out.buf; st == 0 && (p = strstr(p, "gpu")); p += 3)
		if ((p == out.buf || p[-1] == '\n' || p[-1] == ',') && (p[3] == ':' || p[3] == '\n' || p[3] == '\0'))
			gpus = true;
	strbuf_release(&out);
	free(pv);
	free(sinfo);
	return gpus;
}

char **slurm_worker_argv(char *const *argv, int n, const char *program, const char *name, bool gres)
{
	static const char *const name_opts[] = { "--job-name", "-J", NULL };
	static const char *const task_opts[] = { "--ntasks", "-n", NULL };
	static const char *const share_opts[] = { "--exact", "--overlap", "--exclusive", NULL };
	char **v = xcalloc((size_t)n + 6, sizeof *v);
	int k = 0;
	v[k++] = xstrdup(argv[0]);
	if (!has_opt(argv, n, name_opts))
		v[k++] = xasprintf("--job-name=%s", name);
	if (!has_opt(argv, n, task_opts))
		v[k++] = xstrdup("--ntasks=1");
	if (!has_opt(argv, n, share_opts))
		v[k++] = xstrdup("--exact");
	if (gres)
		v[k++] = xstrdup("--gres=gpu:1");
	for (int i = 1; i < n; i++)
		v[k++] = xstrdup(argv[i]);
	v[k++] = xstrdup(program);
	v[k] = NULL;
	return v;
}

void slurm_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* the text between "*** " and " ***" of a slurmstepd line, parsed:
 * "STEP 7.0 ON kopt1 CANCELLED AT 2026-12-01T15:26:28 DUE TO NODE FAILURE, ..." */
static char *stepd_reason(const char *s, size_t n, bool *cause)
{
	char what[8] = "", id[64] = "", node[128] = "";
	char *line = xstrndup(s, n);
	char *out = NULL;
	if (sscanf(line, "%7s %63s ON %127s CANCELLED", what, id, node) == 3) {
		const char *due = strstr(line, " DUE TO ");
		const char *thing = strcmp(what, "STEP") == 0 ? "job step" : "job";
		*cause = due != NULL;
		if (due && strncmp(due + 8, "TIME LIMIT", 10) == 0)
			out = xasprintf("Slurm ended %s %s on %s at its time limit", thing, id, node);
		else if (due && strncmp(due + 8, "NODE FAILURE", 12) == 0)
			out = xasprintf("Slurm lost node %s (node failure); %s %s cancelled", node, thing, id);
		else if (due && strncmp(due + 8, "PREEMPTION", 10) == 0)
			out = xasprintf("Slurm preempted %s %s on %s", thing, id, node);
		else if (due) {
			const char *e = strstr(due + 8, " ***");
			char *why = xstrndup(due + 8, e ? (size_t)(e - (due + 8)) : strlen(due + 8));
			for (char *p = why; *p; p++)
				*p = (char)tolower((unsigned char)*p);
			out = xasprintf("Slurm cancelled %s %s on %s (due to %s)", thing, id, node, why);
			free(why);
		} else
			out = xasprintf("Slurm cancelled %s %s on %s", thing, id, node);
	}
	free(line);
	return out;
}

/* one stderr line's reason, or NULL; *cause: it names why a step ended
 * (beats a bare cancellation) */
static char *line_reason(const char *s, size_t n, bool *cause)
{
	const char *star = memmem(s, n, "*** ", 4);
	*cause = false;
	if (star)
		return stepd_reason(star + 4, n - (size_t)(star + 4 - s), cause);
	const char *p;
	if ((p = memmem(s, n, "Node failure on ", 16))) {
		*cause = true;
		return xasprintf("Slurm lost node %.*s (node failure)", (int)(n - (size_t)(p + 16 - s)), p + 16);
	}
	if ((p = memmem(s, n, "Unable to allocate resources: ", 30))) {
		*cause = true;
		return xasprintf("Slurm cannot allocate the worker's job: %.*s", (int)(n - (size_t)(p + 30 - s)), p + 30);
	}
	if ((p = memmem(s, n, "Unable to create step for job ", 30))) {
		*cause = true;
		return xasprintf("Slurm cannot create the worker's step in job %.*s", (int)(n - (size_t)(p + 30 - s)), p + 30);
	}
	if (memmem(s, n, ": task 0: Out Of Memory", 23)) {
		*cause = true;
		return xstrdup("Slurm killed the worker's step: out of memory");
	}
	return NULL;
}

char *slurm_reason(const char *tail)
{
	char *best = NULL;
	bool best_cause = false;
	const char *p = tail;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		bool cause;
		char *r = line_reason(p, len, &cause);
		if (r && (cause || !best_cause)) {
			free(best);
			best = r;
			best_cause = cause;
		} else {
			free(r);
		}
		p += len + (nl ? 1 : 0);
	}
	/* srun saw its task killed and slurmstepd's own line never reached it
	 * (seen on a loaded machine after scancel): Slurm's doing, cause unknown */
	if (!best && tail && strstr(tail, ": task 0: Killed"))
		best = xstrdup("Slurm killed the worker's step (scancel, a time limit or a lost node)");
	return best;
}

/* scancel of every step and job of this user named name */
static void cancel_by_name(const char *srun, const char *name)
{
	char uid[32];
	snprintf(uid, sizeof uid, "--user=%ld", (long)getuid());
	char *squeue = beside(srun, "squeue"), *scancel = beside(srun, "scancel");
	char *sq[] = { squeue, "--noheader", "--steps", uid, "--format=%i %j", NULL };
	struct strbuf out = STRBUF_INIT;
	strbuf_init(&out);
	if (run_cmd(sq, &out, 10.0) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(out.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *sp = strchr(l, ' ');
			if (!sp || strcmp(sp + 1, name) != 0)
				continue;
			*sp = '\0';
			char *sc[] = { scancel, "--quiet", l, NULL };
			run_cmd(sc, NULL, 10.0);
		}
	}
	char *nm = xasprintf("--name=%s", name);
	char *sc[] = { scancel, "--quiet", uid, nm, NULL };
	run_cmd(sc, NULL, 10.0);
	free(nm);
	strbuf_release(&out);
	free(squeue);
	free(scancel);
}

int slurm_end(pid_t pid, const char *name, const char *srun, double deadline)
{
	int status = 0;
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return status;
		if (kopt_now() >= deadline)
			break;
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kopt_warn("the srun of worker step '%s' did not end after SIGTERM; killed, and its step cancelled with scancel",
		  name);
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cancel_by_name(srun, name);
	return status;
}
