/*
 * agents/builtin/persist.h: a looped reduction made persistent, as a source
 * edit of Inductor's kernel (persist.c says how and why).
 */
#ifndef KOPT_PERSIST_H
#define KOPT_PERSIST_H

/* the longest row the edit holds in registers, and the coder's bound: a row
 * of 64 KiB of float32 (runtime/python/kopt/knobs.py's PERSIST_MAX, the
 * screen's persist=on, is checked against it by tests/lists.py) */
#define PERSIST_MAX_RBLOCK 16384

/*
 * The edited source of a triton_red_* kernel whose row loops re-read what an
 * earlier loop loaded, with every loop run once and the row read once; sets
 * *rblock to the R0_BLOCK its config must have (the next power of two of the
 * kernel's constant r0_numel). NULL when the kernel is not of that shape: a
 * dynamic r0_numel, fewer than two row loops, an inner loop, nothing read
 * twice, or a row longer than max_rblock.
 */
char *persist_edit(const char *src, int max_rblock, int *rblock);

#endif
