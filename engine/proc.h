/*
 * engine/proc.h: a child process with its stdin, stdout and stderr on
 * pipes, in a process group of its own (killing the group kills what it
 * started), that dies with koptmake.
 */
#ifndef KOPT_PROC_H
#define KOPT_PROC_H

#include <sys/types.h>

struct strbuf;

/* sets NAME=value in a NULL-terminated array of malloc'd "NAME=value" entries */
void proc_env_put(char ***env, const char *name, const char *value);
/*
 * Starts argv[0] (searched on PATH) with env. *in, *out and *err get the
 * parent's ends of the child's stdin, stdout and stderr, non-blocking.
 * Returns the child's pid, or -1 with errno set.
 */
pid_t proc_start(char *const *argv, char *const *env, int *in, int *out, int *err);
/* appends how a child with waitpid's status ended: "killed by signal 9
 * (Killed)", "exited with status 3" */
void proc_describe_exit(struct strbuf *sb, int status);

#endif
