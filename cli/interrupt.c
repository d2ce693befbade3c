/* interrupt.c: Ctrl-C taken on a thread of its own (see interrupt.h for why). */
#include "cli/interrupt.h"

#include <pthread.h>
#include <unistd.h>

/* The command line's state for one run at a time (interrupt.h: main thread only). */
static volatile sig_atomic_t interrupt_flag;
static void (*interrupt_old_handler)(int);
static sigset_t interrupt_old_mask;
static pthread_t interrupt_taker;
static int interrupt_have_taker;

static void on_sigint(int sig) {
    (void)sig;
    interrupt_flag = 1;
    signal(SIGINT, SIG_DFL); /* a second Ctrl-C ends the process at once */
}

/* The taking thread: SIGINT unblocked here alone; it waits in pause(), a cancellation point. */
static void *take_sigint(void *arg) {
    (void)arg;
    sigset_t only_int;
    sigemptyset(&only_int);
    sigaddset(&only_int, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &only_int, NULL);
    for (;;) pause();
    return NULL;
}

const volatile sig_atomic_t *cli_interrupt_begin(void) {
    interrupt_flag = 0;
    interrupt_old_handler = signal(SIGINT, on_sigint);
    sigset_t only_int;
    sigemptyset(&only_int);
    sigaddset(&only_int, SIGINT);
    pthread_sigmask(SIG_BLOCK, &only_int, &interrupt_old_mask);
    interrupt_have_taker = pthread_create(&interrupt_taker, NULL, take_sigint, NULL) == 0;
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
    signal(SIGINT, interrupt_old_handler);
    pthread_sigmask(SIG_SETMASK, &interrupt_old_mask, NULL);
}
