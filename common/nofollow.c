/* common/nofollow.c: see nofollow.h */
#define _GNU_SOURCE
#include <config.h>

#include "nofollow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the folder name below fd, not followed if a link: -1 with errno ELOOP
 * for a link (O_DIRECTORY | O_NOFOLLOW says ENOTDIR for one), ENOTDIR for
 * a file */
static int open_sub(int fd, const char *name)
{
	int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (sub < 0 && errno == ENOTDIR && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		errno = ELOOP;
	return sub;
}

/*
 * The folder that holds rel's last component, as a descriptor, and in
 * *last that component (a pointer into rel). Folders on the way are made
 * when create. -1 with errno.
 */
static int parent_of(const char *root, const char *rel, bool create, const char **last)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && kopt_mkdirs(root) == 0)
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const char *p = rel ? rel : "";
	for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		if (slash == p)
			continue; /* "a//b" */
		char *comp = xstrndup(p, (size_t)(slash - p));
		int sub = open_sub(fd, comp);
		if (sub < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, 0777) < 0 && errno != EEXIST) {
				int e = errno;
				free(comp);
				close(fd);
				errno = e;
				return -1;
			}
			sub = open_sub(fd, comp);
		}
		int e = errno;
		free(comp);
		close(fd);
		if (sub < 0) {
			errno = e;
			return -1;
		}
		fd = sub;
	}
	*last = p;
	return fd;
}

int nofollow_dir(const char *root, const char *rel, bool create)
{
	const char *last;
	if (!rel || !*rel)
		return parent_of(root, "", create, &last);
	int dfd = parent_of(root, rel, create, &last);
	if (dfd < 0 || !*last)
		return dfd;
	int fd = open_sub(dfd, last);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dfd, last, 0777) == 0 || errno == EEXIST)
			fd = open_sub(dfd, last);
	}
	int e = errno;
	close(dfd);
	errno = e;
	return fd;
}

int nofollow_open(const char *root, const char *rel, int flags, mode_t mode)
{
	const char *last;
	int dfd = parent_of(root, rel, (flags & O_CREAT) != 0, &last);
	if (dfd < 0)
		return -1;
	int fd = openat(dfd, last, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	int e = errno;
	close(dfd);
	errno = e;
	return fd;
}

int nofollow_read(const char *root, const char *rel, struct strbuf *sb)
{
	strbuf_reset(sb);
	int fd = nofollow_open(root, rel, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	char buf[65536];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		strbuf_add(sb, buf, (size_t)got);
	}
	close(fd);
	if (!sb->buf)
		strbuf_init(sb);
	return 0;
}

int nofollow_stat(const char *root, const char *rel, struct stat *st)
{
	const char *last;
	int dfd = parent_of(root, rel, false, &last);
	if (dfd < 0)
		return -1;
	int r = fstatat(dfd, *last ? last : ".", st, AT_SYMLINK_NOFOLLOW);
	int e = errno;
	close(dfd);
	errno = e;
	return r;
}

int nofollow_rename(const char *root, const char *from, const char *to)
{
	const char *lf, *lt;
	int ff = parent_of(root, from, false, &lf);
	if (ff < 0)
		return -1;
	int ft = parent_of(root, to, false, &lt);
	int r = ft < 0 ? -1 : renameat(ff, lf, ft, lt); /* a link at to is replaced, not followed */
	int e = errno;
	close(ff);
	if (ft >= 0)
		close(ft);
	errno = e;
	return r;
}

static int remove_at(const char *root, const char *rel, int flag)
{
	const char *last;
	int dfd = parent_of(root, rel, false, &last);
	if (dfd < 0)
		return -1;
	int r = unlinkat(dfd, last, flag);
	int e = errno;
	close(dfd);
	errno = e;
	return r;
}

int nofollow_unlink(const char *root, const char *rel)
{
	return remove_at(root, rel, 0);
}

int nofollow_rmdir(const char *root, const char *rel)
{
	return remove_at(root, rel, AT_REMOVEDIR);
}

DIR *nofollow_opendir(const char *root, const char *rel)
{
	int fd = nofollow_dir(root, rel, false);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

const char *nofollow_why(int e)
{
	if (e == ELOOP)
		return "it is a symbolic link, or one is on its path (koptmake follows none in its cache folder: "
		       "remove it)";
	if (e == ENOTDIR)
		return "a file stands where a folder should be on its path (remove it)";
	return strerror(e);
}
