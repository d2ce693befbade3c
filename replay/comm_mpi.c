/* comm_mpi.c: the "mpi" comm over OpenMPI's MPI_COMM_WORLD (see comm.h): non-blocking
 * allreduce on host memory, so reductions of gradient buckets overlap the backward pass. */
#include "replay/comm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/check.h"

typedef struct {
    int we_initialised; /* 1: MPI_Finalize at destroy */
} mpi_ctx;

/* Fills err with MPI's text for code; returns -1. */
static int mpi_fail(int code, const char *what, char *err, size_t errlen) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", code);
    snprintf(err, errlen, "mpi: %s: %s", what, text);
    return -1;
}

static int mpi_iallreduce(tta_comm *c, float *buf, size_t n, void **req, char *err, size_t errlen) {
    (void)c;
    if (n > (size_t)0x7fffffff) {
        snprintf(err, errlen, "mpi: allreduce of %zu floats is larger than MPI's int count", n);
        return -1;
    }
    MPI_Request *r = mallocCheck(sizeof *r);
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, r);
    if (rc != MPI_SUCCESS) {
        free(r);
        return mpi_fail(rc, "MPI_Iallreduce", err, errlen);
    }
    *req = r;
    return 0;
}

static int mpi_wait(tta_comm *c, void *req, char *err, size_t errlen) {
    (void)c;
    MPI_Request *r = req;
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    free(r);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "MPI_Wait", err, errlen);
}

static int mpi_broadcast(tta_comm *c, void *buf, size_t bytes, int root, char *err, size_t errlen) {
    (void)c;
    if (bytes > (size_t)0x7fffffff) {
        snprintf(err, errlen, "mpi: broadcast of %zu bytes is larger than MPI's int count", bytes);
        return -1;
    }
    int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "MPI_Bcast", err, errlen);
}

static int mpi_allreduce_double(tta_comm *c, double *v, char *err, size_t errlen) {
    (void)c;
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "MPI_Allreduce", err, errlen);
}

/* MPI_Test also drives the progress engine that non-blocking collectives need. A finished
 * request becomes MPI_REQUEST_NULL, which MPI_Wait then returns at once. */
static int mpi_test(tta_comm *c, void *req, int *done) {
    (void)c;
    *done = 0;
    return MPI_Test((MPI_Request *)req, done, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
}

static void mpi_destroy(tta_comm *c) {
    mpi_ctx *x = c->ctx;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (x->we_initialised && !finalized) MPI_Finalize();
    free(x);
    free(c);
}

static const tta_comm_ops mpi_ops = {
    .name = "mpi",
    .device_memory = 0,
    .iallreduce_sum = mpi_iallreduce,
    .wait = mpi_wait,
    .broadcast = mpi_broadcast,
    .allreduce_double = mpi_allreduce_double,
    .destroy = mpi_destroy,
    .test = mpi_test,
};

tta_comm *tta_comm_mpi_create(char *err, size_t errlen) {
    int inited = 0;
    MPI_Initialized(&inited);
    mpi_ctx *x = callocCheck(1, sizeof *x);
    if (!inited) {
        int rc = MPI_Init(NULL, NULL);
        if (rc != MPI_SUCCESS) {
            mpi_fail(rc, "MPI_Init", err, errlen);
            free(x);
            return NULL;
        }
        x->we_initialised = 1;
    }
    /* Errors come back as codes (reported with file and reason), not as an abort. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tta_comm *c = callocCheck(1, sizeof *c);
    c->ops = &mpi_ops;
    c->ctx = x;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    return c;
}
