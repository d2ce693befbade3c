/* comm_nccl.c: the "nccl" comm (see comm.h): sums of gradient buckets over the ranks with
 * NCCL on device memory, for the cuda backend.
 *
 * Ranks and size come from MPI (MPI_COMM_WORLD, initialised here if the program has not),
 * which also carries NCCL's unique id from rank 0 to the others. One NCCL communicator on the
 * device that tta_cuda_select_device picks (node-local rank modulo the device count), one
 * stream of its own. A reduction is queued on that stream after the backend's queued work
 * (an event recorded on the backend's stream, waited for by the comm's), so it starts as soon
 * as the bucket's gradients are computed while the host goes on queueing the backward pass;
 * the request is an event recorded after the reduction, and wait synchronises on it.
 */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "replay/comm.h"
#include "replay/cuda/cuda_internal.h"
#include "replay/cuda_module.h"

typedef struct {
    ncclComm_t nccl;
    cudaStream_t stream;
    int we_initialised_mpi; /* 1: MPI_Finalize at destroy */
} nccl_ctx;

/* A started reduction: done when the event has completed. */
typedef struct {
    cudaEvent_t done;
} nccl_req;

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t errlen) {
    snprintf(err, errlen, "nccl: %s: %s", what, cudaGetErrorString(e));
    return -1;
}
static int nccl_fail(ncclResult_t r, const char *what, char *err, size_t errlen) {
    snprintf(err, errlen, "nccl: %s: %s", what, ncclGetErrorString(r));
    return -1;
}
static int mpi_fail(int code, const char *what, char *err, size_t errlen) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", code);
    snprintf(err, errlen, "nccl: %s: %s", what, text);
    return -1;
}

/* Makes the comm's stream wait for everything queued so far on the device (the buffers a
 * collective reads were written on the backend's stream). The trainer reduces the gradients
 * after backward in one call, so waiting for the device costs no overlap, and the comm needs no
 * handle on the backend's stream. */
static int after_compute(nccl_ctx *x, char *err, size_t errlen) {
    (void)x;
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : cuda_fail(e, "waiting for the backend's work", err, errlen);
}

static int nccl_iallreduce(tta_comm *c, float *buf, size_t n, void **req, char *err, size_t errlen) {
    nccl_ctx *x = c->ctx;
    *req = NULL;
    if (after_compute(x, err, errlen)) return -1;
    ncclResult_t r = ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, x->nccl, x->stream);
    if (r != ncclSuccess) return nccl_fail(r, "ncclAllReduce", err, errlen);
    nccl_req *q = mallocCheck(sizeof *q);
    cudaError_t e = cudaEventCreateWithFlags(&q->done, cudaEventDisableTiming);
    if (e == cudaSuccess) {
        e = cudaEventRecord(q->done, x->stream);
        if (e != cudaSuccess) cudaEventDestroy(q->done);
    }
    if (e != cudaSuccess) {
        free(q);
        return cuda_fail(e, "cudaEventRecord", err, errlen);
    }
    *req = q;
    return 0;
}

static int nccl_wait(tta_comm *c, void *req, char *err, size_t errlen) {
    (void)c;
    nccl_req *q = req;
    if (!q) return 0;
    cudaError_t e = cudaEventSynchronize(q->done);
    cudaEventDestroy(q->done);
    free(q);
    return e == cudaSuccess ? 0 : cuda_fail(e, "cudaEventSynchronize", err, errlen);
}

static int nccl_test(tta_comm *c, void *req, int *done) {
    (void)c;
    nccl_req *q = req;
    *done = 1;
    if (!q) return 0;
    cudaError_t e = cudaEventQuery(q->done);
    if (e == cudaErrorNotReady) {
        *done = 0;
        return 0;
    }
    *done = e == cudaSuccess;
    return e == cudaSuccess ? 0 : -1;
}

/* Blocking: returns when root's bytes are in buf on this rank. */
static int nccl_broadcast(tta_comm *c, void *buf, size_t bytes, int root, char *err, size_t errlen) {
    nccl_ctx *x = c->ctx;
    if (after_compute(x, err, errlen)) return -1;
    ncclResult_t r = ncclBroadcast(buf, buf, bytes, ncclChar, root, x->nccl, x->stream);
    if (r != ncclSuccess) return nccl_fail(r, "ncclBroadcast", err, errlen);
    cudaError_t e = cudaStreamSynchronize(x->stream);
    return e == cudaSuccess ? 0 : cuda_fail(e, "cudaStreamSynchronize", err, errlen);
}

/* A host value: over MPI, which already connects the ranks. */
static int nccl_allreduce_double(tta_comm *c, double *v, char *err, size_t errlen) {
    (void)c;
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "MPI_Allreduce", err, errlen);
}

static void nccl_destroy(tta_comm *c) {
    nccl_ctx *x = c->ctx;
    if (x->stream) cudaStreamSynchronize(x->stream);
    if (x->nccl) ncclCommDestroy(x->nccl);
    if (x->stream) cudaStreamDestroy(x->stream);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (x->we_initialised_mpi && !finalized) MPI_Finalize();
    free(x);
    free(c);
}

static const tta_comm_ops nccl_ops = {
    .name = "nccl",
    .device_memory = 1,
    .iallreduce_sum = nccl_iallreduce,
    .wait = nccl_wait,
    .broadcast = nccl_broadcast,
    .allreduce_double = nccl_allreduce_double,
    .destroy = nccl_destroy,
    .test = nccl_test,
};

tta_comm *tta_cuda_comm_nccl_create(char *err, size_t errlen) {
    nccl_ctx *x = callocCheck(1, sizeof *x);
    tta_comm *c = callocCheck(1, sizeof *c);
    c->ops = &nccl_ops;
    c->ctx = x;
    /* the device first: without one there is nothing to communicate on */
    if (tta_cuda_select_device(err, errlen) < 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "nccl: %s", why);
        nccl_destroy(c);
        return NULL;
    }
    int inited = 0, rc;
    MPI_Initialized(&inited);
    if (!inited) {
        rc = MPI_Init(NULL, NULL);
        if (rc != MPI_SUCCESS) {
            mpi_fail(rc, "MPI_Init", err, errlen);
            nccl_destroy(c);
            return NULL;
        }
        x->we_initialised_mpi = 1;
    }
    /* Errors come back as codes (reported with file and reason), not as an abort. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    /* Rank 0 makes the id; every rank must reach the broadcast, so a failure on rank 0 is
     * sent as an all-zero id, which the others recognise and fail on too. */
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t r = ncclSuccess;
    if (c->rank == 0) r = ncclGetUniqueId(&id);
    rc = MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        mpi_fail(rc, "MPI_Bcast of the NCCL id", err, errlen);
        nccl_destroy(c);
        return NULL;
    }
    ncclUniqueId none;
    memset(&none, 0, sizeof none);
    if (r != ncclSuccess || memcmp(&id, &none, sizeof id) == 0) {
        if (r != ncclSuccess)
            nccl_fail(r, "ncclGetUniqueId", err, errlen);
        else
            snprintf(err, errlen, "nccl: rank 0 could not create the NCCL id");
        nccl_destroy(c);
        return NULL;
    }
    cudaError_t e = cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        x->stream = NULL;
        cuda_fail(e, "cudaStreamCreate", err, errlen);
        nccl_destroy(c);
        return NULL;
    }
    r = ncclCommInitRank(&x->nccl, c->size, id, c->rank);
    if (r != ncclSuccess) {
        x->nccl = NULL;
        nccl_fail(r, "ncclCommInitRank", err, errlen);
        nccl_destroy(c);
        return NULL;
    }
    return c;
}
