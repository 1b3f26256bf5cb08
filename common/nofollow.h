/*
 * common/nofollow.h: files below a folder, opened without following a
 * symbolic link below it: the cache folder's (.kopt/: the lock, the action
 * map, objects/, env, the build log, memory.jsonl, workers/, compile/).
 *
 * A path is a ROOT, opened as the user named it (it may be a link: the
 * user chose it), and a REL below it whose every folder is opened from its
 * parent's descriptor with O_NOFOLLOW | O_DIRECTORY (openat) and whose last
 * component is opened with O_NOFOLLOW. A link anywhere below ROOT fails
 * with ELOOP (a file where a folder should be: ENOTDIR), and what it points
 * at is never opened, made, written or removed: a cache folder on a shared
 * disk cannot be turned against files outside it. kopt-out/ has its own
 * rules (engine/outdir.h: links there are replaced).
 */
#ifndef KOPT_NOFOLLOW_H
#define KOPT_NOFOLLOW_H

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util.h"

/* The folder root/rel (rel NULL or "": root itself) as a descriptor; with
 * create, the folders missing on the way are made (0777 less the umask).
 * -1 with errno. */
int nofollow_dir(const char *root, const char *rel, bool create);
/* root/rel opened with flags | O_NOFOLLOW | O_CLOEXEC (and mode); with
 * O_CREAT the folders on the way are made too. -1 with errno. */
int nofollow_open(const char *root, const char *rel, int flags, mode_t mode);
/* the whole of root/rel into sb (reset first): 0, or -1 with errno */
int nofollow_read(const char *root, const char *rel, struct strbuf *sb);
/* lstat of root/rel, its folders opened as above: 0, or -1 with errno */
int nofollow_stat(const char *root, const char *rel, struct stat *st);
/* rename root/from to root/to (the same folder or not), unlink root/rel */
int nofollow_rename(const char *root, const char *from, const char *to);
int nofollow_unlink(const char *root, const char *rel);
/* rmdir root/rel (only an empty folder goes) */
int nofollow_rmdir(const char *root, const char *rel);
/* the folder root/rel to read (readdir), or NULL with errno */
DIR *nofollow_opendir(const char *root, const char *rel);
/* what errno e means for such a path: ELOOP and ENOTDIR in words ("a
 * symbolic link is on its path; koptmake follows none in its cache
 * folder"), else strerror (static) */
const char *nofollow_why(int e);

#endif
