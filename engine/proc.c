/* engine/proc.c: see proc.h */
#define _GNU_SOURCE
#include <config.h>

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/util.h"

void proc_env_put(char ***env, const char *name, const char *value)
{
	size_t nl = strlen(name), n = 0;
	char *entry = xasprintf("%s=%s", name, value);
	for (; (*env)[n]; n++)
		if (strncmp((*env)[n], name, nl) == 0 && (*env)[n][nl] == '=') {
			free((*env)[n]);
			(*env)[n] = entry;
			return;
		}
	*env = xrealloc(*env, (n + 2) * sizeof **env);
	(*env)[n] = entry;
	(*env)[n + 1] = NULL;
}

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

pid_t proc_start(char *const *argv, char *const *env, int *in, int *out, int *err)
{
	int pin[2], pout[2], perr[2];
	if (pipe2(pin, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(pout, O_CLOEXEC) < 0) {
		close_pair(pin);
		return -1;
	}
	if (pipe2(perr, O_CLOEXEC) < 0) {
		close_pair(pin);
		close_pair(pout);
		return -1;
	}
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close_pair(pin);
		close_pair(pout);
		close_pair(perr);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		/* dies with koptmake, even by SIGKILL; and koptmake may be gone already */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		/* a koptmake started with descriptors 0-2 closed (`<&-`, from a
		 * daemon) got pipes there (kopt_fds_std) */
		if (kopt_fds_std(pin[0], pout[1], perr[1]) < 0)
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		KOPT_COVER_FLUSH();
		execvpe(argv[0], argv, env);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		KOPT_COVER_FLUSH();
		_exit(127);
	}
	setpgid(pid, pid);
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	*in = pin[1];
	*out = pout[0];
	*err = perr[0];
	fcntl(*in, F_SETFL, O_NONBLOCK);
	fcntl(*out, F_SETFL, O_NONBLOCK);
	fcntl(*err, F_SETFL, O_NONBLOCK);
	return pid;
}

void proc_describe_exit(struct strbuf *sb, int status)
{
	if (WIFSIGNALED(status))
		strbuf_addf(sb, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		strbuf_addf(sb, "exited with status %d", WEXITSTATUS(status));
	else
		strbuf_addstr(sb, "ended");
}
