/* engine/outdir.c: see outdir.h */
#define _GNU_SOURCE
#include <config.h>

#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/util.h"

bool outdir_component_ok(const char *s, size_t len)
{
	if (len == 0 || memchr(s, '/', len) || memchr(s, '\0', len))
		return false;
	return !(len == 1 && s[0] == '.') && !(len == 2 && s[0] == '.' && s[1] == '.');
}

bool outdir_rel_ok(const char *rel)
{
	const char *p = rel;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (!outdir_component_ok(p, len))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/*
 * Opens the folder of rel below root, one component at a time without
 * following links; *name points at rel's last component. create: make
 * what is missing and replace what is not a folder. Returns the folder's
 * descriptor, -1 with errno (and *bad the component that stopped it).
 */
static int open_folder(const char *root, const char *rel, bool create, const char **name, char **bad)
{
	*bad = NULL;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && kopt_mkdirs(root) == 0)
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const char *p = rel;
	for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		char *comp = xstrndup(p, (size_t)(slash - p));
		int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && create && (errno == ELOOP || errno == ENOTDIR)) {
			kopt_warn("'%s/%.*s' is not a folder (a symbolic link or a file); replaced by one", root,
				  (int)(slash - rel), rel);
			if (unlinkat(fd, comp, 0) < 0 && errno != ENOENT) {
				*bad = comp;
				close(fd);
				return -1;
			}
			errno = ENOENT;
		}
		if (sub < 0 && create && errno == ENOENT) {
			if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
				*bad = comp;
				close(fd);
				return -1;
			}
			fsync(fd); /* the new folder's entry */
			sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (sub < 0) {
			int e = errno;
			*bad = comp;
			close(fd);
			errno = e;
			return -1;
		}
		free(comp);
		close(fd);
		fd = sub;
	}
	*name = p;
	return fd;
}

int outdir_write(const char *root, const char *rel, const void *data, size_t n)
{
	static unsigned seq;
	if (!outdir_rel_ok(rel)) {
		kopt_error("cannot write '%s/%s': not a path of plain names below '%s'", root, rel, root);
		return -1;
	}
	const char *name;
	char *bad;
	int dfd = open_folder(root, rel, true, &name, &bad);
	if (dfd < 0) {
		kopt_error("cannot write '%s/%s': %s%s%s", root, rel, bad ? bad : "", bad ? ": " : "",
			   strerror(errno));
		free(bad);
		return -1;
	}
	char *tmp = xasprintf("%s.tmp%ld.%u", name, (long)getpid(), seq++);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int ok = fd >= 0 && kopt_write_all(fd, data, n) == 0 && fsync(fd) == 0;
	int e = errno;
	if (fd >= 0 && close(fd) < 0 && ok) {
		ok = 0;
		e = errno;
	}
	if (ok && renameat(dfd, tmp, dfd, name) < 0) {
		ok = 0;
		e = errno;
	}
	if (ok && fsync(dfd) < 0) {
		ok = 0;
		e = errno;
	}
	if (!ok) {
		kopt_error("cannot write '%s/%s': %s", root, rel, strerror(e));
		unlinkat(dfd, tmp, 0);
	}
	free(tmp);
	close(dfd);
	return ok ? 0 : -1;
}

enum outdir_state outdir_check(const char *root, const char *rel, uint64_t size, kopt_hash hash,
			       const char **why)
{
	const char *name;
	char *bad;
	*why = "";
	if (!outdir_rel_ok(rel)) {
		*why = "not a path of plain names";
		return OUTDIR_DIFFERS;
	}
	int dfd = open_folder(root, rel, false, &name, &bad);
	free(bad);
	if (dfd < 0) {
		if (errno == ENOENT)
			return OUTDIR_MISSING;
		*why = "a folder on its path is not a folder (a symbolic link?)";
		return OUTDIR_DIFFERS;
	}
	enum outdir_state r = OUTDIR_SAME;
	struct stat st;
	int fd = -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno == ENOENT ? OUTDIR_MISSING : OUTDIR_DIFFERS;
		*why = "it cannot be read";
	} else if (!S_ISREG(st.st_mode)) {
		r = OUTDIR_DIFFERS;
		*why = S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a regular file";
	} else if (size != UINT64_MAX && (uint64_t)st.st_size != size) {
		r = OUTDIR_DIFFERS;
		*why = st.st_size == 0 ? "it is empty" : "its size changed";
	} else if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = OUTDIR_DIFFERS;
		*why = "it cannot be read";
	} else {
		struct strbuf sb = STRBUF_INIT;
		char buf[65536];
		ssize_t got;
		while ((got = read(fd, buf, sizeof buf)) != 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			strbuf_add(&sb, buf, (size_t)got);
		}
		if (got < 0 || !hash_eq(hash_bytes(sb.buf ? sb.buf : "", sb.len), hash)) {
			r = OUTDIR_DIFFERS;
			*why = got < 0 ? "it cannot be read" : "its bytes changed";
		}
		strbuf_release(&sb);
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	return r;
}
