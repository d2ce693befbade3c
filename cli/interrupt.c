/* interrupt.c: Ctrl-C and SIGTERM taken on a thread of their own (see interrupt.h for why). */
#include "cli/interrupt.h"

#include <pthread.h>
#include <unistd.h>

/* The command line's state for one run at a time (interrupt.h: main thread only). */
static volatile sig_atomic_t interrupt_flag;
static void (*interrupt_old_int)(int), (*interrupt_old_term)(int);
static sigset_t interrupt_old_mask;
static pthread_t interrupt_taker;
static int interrupt_have_taker;

static void on_stop_signal(int sig) {
    interrupt_flag = sig;
    signal(sig, SIG_DFL); /* the same signal again ends the process at once */
}

/* SIGINT and SIGTERM. */
static void stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

/* The taking thread: the signals unblocked here alone; it waits in pause(), a cancellation point. */
static void *take_signals(void *arg) {
    (void)arg;
    sigset_t set;
    stop_signals(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    for (;;) pause();
    return NULL;
}

const volatile sig_atomic_t *cli_interrupt_begin(void) {
    interrupt_flag = 0;
    interrupt_old_int = signal(SIGINT, on_stop_signal);
    interrupt_old_term = signal(SIGTERM, on_stop_signal);
    sigset_t set;
    stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, &interrupt_old_mask);
    interrupt_have_taker = pthread_create(&interrupt_taker, NULL, take_signals, NULL) == 0;
    if (interrupt_have_taker) pthread_setname_np(interrupt_taker, "tta-sigint");
    else pthread_sigmask(SIG_SETMASK, &interrupt_old_mask, NULL); /* the handler runs where it lands */
    return &interrupt_flag;
}

void cli_interrupt_end(void) {
    if (interrupt_have_taker) {
        pthread_cancel(interrupt_taker);
        pthread_join(interrupt_taker, NULL);
        interrupt_have_taker = 0;
    }
    signal(SIGINT, interrupt_old_int);
    signal(SIGTERM, interrupt_old_term);
    pthread_sigmask(SIG_SETMASK, &interrupt_old_mask, NULL);
}
