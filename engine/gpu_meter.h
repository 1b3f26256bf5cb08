/*
 * engine/gpu_meter.h: a worker step's share of its GPU's time (internal to
 * engine/; the scheduler keeps one per running worker job).
 *
 * Captures compile side by side on one GPU (engine/worker_pool.c lets
 * steps that do not time share it): a step's seconds in a worker then
 * overstate what it cost the GPU. Its share counts each stretch of time
 * over the jobs that held a worker on that GPU during it, so that the
 * steps' shares add up to the time the GPU was busy (the report's
 * GPU-minutes). The scheduler ticks every meter at each change of who
 * holds a worker and before each wait: a stretch is counted at the load it
 * had.
 */
#ifndef KOPT_GPU_METER_H
#define KOPT_GPU_METER_H

struct gpu_meter {
	double s;     /* the share so far, seconds */
	double seen;  /* when s was last brought up to date */
	int load;     /* the jobs on the GPU since then; 0: not started */
};

/* brings m up to now (the stretch since the last tick over the load then),
 * then takes load as the GPU's load from now on */
void gpu_meter_tick(struct gpu_meter *m, double now, int load);

#endif
