/* comm.c: the "self" comm (one process) and the choice of a comm (see comm.h). */
#include "replay/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

static int self_iallreduce(tta_comm *c, float *buf, size_t n, void **req, char *err, size_t errlen) {
    (void)c, (void)buf, (void)n, (void)err, (void)errlen;
    *req = NULL; /* the sum over one rank is the buffer itself */
    return 0;
}

static int self_wait(tta_comm *c, void *req, char *err, size_t errlen) {
    (void)c, (void)req, (void)err, (void)errlen;
    return 0;
}

static int self_broadcast(tta_comm *c, void *buf, size_t bytes, int root, char *err, size_t errlen) {
    (void)c, (void)buf, (void)bytes, (void)root, (void)err, (void)errlen;
    return 0;
}

static int self_allreduce_double(tta_comm *c, double *v, char *err, size_t errlen) {
    (void)c, (void)v, (void)err, (void)errlen;
    return 0;
}

static void self_destroy(tta_comm *c) { free(c); }

static const tta_comm_ops self_ops = {
    .name = "self",
    .device_memory = 0,
    .iallreduce_sum = self_iallreduce,
    .wait = self_wait,
    .broadcast = self_broadcast,
    .allreduce_double = self_allreduce_double,
    .destroy = self_destroy,
};

tta_comm *tta_comm_self_create(void) {
    tta_comm *c = callocCheck(1, sizeof *c);
    c->ops = &self_ops;
    c->rank = 0;
    c->size = 1;
    return c;
}

int tta_comm_launched_by_mpi(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

tta_comm *tta_comm_create(const char *kind, char *err, size_t errlen) {
    if (!kind || !*kind) kind = tta_comm_launched_by_mpi() ? "mpi" : "self";
    if (!strcmp(kind, "self")) return tta_comm_self_create();
    if (!strcmp(kind, "mpi")) return tta_comm_mpi_create(err, errlen);
    if (!strcmp(kind, "nccl")) return tta_comm_nccl_create(err, errlen);
    snprintf(err, errlen, "comm \"%s\": unknown (self, mpi, nccl)", kind);
    return NULL;
}

