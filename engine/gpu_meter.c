/*
 * engine/gpu_meter.c: see gpu_meter.h.
 */
#include <config.h>

#include "gpu_meter.h"

void gpu_meter_tick(struct gpu_meter *m, double now, int load)
{
	if (m->load > 0 && now > m->seen)
		m->s += (now - m->seen) / m->load;
	m->seen = now;
	m->load = load > 0 ? load : 1;
}
