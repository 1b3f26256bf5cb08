/* runtime/sandbox.c: see sandbox.h */
#define _GNU_SOURCE
#include <config.h>

#include "sandbox.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef HAVE_LINUX_LANDLOCK_H
#include <linux/landlock.h>
#endif
#include <linux/capability.h>
#ifdef HAVE_LINUX_SECCOMP_H
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

/* ---- the environment ---- */

/* CC and CXX: Inductor's config takes its C++ compiler from CXX, and its
 * graph cache keys each graph with the config; a worker without them keys
 * its graphs apart from the user's own process, whose compiles then miss
 * every graph the build compiled (bench/results/2026-12-06k-h200-shapes) */
const char *const sandbox_env_keep[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TZ",
	"TMPDIR", "XDG_CACHE_HOME", "LD_LIBRARY_PATH", "CC", "CXX",
	"CUDA_*", "NVIDIA_*", "CUBLAS_*", "CUBLASLT_*", "CUDNN_*",
	"PYTHON*", "VIRTUAL_ENV", "CONDA_PREFIX",
	"TORCH*", "PYTORCH_*", "TRITON_*", "HELION_*", "KOPT_*",
	"OMP_*", "MKL_*", "SLURM_*", "PMI_*", "PMIX_*",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
	NULL,
};

static bool has_upper(const char *name, size_t len, const char *needle)
{
	size_t nl = strlen(needle);
	for (size_t i = 0; i + nl <= len; i++) {
		size_t j = 0;
		while (j < nl && toupper((unsigned char)name[i + j]) == needle[j])
			j++;
		if (j == nl)
			return true;
	}
	return false;
}

/* The one rule of what names a secret: the workers' environment (here)
 * and the spec's env() (lang/eval.c, lang/paths.c) both ask it. */
bool sandbox_env_secret(const char *name, size_t len)
{
	static const char *const marks[] = { "KEY_", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
					     "CREDENTIAL", "APIKEY", "_AUTH", "PRIVATE", "COOKIE", NULL };
	static const char *const ends[] = { "KEY", "_PASS", "_PWD", "_PW", "_DSN", "DATABASE_URL", NULL };
	for (const char *const *m = marks; *m; m++)
		if (has_upper(name, len, *m))
			return true;
	for (const char *const *e = ends; *e; e++) {
		size_t n = strlen(*e);
		if (len >= n && has_upper(name + len - n, n, *e))
			return true; /* *_KEY, *KEY, *_PASS, ... */
	}
	return false;
}

/* whether name matches one of the patterns (NAME or PREFIX*) in the list */
static bool matches(const char *name, size_t len, const char *pat, size_t plen)
{
	if (plen && pat[plen - 1] == '*')
		return len >= plen - 1 && memcmp(name, pat, plen - 1) == 0;
	return len == plen && memcmp(name, pat, len) == 0;
}

static bool in_extra(const char *name, size_t len, const char *extra)
{
	const char *p = extra;
	while (p && *p) {
		while (*p && (*p == ' ' || *p == '\t' || *p == ',' || *p == ':'))
			p++;
		size_t n = strcspn(p, " \t,:");
		if (n && matches(name, len, p, n))
			return true;
		p += n;
	}
	return false;
}

bool sandbox_env_passes(const char *name, size_t len, const char *extra, const char *const *deny)
{
	if (len == 0 || sandbox_env_secret(name, len))
		return false;
	for (const char *const *d = deny; d && *d; d++)
		if (strlen(*d) == len && memcmp(*d, name, len) == 0)
			return false;
	for (const char *const *k = sandbox_env_keep; *k; k++)
		if (matches(name, len, *k, strlen(*k)))
			return true;
	return in_extra(name, len, extra);
}

char **sandbox_env(char *const *env, const char *const *deny)
{
	size_t n = 0;
	const char *extra = NULL;
	for (char *const *e = env; e && *e; e++, n++)
		if (strncmp(*e, "KOPT_WORKER_ENV=", 16) == 0)
			extra = *e + 16;
	char **out = calloc(n + 1, sizeof *out);
	if (!out)
		abort();
	size_t k = 0;
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || !sandbox_env_passes(*e, (size_t)(eq - *e), extra, deny))
			continue;
		if (!(out[k++] = strdup(*e)))
			abort();
	}
	return out;
}

void sandbox_env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* ---- the scratch folder ---- */

#define MARK ".kopt-scratch"

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(buf, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static int empty_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level == 0 || (ftw->level == 1 && strcmp(path + ftw->base, MARK) == 0))
		return 0;
	remove(path);
	return 0;
}

/* makes dir (koptmake names it, in a shared /tmp): whether it is a real
 * folder of this user that no one else may write into, in a folder that is
 * as well, or sticky (as /tmp is) */
static bool ours(const char *dir)
{
	if (mkdirs(dir) < 0)
		return false;
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	struct stat st;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022))
		return false;
	/* its parent: ours too, or one where no one can move it away (/tmp: sticky) */
	if (slash && (lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode) ||
		      ((st.st_uid != getuid() || (st.st_mode & 022)) && !(st.st_mode & S_ISVTX))))
		return false;
	return true;
}

/* a folder with our mark is emptied; an empty one gets the mark; 0, or -1
 * when it holds files that are not ours (it is used as it is) */
static int claim(const char *dir)
{
	char mark[PATH_MAX];
	snprintf(mark, sizeof mark, "%s/" MARK, dir);
	if (access(mark, F_OK) == 0) {
		nftw(dir, empty_one, 16, FTW_DEPTH | FTW_PHYS);
		return 0;
	}
	int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

void sandbox_scratch_remove(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;
	char path[PATH_MAX], mark[PATH_MAX];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%.3000s/%.255s", root, e->d_name);
		snprintf(mark, sizeof mark, "%.3000s/%.255s/" MARK, root, e->d_name);
		struct stat st;
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || access(mark, F_OK) < 0)
			continue;
		nftw(path, empty_one, 16, FTW_DEPTH | FTW_PHYS);
		unlink(mark);
		rmdir(path);
	}
	if (d)
		closedir(d);
	rmdir(root); /* only when nothing else is left */
}

/* ---- Landlock ---- */

#if defined(HAVE_LINUX_LANDLOCK_H) && defined(SYS_landlock_create_ruleset)
#define HAVE_LANDLOCK 1
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif

static int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

/* the write rights this ABI knows */
static uint64_t fs_writes(int abi)
{
	uint64_t a = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
		     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
		     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
		     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	if (abi >= 2)
		a |= 1ULL << 13; /* LANDLOCK_ACCESS_FS_REFER */
	if (abi >= 3)
		a |= 1ULL << 14; /* LANDLOCK_ACCESS_FS_TRUNCATE */
	return a;
}

/* the ruleset's attribute, sized for what this ABI reads */
struct ll_attr {
	uint64_t fs, net, scoped;
};

/* the rights that a rule on a file (not a folder) may carry: execute,
 * write, read, truncate (ABI 3), ioctl on a device (ABI 5) */
#define FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
		     (1ULL << 14) | (1ULL << 15))
/* the read rights: files and folders */
#define READS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

static int allow_path(int rs, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	memset(&pb, 0, sizeof pb);
	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return 0; /* nothing there to allow */
	if (fstat(pb.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= FILE_RIGHTS;
	pb.allowed_access = access;
	int r = (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	return r;
}
/* the rights a rule on a file (not a folder) may carry */
static uint64_t file_writes(int abi)
{
	return LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? 1ULL << 14 : 0); /* LANDLOCK_ACCESS_FS_TRUNCATE */
}

/* /dev: /dev/shm, the character devices any program writes, and the GPU's
 * (/dev/nvidia*, /dev/nvidia-caps); no block device, no new node */
static int allow_dev(int rs, int abi)
{
	static const char *const plain[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					     "/dev/urandom", "/dev/tty", NULL };
	int bad = allow_path(rs, "/dev/shm", fs_writes(abi) | READS) < 0;
	bad |= allow_path(rs, "/dev", LANDLOCK_ACCESS_FS_READ_DIR) < 0; /* its names, not its files */
	for (const char *const *p = plain; *p; p++)
		bad |= allow_path(rs, *p, file_writes(abi) | READS) < 0;
	DIR *d = opendir("/dev");
	struct dirent *e;
	char path[PATH_MAX];
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "nvidia", 6) != 0)
			continue;
		snprintf(path, sizeof path, "/dev/%.255s", e->d_name);
		bad |= allow_path(rs, path, file_writes(abi) | READS) < 0;
	}
	if (d)
		closedir(d);
	return bad ? -1 : 0;
}

/* ---- what a worker may read ---- */

/* The system's folders: the worker's programs and libraries, the NVIDIA
 * driver's files, /proc and /sys. Not /home, /root, /tmp, /var, /mnt, /srv
 * or another top folder of the machine's: data, not the system. */
static const char *const system_reads[] = { "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
					    "/etc", "/opt", "/proc", "/sys", "/run", "/nix", "/snap", NULL };
/* never read though below one of them (and the user's home, wherever it
 * is): root owns these files and reads them without any capability */
static const char *const never_read[] = { "/home", "/root", "/run/user", "/etc/shadow", "/etc/shadow-",
					  "/etc/gshadow", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private", "/etc/sudoers",
					  "/etc/sudoers.d", "/etc/krb5.keytab", "/etc/security/opasswd", NULL };

static char hidden[24][PATH_MAX]; /* never_read, $HOME and the like, resolved */
static int nhidden;

static void hide(const char *p)
{
	char real[PATH_MAX];
	if (p && *p && nhidden < 24 && realpath(p, real) && strcmp(real, "/") != 0)
		snprintf(hidden[nhidden++], PATH_MAX, "%s", real);
}

/* whether p is dir or below it */
static bool below(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/' || (n == 1 && dir[0] == '/'));
}

static bool hides(const char *p, bool above)
{
	for (int i = 0; i < nhidden; i++)
		if (above ? below(hidden[i], p) : below(p, hidden[i]))
			return true;
	return false;
}

/* dir for reading, less what is hidden below it: where a hidden folder is
 * below dir, each of dir's entries in its place (Landlock only adds) */
static int allow_below(int rs, const char *dir, int depth)
{
	char real[PATH_MAX], sub[PATH_MAX];
	if (!realpath(dir, real) || hides(real, false))
		return 0;
	if (!hides(real, true))
		return allow_path(rs, real, READS);
	DIR *d = depth < 8 ? opendir(real) : NULL;
	struct dirent *e;
	int bad = 0;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof sub, "%.3800s/%.255s", strcmp(real, "/") ? real : "", e->d_name);
		bad |= allow_below(rs, sub, depth + 1) < 0;
	}
	if (d)
		closedir(d);
	return bad ? -1 : 0;
}

/* the entries of list (separated by sep) for reading; guarded: none that
 * holds a hidden folder ($PATH holding $HOME would open all of it) */
static int allow_list(int rs, const char *list, char sep, bool guarded)
{
	char buf[PATH_MAX], real[PATH_MAX];
	int bad = 0;
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, (char[]){ sep, '\0' });
		if (n && n < sizeof buf) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (realpath(buf, real) && !(guarded && hides(real, true)))
				bad |= allow_path(rs, real, READS) < 0;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	return bad ? -1 : 0;
}

/*
 * What a worker reads: the system's folders less the home folders and
 * root's secrets, what $KOPT_SANDBOX_READ names (koptmake sets it to the
 * spec's folders, where the models are), the caller's (the Python install
 * and sys.path), $LD_LIBRARY_PATH, $PATH, $CUDA_HOME, $CUDA_PATH and
 * ~/.nv (the driver's profiles and caches). The folders it writes are
 * read too (landlock_confine).
 */
static int allow_reads(int rs, const char *const *extra)
{
	nhidden = 0;
	for (const char *const *h = never_read; *h; h++)
		hide(*h);
	const struct passwd *pw = getpwuid(getuid());
	hide(getenv("HOME"));
	hide(pw ? pw->pw_dir : NULL);
	hide(getenv("XDG_RUNTIME_DIR"));
	int bad = 0;
	for (const char *const *p = system_reads; *p; p++)
		bad |= allow_below(rs, *p, 0) < 0;
	bad |= allow_list(rs, getenv("KOPT_SANDBOX_READ"), ':', false) < 0;
	for (const char *const *p = extra; p && *p; p++)
		bad |= allow_list(rs, *p, '\0', true) < 0;
	static const char *const lists[] = { "LD_LIBRARY_PATH", "PATH", "CUDA_HOME", "CUDA_PATH", NULL };
	for (const char *const *l = lists; *l; l++)
		bad |= allow_list(rs, getenv(*l), ':', true) < 0;
	char nv[PATH_MAX];
	if (getenv("HOME") && *getenv("HOME")) {
		snprintf(nv, sizeof nv, "%.4000s/.nv", getenv("HOME"));
		bad |= allow_list(rs, nv, '\0', true) < 0;
	}
	return bad ? -1 : 0;
}
#else
static int landlock_abi(void)
{
	return 0;
}
#endif

/* ---- seccomp ---- */

#if defined(HAVE_LINUX_SECCOMP_H) && (defined(__x86_64__) || defined(__aarch64__)) && \
	defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_FILTER 1
#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#else
#define ARCH AUDIT_ARCH_AARCH64
#endif
#define DENY(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static int seccomp_filter(void)
{
	struct sock_filter f[] = {
		/* another architecture's calls (i386's socketcall) are denied */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		DENY(ENOSYS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
		/* the x32 ABI's numbers */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		DENY(ENOSYS),
#endif
#ifdef __NR_io_uring_setup
		/* io_uring makes sockets without socket() */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		DENY(EPERM),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* socket(domain, ...): the low 32 bits of the first argument */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		DENY(EACCES),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#endif

/* ---- /proc, /dev and root ---- */

/*
 * A child of the worker must write its own /proc entries: CUDA's driver
 * names its threads through /proc/self/task/TID/comm, and where that write
 * is denied, cuInit fails ("Error 304: OS call failed"), which is what
 * Inductor's compile workers and the memcheck child met. A Landlock rule
 * is made for inodes that exist when it is made, so /proc/CHILD cannot be
 * allowed ahead: /proc is allowed as a whole, where that is harmless.
 *
 * For a user other than root it is: such a process writes only its own
 * entries, and Landlock keeps it from ptrace-ing (so from /proc/PID/mem of)
 * any process outside its domain. Root writes /proc/sys, sysrq-trigger and
 * the like by owning them, capabilities or not, so for root the worker
 * first takes a mount namespace of its own where those are read-only bind
 * mounts (and every other mount below /proc), checks that they are, and
 * later gives up every capability: no mount can undo it, no module can be
 * loaded, no device node made. Where that cannot be done, /proc stays
 * closed but for the worker's own entries, and the note says that its
 * children cannot start CUDA.
 */
static const char *const proc_closed[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/driver",
	"/proc/scsi", "/proc/acpi", "/proc/mtrr", "/proc/tty", NULL,
};

static bool read_only(const char *path)
{
	struct statvfs v;
	return statvfs(path, &v) == 0 && (v.f_flag & ST_RDONLY);
}

static int remount_ro(const char *path)
{
	if (access(path, F_OK) != 0 || read_only(path))
		return 0;
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	return mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}

/* the mount points below /proc/, from /proc/self/mountinfo (field 5) */
static int remount_proc_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char line[4096], mp[PATH_MAX];
	int bad = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 && strncmp(mp, "/proc/", 6) == 0 &&
		    !read_only(mp))
			bad |= mount(NULL, mp, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0;
	}
	fclose(f);
	return bad ? -1 : 0;
}

/* whether /proc may be written as a whole (see above); for root, after
 * making the dangerous part of it read-only in a mount namespace */
static bool proc_open(void)
{
	if (geteuid() != 0)
		return true;
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
		for (const char *const *p = proc_closed; *p; p++)
			remount_ro(*p);
		remount_proc_mounts();
	}
	for (const char *const *p = proc_closed; *p; p++)
		if (access(*p, F_OK) == 0 && !read_only(*p))
			return false;
	return true;
}

/* root gives up every capability: bounding set, ambient, then its own */
static int drop_caps(void)
{
	if (geteuid() != 0)
		return 0;
	for (int c = 0; c < 64; c++) /* where CAP_SETPCAP is missing, the capset below still holds */
		prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	return (int)syscall(SYS_capset, &h, d);
}

/* ---- together ---- */

static void note(struct sandbox_state *st, const char *fmt, const char *arg)
{
	size_t used = strlen(st->note);
	if (used)
		used += (size_t)snprintf(st->note + used, sizeof st->note - used, "; ");
	if (used < sizeof st->note)
		snprintf(st->note + used, sizeof st->note - used, fmt, arg);
}

/* $VAR, else $HOME/rest (NULL when neither) into buf */
static const char *env_or_home(char *buf, size_t n, const char *var, const char *rest)
{
	const char *v = getenv(var);
	if (v && *v)
		snprintf(buf, n, "%s", v);
	else if (getenv("HOME") && *getenv("HOME"))
		snprintf(buf, n, "%s/%s", getenv("HOME"), rest);
	else
		return NULL;
	return buf;
}

#ifdef HAVE_LANDLOCK
/* Landlock: writes only where a worker must write, reads only where it
 * must read (sandbox_enter) */
static int landlock_confine(struct sandbox_state *st, const char *const *reads)
{
	int abi = st->landlock_abi;
	struct ll_attr attr = { fs_writes(abi) | READS, 0, 0 };
	size_t size = sizeof attr.fs;
	if (abi >= 4) {
		attr.net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct ll_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = 1ULL << 1; /* LANDLOCK_SCOPE_SIGNAL */
		size = sizeof attr;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) {
		note(st, "cannot make a Landlock ruleset: %s", strerror(errno));
		return -1;
	}
	char buf[PATH_MAX];
	const char *writable[16];
	int nw = 0;
	writable[nw++] = st->scratch;
	writable[nw++] = getenv("TORCHINDUCTOR_CACHE_DIR");
	static char triton[PATH_MAX], nv[PATH_MAX], kc[PATH_MAX], tc[PATH_MAX];
	const char *th = getenv("TRITON_HOME") && *getenv("TRITON_HOME") ? getenv("TRITON_HOME") : getenv("HOME");
	if (th && *th) {
		snprintf(triton, sizeof triton, "%s/.triton", th);
		writable[nw++] = triton;
	}
	writable[nw++] = getenv("TRITON_CACHE_DIR");
	if (env_or_home(nv, sizeof nv, "CUDA_CACHE_PATH", ".nv/ComputeCache"))
		writable[nw++] = nv;
	if (env_or_home(buf, sizeof buf, "XDG_CACHE_HOME", ".cache")) {
		snprintf(kc, sizeof kc, "%.4000s/kopt", buf);
		snprintf(tc, sizeof tc, "%.4000s/torch", buf);
		writable[nw++] = kc;
		writable[nw++] = tc;
	}
	uint64_t rights = fs_writes(abi) | READS;
	int bad = allow_reads(rs, reads) < 0;
	for (int i = 0; i < nw; i++) {
		if (!writable[i] || !*writable[i])
			continue;
		mkdirs(writable[i]); /* a cache folder that does not exist yet */
		bad |= allow_path(rs, writable[i], rights) < 0;
	}
	bad |= allow_dev(rs, abi) < 0;
	char self[64];
	snprintf(self, sizeof self, "/proc/%ld", (long)getpid());
	st->proc = proc_open();
	bad |= allow_path(rs, st->proc ? "/proc" : self, file_writes(abi) | READS) < 0;
	if (!st->proc) {
		setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 1);
		note(st, "%s", "root, and /proc/sys cannot be made read-only: children of the worker "
			       "cannot start CUDA (Inductor compiles in the worker; no memcheck)");
	}
	const char *more = getenv("KOPT_SANDBOX_WRITE");
	for (const char *p = more; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n && n < sizeof buf) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			bad |= allow_path(rs, buf, rights) < 0;
		}
		p += n + (p[n] == ':');
	}
	if (bad || syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		note(st, "cannot apply the Landlock ruleset: %s", strerror(errno));
		close(rs);
		return -1;
	}
	close(rs);
	st->fs = true;
	return 0;
}
#endif

int sandbox_enter(struct sandbox_state *st)
{
	return sandbox_enter_reading(st, NULL);
}

int sandbox_enter_reading(struct sandbox_state *st, const char *const *reads)
{
	memset(st, 0, sizeof *st);
	const char *sw = getenv("KOPT_SANDBOX");
	st->off = sw && (strcmp(sw, "off") == 0 || strcmp(sw, "0") == 0 || strcmp(sw, "no") == 0);

	/* the scratch folder, and where the caches are before TMPDIR moves */
	const char *t = getenv("TMPDIR");
	char tmp[PATH_MAX], path[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", t && *t ? t : "/tmp");
	const char *given = getenv("KOPT_SCRATCH");
	if (given && *given && !ours(given)) {
		note(st, "the scratch folder %s is not this user's own (a link, another owner, or open to "
			 "others); using a new one", given);
		given = NULL;
	}
	if (given && *given) {
		if (!realpath(given, st->scratch)) {
			note(st, "cannot make the scratch folder: %s", strerror(errno));
			return -1;
		}
		claim(st->scratch);
	} else {
		snprintf(path, sizeof path, "%.4000s/kopt-worker-XXXXXX", tmp);
		if (!mkdtemp(path) || !realpath(path, st->scratch)) {
			note(st, "cannot make the scratch folder: %s", strerror(errno));
			return -1;
		}
		claim(st->scratch);
	}
	/* the compile caches under the spec's cache folder (koptmake sets
	 * KOPT_COMPILE_CACHE; worker.py says why), fixed here, before the
	 * sandbox names what may be written; a user's own setting wins */
	const char *cc = getenv("KOPT_COMPILE_CACHE");
	if (cc && *cc) {
		/* below the cache folder, which may be shared: a link there would
		 * make its target writable (koptmake checked; this is after it) */
		struct stat ls;
		static const char *const sub[] = { "", "/inductor", "/triton" };
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof path, "%.4000s%s", cc, sub[i]);
			if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
				note(st, "the compile cache %s is a symbolic link", path);
				return -1;
			}
		}
		snprintf(path, sizeof path, "%.4000s/inductor", cc);
		setenv("TORCHINDUCTOR_CACHE_DIR", path, 0);
		snprintf(path, sizeof path, "%.4000s/triton", cc);
		setenv("TRITON_CACHE_DIR", path, 0);
	}
	if (!getenv("TORCHINDUCTOR_CACHE_DIR")) {
		const struct passwd *pw = getpwuid(getuid());
		const char *user = getenv("USER") ? getenv("USER") : pw ? pw->pw_name : "unknown";
		snprintf(path, sizeof path, "%.3800s/torchinductor_%.200s", tmp, user);
		setenv("TORCHINDUCTOR_CACHE_DIR", path, 1);
	}
	setenv("TMPDIR", st->scratch, 1);
	st->landlock_abi = landlock_abi();
	if (st->off) {
		note(st, "%s", "the worker sandbox is off (KOPT_SANDBOX=off)");
		return 0;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		note(st, "cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}

#ifdef HAVE_LANDLOCK
	if (st->landlock_abi > 0 && landlock_confine(st, reads) < 0)
		return -1;
#endif
	if (!st->fs)
		note(st, "%s", "this kernel has no Landlock: reads of the home folder and writes outside the scratch "
			       "folder are not denied");

#ifdef HAVE_FILTER
	if (seccomp_filter() == 0)
		st->net = true;
	else
		note(st, "seccomp is not available (%s): network sockets are not denied", strerror(errno));
#else
	note(st, "%s", "no seccomp filter for this architecture: network sockets are not denied");
#endif
	if (geteuid() == 0) {
		if (drop_caps() < 0) {
			note(st, "root cannot give up its capabilities: %s", strerror(errno));
			return -1;
		}
		st->caps = true;
	}
	return 0;
}

const char *sandbox_describe(const struct sandbox_state *st)
{
	if (st->off)
		return "off (KOPT_SANDBOX=off)";
	if (st->fs && st->net)
		return "reads confined to the system's, Python's and the spec's folders, writes to the scratch folder and "
		       "caches (Landlock), no network (seccomp)";
	if (st->net)
		return "no network (seccomp); reads and writes not confined (no Landlock in this kernel)";
	if (st->fs)
		return "reads and writes confined (Landlock); network not denied (no seccomp)";
	return "none (neither Landlock nor seccomp)";
}
