/* interrupt.h: Ctrl-C (SIGINT) or SIGTERM (timeout(1), a batch scheduler) during a long run
 * (`tta replay`): the first sets a flag that the run polls between steps, the same signal again
 * ends the process at once.
 *
 * Both are taken by a thread of their own (named tta-sigint), which only waits for them; the
 * calling thread blocks them between cli_interrupt_begin and cli_interrupt_end, and so do the threads
 * it starts in between (OpenMP's, the loader's, MPI's: they inherit its mask). Why: a handler's
 * signal frame is written below the stack pointer of the thread it interrupts, and oneDNN's
 * JIT-compiled sgemm kernels (2.6 here; fixed upstream in 3.11, oneDNN issue #4845, PR #4855)
 * point rsp into a heap workspace while they run: with the handler run on the computing thread,
 * dnnl_sgemm corrupted the heap (glibc's "corrupted size vs. prev_size": one Ctrl-C in 6 landing
 * in an evaluation of the mlp; a loop of 20,000 products beside a 200-us SIGALRM, every time; with
 * the handler on an alternate stack, never in 96,000 signals; docs/replay.md, "Fifth pass").
 * tests/cli/replay_resume.sh checks every thread's mask, and SIGTERM's clean stop.
 *
 * Ownership and threading: the flag is the one global of the replay's command line, owned here;
 * begin and end are called from the main thread, once each and in that order.
 */
#ifndef TTA_CLI_INTERRUPT_H
#define TTA_CLI_INTERRUPT_H

#include <signal.h>

/* Installs the handler of SIGINT and SIGTERM, blocks them in the calling thread and starts the
 * thread that takes them (without that thread, where threads cannot be started, the handler runs
 * wherever the signal lands). Returns the flag: 0, then the number of the first signal. */
const volatile sig_atomic_t *cli_interrupt_begin(void);

/* Stops the taking thread and restores both signals' handlers and the calling thread's mask as they
 * were before cli_interrupt_begin. */
void cli_interrupt_end(void);

#endif
