/*
 * engine/slurm.h: workers started through Slurm's srun.
 *
 * A device whose launcher is an srun line (its first word's last path
 * component is "srun") starts each worker as a Slurm job step: a step of
 * the allocation koptmake runs in (salloc or sbatch; SLURM_JOB_ID is then
 * set), else a job of its own. The worker pool asks this module for three
 * things:
 *
 * - the command line: the launcher with koptmake's additions, each only
 *   where the launcher does not say it already: --job-name=NAME (the step's
 *   name, which sacct and squeue show), --ntasks=1 (one worker per step,
 *   whatever the allocation's task count), --exact (a step gets only what it
 *   asks for, so steps of one allocation do not wait for each other) and,
 *   where the cluster has GPUs as generic resources (sinfo lists a "gpu"
 *   GRES), --gres=gpu:1, so that Slurm gives each worker a GPU of its own
 *   and sets its CUDA_VISIBLE_DEVICES;
 * - why a step ended: srun's exit status and its last stderr lines, read
 *   for Slurm's own words (a step cancelled, a time limit, a node lost, no
 *   resources), so that a scheduler's failure reads as one;
 * - ending a step: SIGTERM to srun, which forwards it to the step and ends
 *   it ("forcing job termination"), then, if srun is not gone within the
 *   grace time, SIGKILL and scancel of every step and job of this user that
 *   carries the worker's name. SIGKILL alone would leave the step running.
 *
 * Nothing here keeps state; strings returned belong to the caller.
 */
#ifndef KOPT_SLURM_H
#define KOPT_SLURM_H

#include <stdbool.h>
#include <sys/types.h>

/* seconds srun is given to end its step after SIGTERM */
#define SLURM_GRACE_S 5.0

/* whether argv (n words) is an srun line */
bool slurm_is_srun(char *const *argv, int n);

/* whether the cluster the srun line reaches has a "gpu" GRES in the
 * partition it names (sinfo -h -o %G, beside srun); false when sinfo cannot
 * tell, or when the line already asks for GPUs itself */
bool slurm_wants_gres(char *const *argv, int n);

/* the argv that starts program through the srun line argv (n words) as a
 * step named name, with the additions above; NULL-terminated, every
 * string newly allocated (slurm_argv_free) */
char **slurm_worker_argv(char *const *argv, int n, const char *program, const char *name, bool gres);
void slurm_argv_free(char **argv);

/* Slurm's reason for the end of a step, from srun's last stderr lines
 * ('\n'-separated); NULL when they say nothing Slurm-specific */
char *slurm_reason(const char *stderr_tail);

/* Ends the srun process (and process group) pid that runs the step named
 * name: SIGTERM, a wait until deadline (kopt_now() seconds), then SIGKILL
 * and scancel by name. Returns srun's wait status. The caller may have
 * sent the SIGTERM already (several workers end at once). */
int slurm_end(pid_t pid, const char *name, const char *srun, double deadline);

#endif
