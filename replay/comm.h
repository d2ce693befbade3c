/* comm.h: collective communication for data-parallel replay (internal to replay/).
 *
 * One interface, three implementations:
 *   "self"  one process, no library: allreduce is the identity (K = 1 without MPI);
 *   "mpi"   OpenMPI: MPI_Iallreduce on host memory, for the cpu backend (comm_mpi.c);
 *   "nccl"  NCCL's ncclAllReduce on device memory, for the cuda backend (replay/cuda/comm_nccl.c,
 *           compiled where CUDA is found). Ranks and sizes come from MPI, which also carries
 *           NCCL's unique id.
 *
 * Buffers are in the memory of the backend the comm was made for (host for "self" and "mpi",
 * device for "nccl": ops->device_memory says which, so that a trainer finds where to reduce
 * gradients without knowing the comm's name). An allreduce is started with iallreduce and finished with wait, so that the
 * trainer can start a bucket's reduction while the backward pass goes on (overlap); time spent
 * inside wait is the exposed communication time, time from start to the end of wait the total.
 *
 * Ownership: the caller owns the comm (comm->destroy(comm)) and the buffers; a request is owned
 * by the comm until wait returns. Errors are values: 0, or -1 with a message in err.
 */
#ifndef TTA_REPLAY_COMM_H
#define TTA_REPLAY_COMM_H

#include <stddef.h>

typedef struct tta_comm tta_comm;

/* A comm's methods: one `static const` table per kind (comm.c, comm_mpi.c, cuda/comm_nccl.c). */
typedef struct tta_comm_ops {
    const char *name;  /* "self", "mpi", "nccl" */
    int device_memory; /* 1: reduced buffers are in a device backend's memory (nccl); 0: host memory */
    /* Starts an in-place sum over all ranks of buf[0..n); *req identifies it for wait. */
    int (*iallreduce_sum)(tta_comm *c, float *buf, size_t n, void **req, char *err, size_t errlen);
    /* Waits for a started reduction; req is invalid afterwards. */
    int (*wait)(tta_comm *c, void *req, char *err, size_t errlen);
    /* Copies root's bytes to every rank (initial weights). */
    int (*broadcast)(tta_comm *c, void *buf, size_t bytes, int root, char *err, size_t errlen);
    /* Sum of one double over ranks (counts, times): every rank gets the result. */
    int (*allreduce_double)(tta_comm *c, double *value, char *err, size_t errlen);
    void (*destroy)(tta_comm *c);
    /* Optional (NULL: unknown until wait): *done = 1 when a started reduction has finished, also
     * letting it advance while the caller computes (MPI progresses non-blocking collectives only
     * inside MPI calls). req stays valid for wait. */
    int (*test)(tta_comm *c, void *req, int *done);
} tta_comm_ops;

/* One comm: its methods, this process's rank and the number of ranks, its state. */
struct tta_comm {
    const tta_comm_ops *ops;
    int rank, size;
    void *ctx;
};

/* The comm for this process: "mpi" when it was started by mpirun (OMPI_COMM_WORLD_SIZE or
 * PMI_SIZE set) and MPI is built in, else "self". kind may force one ("self", "mpi", "nccl").
 * NULL with a message in err when the asked kind is unavailable. */
tta_comm *tta_comm_create(const char *kind, char *err, size_t errlen);
tta_comm *tta_comm_self_create(void);
tta_comm *tta_comm_mpi_create(char *err, size_t errlen);
/* Where built with CUDA: NCCL over the ranks of MPI, on the current CUDA device. */
tta_comm *tta_comm_nccl_create(char *err, size_t errlen);

/* 1 when this process runs under an MPI launcher. */
int tta_comm_launched_by_mpi(void);

#endif
