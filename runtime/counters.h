/* runtime/counters.h: the _kopt_counters built-in module (GPU performance
 * counters per kernel launch, CUPTI's range profiler) that kopt-worker
 * registers before Python starts. */
#ifndef KOPT_COUNTERS_H
#define KOPT_COUNTERS_H

#include <Python.h>

PyObject *kopt_init_counters_module(void);

#endif
