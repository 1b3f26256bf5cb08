/*
 * tests/unit/sandbox_test.c: the worker's sandbox (runtime/sandbox.c), on
 * the CPU: the environment a worker starts with, and the confinement,
 * entered in a child process through the same code the workers run, which
 * then tries what an escaped candidate would (sockets of each family, files
 * written outside its scratch folder, a grandchild doing the same), and
 * what CUDA needs in a child (its own /proc entries) without what root could
 * do with /proc (sysctls, sysrq) or /dev (a block device). Where
 * this kernel lacks Landlock (or seccomp) the cases that need it are
 * skipped, saying so.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../runtime/sandbox.h"
#include "../tap.h"

static bool has(char **env, const char *name)
{
	size_t n = strlen(name);
	for (char **e = env; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return true;
	return false;
}

static void test_env(void)
{
	char *env[] = {
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "CUDA_VISIBLE_DEVICES=3",
		"PYTHONPATH=/p", "TORCHINDUCTOR_CACHE_DIR=/c", "TRITON_CACHE_DIR=/t", "KOPT_SIM_LOG=/l",
		"SLURM_JOB_ID=7", "XDG_CACHE_HOME=/x", "LD_LIBRARY_PATH=/lib", "CC=gcc-13", "CXX=/usr/bin/g++",
		"CXXFLAGS=-O3", "OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-2", "AWS_SECRET_ACCESS_KEY=a", "AWS_ACCESS_KEY_ID=b",
		"GITHUB_TOKEN=c", "HF_TOKEN=d", "KOPT_LLM_KEY=e", "KOPT_DB_PASSWORD=f", "DB_PASSWD=g",
		"GOOGLE_APPLICATION_CREDENTIALS=/k.json", "MY_APIKEY=h", "KOPT_PRIVATE_THING=i",
		"SSH_AUTH_SOCK=/s", "DISPLAY=:0", "RANDOM_VAR=1", "MY_DATA_DIR=/data", "HF_HOME=/hf",
		"KOPT_ACCESS=the key of a key_env", "CUDA_SPECIAL=k",
		"KOPT_WORKER_ENV=MY_DATA_DIR, HF_*", NULL,
	};
	const char *deny[] = { "KOPT_ACCESS", "CUDA_SPECIAL", NULL };
	char **w = sandbox_env(env, deny);
	static const char *const kept[] = { "PATH", "HOME", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "PYTHONPATH",
					    "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "KOPT_SIM_LOG",
					    "SLURM_JOB_ID", "XDG_CACHE_HOME", "LD_LIBRARY_PATH", "CC", "CXX" };
	int k = 0;
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
		k += has(w, kept[i]);
		if (!has(w, kept[i]))
			tap_diag("dropped %s", kept[i]);
	}
	TAP_IS_INT(k, (int)(sizeof kept / sizeof *kept), "env: what a worker needs is kept (CC and CXX: a key of Inductor's graph cache)");
	static const char *const secret[] = { "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY",
					      "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "HF_TOKEN", "KOPT_LLM_KEY",
					      "KOPT_DB_PASSWORD", "DB_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS",
					      "MY_APIKEY", "KOPT_PRIVATE_THING" };
	int s = 0;
	for (size_t i = 0; i < sizeof secret / sizeof *secret; i++) {
		s += !has(w, secret[i]);
		if (has(w, secret[i]))
			tap_diag("passed %s", secret[i]);
	}
	TAP_IS_INT(s, (int)(sizeof secret / sizeof *secret), "env: no API key, token, password or credential, KOPT_* included");
	TAP_OK(!has(w, "KOPT_ACCESS") && !has(w, "CUDA_SPECIAL"), "env: no variable that a key_env names, whatever its name");
	TAP_OK(!has(w, "SSH_AUTH_SOCK") && !has(w, "DISPLAY") && !has(w, "RANDOM_VAR") && !has(w, "CXXFLAGS"),
	       "env: nothing else (CXX is no prefix)");
	TAP_OK(has(w, "MY_DATA_DIR") && has(w, "HF_HOME"), "env: KOPT_WORKER_ENV adds names and prefixes");
	sandbox_env_free(w);
	TAP_OK(sandbox_env_secret("my_token", 8) && sandbox_env_secret("X_KEY", 5) && !sandbox_env_secret("KOPT_SLOT", 9) &&
	       !sandbox_env_secret("PYTHONHASHSEED", 14), "env: secret-looking names, any case");
	static const char *const secret38[] = { "DB_PASS", "MY_SERVICE_PWD", "ftp_pw", "SENTRY_DSN", "SESSION_COOKIE",
					      "GPG_PASSPHRASE", "DATABASE_URL", "app_database_url", "AWS_CREDENTIALS",
					      "KOPT_SEAL_KEY", NULL };
	static const char *const plain38[] = { "PWD", "OLDPWD", "PASSAGE", "PASS_COUNT", "DSN_HOST", "PATH", NULL };
	bool all = true;
	for (const char *const *p = secret38; *p; p++)
		if (!sandbox_env_secret(*p, strlen(*p))) {
			tap_diag("not a secret: %s", *p);
			all = false;
		}
	for (const char *const *p = plain38; *p; p++)
		if (sandbox_env_secret(*p, strlen(*p))) {
			tap_diag("a secret: %s", *p);
			all = false;
		}
	TAP_OK(all, "env: *_PASS, *_PWD, *_PW, *_DSN, *COOKIE*, *PASSPHRASE*, *DATABASE_URL are secrets; PWD, OLDPWD are not");
}

/* the man page's list (between its "begin/end worker environment"
 * comments) is the code's, no more, no less */
static void test_man(void)
{
	const char *top = getenv("top_srcdir");
	char *p = xasprintf("%s/man/koptmake.1", top ? top : ".");
	struct strbuf man = STRBUF_INIT;
	int r = strbuf_read_file(&man, p);
	free(p);
	const char *begin = r == 0 ? strstr(man.buf, "begin worker environment") : NULL;
	const char *end = begin ? strstr(begin, "end worker environment") : NULL;
	char *words[128];
	int nw = 0;
	if (begin && end) {
		char *block = xstrndup(begin, (size_t)(end - begin)), *save = NULL;
		for (char *line = strtok_r(block, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '.' || strstr(line, "worker environment"))
				continue;
			char *s2 = NULL;
			for (char *w = strtok_r(line, " \t", &s2); w && nw < 128; w = strtok_r(NULL, " \t", &s2))
				words[nw++] = xstrdup(w);
		}
		free(block);
	}
	int nk = 0, found = 0;
	for (const char *const *k = sandbox_env_keep; *k; k++, nk++) {
		bool in = false;
		for (int i = 0; i < nw; i++)
			in = in || strcmp(words[i], *k) == 0;
		found += in;
		if (!in)
			tap_diag("koptmake(1) does not list %s", *k);
	}
	TAP_OK(nw > 0 && found == nk && nw == nk, "koptmake(1) lists the variables a worker keeps, as the code does "
	       "(%d listed, %d in the code)", nw, nk);
	for (int i = 0; i < nw; i++)
		free(words[i]);
	strbuf_release(&man);
}

/* what the confined child found, one byte per try: 'y' done, 'n' denied (EACCES/EPERM), 'e' other error */
enum try {
	T_ENTER, T_INET, T_INET6, T_PACKET, T_NETLINK, T_UNIX, T_WRITE_OUT, T_MKDIR_OUT, T_SYMLINK_OUT,
	T_WRITE_SCRATCH, T_DEVNULL, T_TMPDIR, T_GRANDCHILD_INET, T_GRANDCHILD_WRITE, T_GRANDCHILD_COMM,
	T_SYSCTL, T_SYSRQ, T_BLOCK, T_CAPS,
	/* reads */
	T_R_HOME, T_R_HOME_DIR, T_R_OUT, T_R_SPEC, T_R_EXTRA, T_R_SYSTEM, T_R_SCRATCH, T_R_SHADOW, T_R_NV,
	T_R_GRANDCHILD, T_N
};

static char result(int r)
{
	if (r >= 0)
		return 'y';
	return errno == EACCES || errno == EPERM ? 'n' : errno == EROFS ? 'r' : 'e';
}

/* opens path for writing and closes it, writing nothing */
static int open_only(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

/* a block device under /dev, or NULL */
static const char *block_device(void)
{
	static char path[512];
	DIR *d = opendir("/dev");
	struct dirent *e;
	struct stat st;
	const char *found = NULL;
	while (d && !found && (e = readdir(d))) {
		snprintf(path, sizeof path, "/dev/%.255s", e->d_name);
		if (lstat(path, &st) == 0 && S_ISBLK(st.st_mode))
			found = path;
	}
	if (d)
		closedir(d);
	return found;
}

/* whether this process holds no effective capability */
static bool no_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	return syscall(SYS_capget, &h, d) == 0 && d[0].effective == 0 && d[1].effective == 0;
}

/* writes this thread's name the way CUDA's driver names its threads */
static int name_thread(void)
{
	char *p = xasprintf("/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
	FILE *f = fopen(p, "w");
	free(p);
	if (!f)
		return -1;
	fputs("kopt-test", f);
	return fclose(f) == 0 ? 0 : -1;
}

static int open_w(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(p);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static int read_one(const char *dir, const char *name)
{
	char *p = name ? xasprintf("%s/%s", dir, name) : xstrdup(dir);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	char c;
	if (fd >= 0 && read(fd, &c, 1) < 0) {
		close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static int list_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d)
		closedir(d);
	return d ? 0 : -1;
}

static int sock(int family, int type)
{
	int fd = socket(family, type, 0);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

/* the folders the read tries use, below the test's base folder: a home
 * ($HOME, with .netrc and .nv/x), a spec's folder ($KOPT_SANDBOX_READ, with
 * model.py), a Python's (the reads passed, with mod.py) */
static const char *home_dir, *spec_dir, *py_dir;

/* the tries of reads, in the confined child */
static void try_reads(char r[T_N], const char *outside, const struct sandbox_state *s)
{
	r[T_R_HOME] = result(read_one(home_dir, ".netrc"));
	r[T_R_HOME_DIR] = result(list_dir(home_dir));
	r[T_R_OUT] = result(read_one(outside, "o.txt"));
	r[T_R_SPEC] = result(read_one(spec_dir, "model.py"));
	r[T_R_EXTRA] = result(read_one(py_dir, "mod.py"));
	r[T_R_SYSTEM] = result(read_one("/etc/passwd", NULL) == 0 && list_dir("/usr/lib") == 0 ? 0 : -1);
	r[T_R_SCRATCH] = result(read_one(s->scratch, "mine"));
	r[T_R_SHADOW] = access("/etc/shadow", F_OK) == 0 ? result(read_one("/etc/shadow", NULL)) : '-';
	r[T_R_NV] = result(read_one(home_dir, ".nv/x"));
	pid_t g = fork();
	if (g == 0)
		_exit(read_one(home_dir, ".netrc") < 0 && (errno == EACCES || errno == EPERM) ? 1 : 2);
	int gs = 0;
	waitpid(g, &gs, 0);
	r[T_R_GRANDCHILD] = WIFEXITED(gs) && WEXITSTATUS(gs) == 1 ? 'n' : 'y';
}

/* in a child: enters the sandbox and tries; the results and the state come back through a pipe */
static void confined(const char *outside, char res[T_N], struct sandbox_state *st)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		kopt_die("pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		char r[T_N];
		memset(r, '-', sizeof r);
		struct sandbox_state s;
		const char *reads[] = { py_dir, NULL };
		r[T_ENTER] = result(sandbox_enter_reading(&s, py_dir ? reads : NULL));
		r[T_INET] = result(sock(AF_INET, SOCK_STREAM));
		r[T_INET6] = result(sock(AF_INET6, SOCK_DGRAM));
		r[T_PACKET] = result(sock(AF_PACKET, SOCK_RAW));
		r[T_NETLINK] = result(sock(AF_NETLINK, SOCK_RAW));
		r[T_UNIX] = result(sock(AF_UNIX, SOCK_STREAM));
		r[T_WRITE_OUT] = result(open_w(outside, "escaped"));
		char *d = xasprintf("%s/newdir", outside), *l = xasprintf("%s/link", outside);
		r[T_MKDIR_OUT] = result(mkdir(d, 0755));
		r[T_SYMLINK_OUT] = result(symlink("/etc/passwd", l));
		r[T_WRITE_SCRATCH] = result(open_w(s.scratch, "mine"));
		r[T_DEVNULL] = result(open_w("/dev", "null"));
		r[T_TMPDIR] = getenv("TMPDIR") && strcmp(getenv("TMPDIR"), s.scratch) == 0 ? 'y' : 'e';
		pid_t g = fork();
		if (g == 0) {
			int a = sock(AF_INET, SOCK_STREAM) < 0 ? (errno == EACCES ? 'n' : 'e') : 'y';
			int b = result(open_w(outside, "grandchild"));
			int c = name_thread() == 0 ? 64 : 0;
			_exit((a == 'n' ? 1 : a == 'y' ? 2 : 4) | (b == 'n' ? 8 : b == 'y' ? 16 : 32) | c);
		}
		int gs = 0;
		waitpid(g, &gs, 0);
		int code = WIFEXITED(gs) ? WEXITSTATUS(gs) : 0;
		r[T_GRANDCHILD_INET] = code & 1 ? 'n' : code & 2 ? 'y' : 'e';
		r[T_GRANDCHILD_WRITE] = code & 8 ? 'n' : code & 16 ? 'y' : 'e';
		r[T_GRANDCHILD_COMM] = code & 64 ? 'y' : 'n';
		r[T_SYSCTL] = result(open_only("/proc/sys/kernel/hostname"));
		r[T_SYSRQ] = access("/proc/sysrq-trigger", F_OK) == 0 ? result(open_only("/proc/sysrq-trigger")) : '-';
		const char *blk = block_device();
		r[T_BLOCK] = blk ? result(open_only(blk)) : '-';
		r[T_CAPS] = no_caps() ? 'y' : 'n';
		if (home_dir)
			try_reads(r, outside, &s);
		ssize_t w1 = write(pfd[1], r, sizeof r), w2 = write(pfd[1], &s, sizeof s);
		(void)w1;
		(void)w2;
		_exit(0);
	}
	close(pfd[1]);
	memset(res, 'e', T_N);
	memset(st, 0, sizeof *st);
	ssize_t a = read(pfd[0], res, T_N), b = read(pfd[0], st, sizeof *st);
	if (a != T_N || b != (ssize_t)sizeof *st)
		tap_diag("the child sent %zd and %zd bytes", a, b);
	close(pfd[0]);
	waitpid(pid, NULL, 0);
}

static bool exists_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool r = lstat(p, &st) == 0;
	free(p);
	return r;
}

static bool ro(const char *path)
{
	struct statvfs v;
	return statvfs(path, &v) == 0 && (v.f_flag & ST_RDONLY);
}

/* what CUDA needs in a child, and nothing of what root could do with it */
static void test_proc_dev(const char r[T_N], const struct sandbox_state *st)
{
	bool root = geteuid() == 0;
	tap_diag("root: %s; /proc open to children: %s; capabilities given up: %s", root ? "yes" : "no",
		 st->proc ? "yes" : "no", st->caps ? "yes" : "no");
	if (!st->fs) {
		tap_ok(1, "sandbox: a child names its threads through /proc # SKIP no Landlock");
		tap_ok(1, "sandbox: no sysctl, sysrq or block device # SKIP no Landlock");
		tap_ok(1, "sandbox: root's capabilities # SKIP no Landlock");
		return;
	}
	if (st->proc)
		TAP_OK(r[T_GRANDCHILD_COMM] == 'y', "sandbox: a child of the worker names its threads through "
		       "/proc/self/task/TID/comm, as CUDA's driver does");
	else
		TAP_OK(r[T_GRANDCHILD_COMM] == 'n' && strstr(st->note, "cannot start CUDA"),
		       "sandbox: where /proc stays closed, the note says that children cannot start CUDA");
	TAP_OK((r[T_SYSCTL] == 'n' || r[T_SYSCTL] == 'r') && r[T_SYSRQ] != 'y' && r[T_BLOCK] != 'y',
	       "sandbox: no sysctl, /proc/sysrq-trigger or block device opens for writing (got %c %c %c)",
	       r[T_SYSCTL], r[T_SYSRQ], r[T_BLOCK]);
	if (root) {
		TAP_OK(st->caps && r[T_CAPS] == 'y', "sandbox: root gives up every capability");
		TAP_OK(!ro("/proc/sys") || !st->proc, "sandbox: /proc/sys is read-only in the worker's mount "
		       "namespace only, not outside it");
	} else {
		tap_ok(1, "sandbox: root gives up every capability # SKIP not root");
		tap_ok(1, "sandbox: /proc/sys read-only in the worker's namespace only # SKIP not root");
	}
}

static void put(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("machine x login y password canary\n", f);
		fclose(f);
	}
	free(p);
}

/* reads: the home hidden, though $PATH names it; the spec's folder, the
 * Python's, the system's, the scratch folder and ~/.nv read */
static void test_reads(const char *base, const char *outside)
{
	char *home = xasprintf("%s/home", base), *spec = xasprintf("%s/spec", base), *py = xasprintf("%s/py", base);
	char *nv = xasprintf("%s/.nv", home), *path = xasprintf("%s:%s", home, getenv("PATH") ? getenv("PATH") : "");
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL, *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	mkdir(home, 0700);
	mkdir(nv, 0700);
	mkdir(spec, 0755);
	mkdir(py, 0755);
	put(home, ".netrc");
	put(nv, "x");
	put(spec, "model.py");
	put(py, "mod.py");
	put(outside, "o.txt");
	setenv("HOME", home, 1);
	setenv("PATH", path, 1);
	setenv("KOPT_SANDBOX_READ", spec, 1);
	home_dir = home;
	spec_dir = spec;
	py_dir = py;
	char r[T_N];
	struct sandbox_state st;
	confined(outside, r, &st);
	if (!st.fs) {
		tap_ok(1, "sandbox: reads confined # SKIP this kernel has no Landlock");
	} else {
		TAP_OK(r[T_R_HOME] == 'n' && r[T_R_HOME_DIR] == 'n' && r[T_R_GRANDCHILD] == 'n',
		       "sandbox: the home folder is hidden: ~/.netrc cannot be read nor ~ listed, by the worker or "
		       "its child, though $PATH names ~ (got %c %c %c)", r[T_R_HOME], r[T_R_HOME_DIR], r[T_R_GRANDCHILD]);
		TAP_OK(r[T_R_OUT] == 'n', "sandbox: nor a file in a folder of no list (got %c)", r[T_R_OUT]);
		TAP_OK(r[T_R_SPEC] == 'y' && r[T_R_EXTRA] == 'y',
		       "sandbox: the folders of KOPT_SANDBOX_READ (the spec's) and the reads passed (Python's) are read (got %c %c)",
		       r[T_R_SPEC], r[T_R_EXTRA]);
		TAP_OK(r[T_R_SYSTEM] == 'y' && r[T_R_SCRATCH] == 'y' && r[T_R_NV] == 'y',
		       "sandbox: the system's folders, the scratch folder and ~/.nv are read (got %c %c %c)",
		       r[T_R_SYSTEM], r[T_R_SCRATCH], r[T_R_NV]);
		if (r[T_R_SHADOW] == '-' || geteuid() != 0)
			tap_ok(1, "sandbox: root reads no /etc/shadow # SKIP %s", geteuid() ? "not root" : "no /etc/shadow");
		else
			TAP_OK(r[T_R_SHADOW] == 'n', "sandbox: root reads no /etc/shadow, owner or not (got %c)", r[T_R_SHADOW]);
	}
	home_dir = spec_dir = py_dir = NULL;
	if (old_home)
		setenv("HOME", old_home, 1);
	setenv("PATH", old_path, 1);
	unsetenv("KOPT_SANDBOX_READ");
	free(old_home);
	free(old_path);
	free(home);
	free(spec);
	free(py);
	free(nv);
	free(path);
}

static void test_confined(void)
{
	char *base = xasprintf("%s/kopt-sandbox-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(base))
		kopt_die("mkdtemp");
	char *outside = xasprintf("%s/outside", base), *scratch = xasprintf("%s/scratch/0", base);
	mkdir(outside, 0755);
	setenv("KOPT_SCRATCH", scratch, 1);
	unsetenv("KOPT_SANDBOX");
	unsetenv("KOPT_SANDBOX_WRITE");
	char r[T_N];
	struct sandbox_state st;
	confined(outside, r, &st);
	TAP_OK(r[T_ENTER] == 'y', "sandbox: entered (%s)", st.note[0] ? st.note : "no warning");
	tap_diag("this kernel: Landlock ABI %d; confined: %s", st.landlock_abi, sandbox_describe(&st));
	TAP_OK(r[T_WRITE_SCRATCH] == 'y' && r[T_DEVNULL] == 'y' && r[T_UNIX] == 'y' && r[T_TMPDIR] == 'y',
	       "sandbox: the scratch folder (TMPDIR points there), /dev/null and AF_UNIX sockets work");
	if (st.net) {
		TAP_OK(r[T_INET] == 'n' && r[T_INET6] == 'n' && r[T_PACKET] == 'n' && r[T_NETLINK] == 'n',
		       "sandbox: socket() of AF_INET, AF_INET6, AF_PACKET and AF_NETLINK is denied (EACCES)");
		TAP_OK(r[T_GRANDCHILD_INET] == 'n', "sandbox: a child of the worker cannot open one either");
	} else {
		tap_ok(1, "sandbox: network sockets denied # SKIP no seccomp filter here: %s", st.note);
		tap_ok(1, "sandbox: nor in a child # SKIP no seccomp filter here");
	}
	if (st.fs) {
		TAP_OK(r[T_WRITE_OUT] == 'n' && !exists_in(outside, "escaped"),
		       "sandbox: a file outside the scratch folder cannot be written (EACCES)");
		TAP_OK(r[T_MKDIR_OUT] == 'n' && r[T_SYMLINK_OUT] == 'n' && !exists_in(outside, "newdir") &&
		       !exists_in(outside, "link"), "sandbox: nor a folder or a link made there");
		TAP_OK(r[T_GRANDCHILD_WRITE] == 'n' && !exists_in(outside, "grandchild"),
		       "sandbox: nor by a child of the worker");
	} else {
		/* /sys/kernel/security/lsm lists "landlock" where the kernel has it */
		tap_ok(1, "sandbox: writes outside the scratch folder denied # SKIP this kernel has no Landlock "
		       "(ABI 0; /sys/kernel/security/lsm would list it): writes are not confined here");
		tap_ok(1, "sandbox: nor a folder or a link # SKIP this kernel has no Landlock");
		tap_ok(1, "sandbox: nor by a child # SKIP this kernel has no Landlock");
	}
	TAP_OK(exists_in(scratch, ".kopt-scratch") && exists_in(scratch, "mine"), "sandbox: the scratch folder is marked as ours");
	test_proc_dev(r, &st);
	test_reads(base, outside);

	/* a second worker on the same slot starts with it empty */
	confined(outside, r, &st);
	TAP_OK(exists_in(scratch, ".kopt-scratch") && exists_in(scratch, "mine") && r[T_ENTER] == 'y',
	       "sandbox: a worker's scratch folder is emptied when the next one starts (then written again)");
	char *stale = xasprintf("%s/stale", scratch);
	int fd = open(stale, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	confined(outside, r, &st);
	TAP_OK(!exists_in(scratch, "stale"), "sandbox: what the last worker left is removed");
	free(stale);

	/* a scratch folder someone else could have made is not used */
	char *open_dir = xasprintf("%s/open", base);
	mkdir(open_dir, 0777);
	chmod(open_dir, 0777);
	char *in_open = xasprintf("%s/0", open_dir);
	setenv("KOPT_SCRATCH", in_open, 1);
	confined(outside, r, &st);
	TAP_OK(r[T_ENTER] == 'y' && strncmp(st.scratch, open_dir, strlen(open_dir)) != 0 &&
	       strstr(st.note, "is not this user's own"), "sandbox: a scratch folder in a folder open to others is refused");
	if (strstr(st.scratch, "/kopt-worker-")) { /* the one it made instead */
		char *rm = xasprintf("rm -rf '%s'", st.scratch);
		if (system(rm) != 0)
			tap_diag("cannot remove %s", st.scratch);
		free(rm);
	}
	free(in_open);
	free(open_dir);

	/* KOPT_SANDBOX=off */
	setenv("KOPT_SCRATCH", scratch, 1);
	setenv("KOPT_SANDBOX", "off", 1);
	confined(outside, r, &st);
	TAP_OK(r[T_ENTER] == 'y' && st.off && r[T_INET] == 'y' && r[T_WRITE_OUT] == 'y' && strstr(st.note, "KOPT_SANDBOX=off"),
	       "sandbox: KOPT_SANDBOX=off confines nothing, and says so");
	unsetenv("KOPT_SANDBOX");

	/* koptmake removes the scratch folders when its workers are gone */
	char *root = xasprintf("%s/scratch", base);
	sandbox_scratch_remove(root);
	TAP_OK(access(root, F_OK) < 0, "sandbox: the scratch folders are removed after the build");
	free(root);
	unsetenv("KOPT_SCRATCH");
	char *cmd = xasprintf("rm -rf '%s'", base);
	if (system(cmd) != 0)
		tap_diag("cannot remove %s", base);
	free(cmd);
	free(outside);
	free(scratch);
	free(base);
}

int main(void)
{
	test_env();
	test_man();
	test_confined();
	return tap_done();
}
