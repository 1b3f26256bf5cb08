/* runtime/vendor.h: the _kopt_vendor built-in module (cuBLASLt's and
 * cuDNN's heuristics) that kopt-worker registers before Python starts. */
#ifndef KOPT_VENDOR_H
#define KOPT_VENDOR_H

#include <Python.h>

PyObject *kopt_init_vendor_module(void);

#endif
