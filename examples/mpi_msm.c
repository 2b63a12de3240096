/* mpi_msm.c - one BN254 MSM split over MPI ranks.
   Build: make build/mpi_msm (needs mpicc). Run: mpirun -np 2 ./build/mpi_msm [LOG2_N]
   Each rank takes its GPU(s) by local rank (mgpu_desc.gpus_per_rank = 1; without CUDA its
   CPU devices) and a share of the n = 2^LOG2_N points (default 2^16) in proportion to its
   devices' throughput_weight, makes its random scalars and points, and computes the MSM
   of its share with mgpu_msm_multi on its devices. The partial sums are added by
   MPI_Reduce with an MPI operation that adds two points (an MSM of the two with scalars 1,
   on the CPU device). Rank 0 gathers all the inputs, computes the whole MSM on its CPU
   device and compares; prints the time, each rank's share and the combine's time, and
   exits 1 on a mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "%s: %s\n", #call, mgpu_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* MPI operation: inout[i] = in[i] + inout[i] (Jacobian points). */
static void add_points(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const mgpu_bn254_jacobian *a = (const mgpu_bn254_jacobian *)in;
    mgpu_bn254_jacobian *b = (mgpu_bn254_jacobian *)inout;
    mgpu_bn254_affine pts[2];
    mgpu_bn254_scalar ones[2];
    mgpu_stream cpu;
    int i;
    (void)type;
    memset(ones, 0, sizeof ones);
    ones[0].limb[0] = ones[1].limb[0] = 1;
    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    for (i = 0; i < *len; i++) {
        CHECK(mgpu_bn254_to_affine(&a[i], &pts[0], 0));
        CHECK(mgpu_bn254_to_affine(&b[i], &pts[1], 0));
        CHECK(mgpu_msm(ones, pts, 2, NULL, &b[i], cpu));
    }
}

int main(int argc, char **argv)
{
    mgpu_desc desc;
    mgpu_device_info info;
    mgpu_bn254_scalar *scalars, *all_scalars = NULL;
    mgpu_bn254_affine *points, *all_points = NULL, got, want;
    mgpu_bn254_jacobian partial, total, reference;
    MPI_Datatype point_type;
    MPI_Op add;
    mgpu_stream cpu;
    double weight = 0, *weights, sum = 0, t0, t_msm, t_max, t_combine;
    int rank, nranks, log2n = argc > 1 ? atoi(argv[1]) : 16, i, ok = 1;
    int *counts, *displs, *bytes_s, *bytes_p, *displs_s, *displs_p;
    size_t n, mine;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (log2n < 1 || log2n > 24) log2n = 16;
    n = (size_t)1 << log2n;
    memset(&desc, 0, sizeof desc);
    desc.gpus_per_rank = 1;              /* this rank's GPU, round-robin by local rank */
    CHECK(mgpu_init(&desc));
    for (i = 0; i < mgpu_device_count(); i++) {
        CHECK(mgpu_device_info_get(i, &info));
        weight += info.throughput_weight;
    }

    /* this rank's share: contiguous, in proportion to the devices' weights */
    weights = (double *)malloc((size_t)nranks * sizeof *weights);
    counts = (int *)malloc((size_t)nranks * 6 * sizeof *counts);
    if (!weights || !counts) MPI_Abort(MPI_COMM_WORLD, 1);
    displs = counts + nranks; bytes_s = displs + nranks; bytes_p = bytes_s + nranks;
    displs_s = bytes_p + nranks; displs_p = displs_s + nranks;
    MPI_Allgather(&weight, 1, MPI_DOUBLE, weights, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (i = 0; i < nranks; i++) sum += weights[i];
    {
        double before = 0;
        for (i = 0; i < nranks; i++) {
            size_t lo = (size_t)((double)n * before / sum), hi;
            before += weights[i];
            hi = i == nranks - 1 ? n : (size_t)((double)n * before / sum);
            counts[i] = (int)(hi - lo);
            displs[i] = (int)lo;
            bytes_s[i] = counts[i] * (int)sizeof(mgpu_bn254_scalar); displs_s[i] = displs[i] * (int)sizeof(mgpu_bn254_scalar);
            bytes_p[i] = counts[i] * (int)sizeof(mgpu_bn254_affine); displs_p[i] = displs[i] * (int)sizeof(mgpu_bn254_affine);
        }
    }
    mine = (size_t)counts[rank];
    scalars = (mgpu_bn254_scalar *)malloc((mine ? mine : 1) * sizeof *scalars);
    points = (mgpu_bn254_affine *)malloc((mine ? mine : 1) * sizeof *points);
    if (!scalars || !points) MPI_Abort(MPI_COMM_WORLD, 1);
    CHECK(mgpu_bn254_random_scalars(scalars, mine, 1000 + (uint64_t)rank));
    CHECK(mgpu_bn254_random_points(points, mine, 2000 + (uint64_t)rank));

    /* the MSM of this rank's share on its devices */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    CHECK(mgpu_msm_multi(scalars, points, mine, 1, NULL, &partial, NULL, 0));
    t_msm = MPI_Wtime() - t0;
    /* the partial sums added across ranks */
    MPI_Type_contiguous((int)sizeof(mgpu_bn254_jacobian), MPI_BYTE, &point_type);
    MPI_Type_commit(&point_type);
    MPI_Op_create(add_points, 1, &add);
    MPI_Barrier(MPI_COMM_WORLD);         /* the combine alone, not the wait for the slowest rank */
    t0 = MPI_Wtime();
    MPI_Reduce(&partial, &total, 1, point_type, add, 0, MPI_COMM_WORLD);
    t_combine = MPI_Wtime() - t0;
    MPI_Reduce(&t_msm, &t_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* rank 0 checks the whole MSM on its CPU device */
    if (rank == 0) {
        all_scalars = (mgpu_bn254_scalar *)malloc(n * sizeof *all_scalars);
        all_points = (mgpu_bn254_affine *)malloc(n * sizeof *all_points);
        if (!all_scalars || !all_points) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(scalars, bytes_s[rank], MPI_BYTE, all_scalars, bytes_s, displs_s, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(points, bytes_p[rank], MPI_BYTE, all_points, bytes_p, displs_p, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
        CHECK(mgpu_msm(all_scalars, all_points, n, NULL, &reference, cpu));
        CHECK(mgpu_bn254_to_affine(&total, &got, 0));
        CHECK(mgpu_bn254_to_affine(&reference, &want, 0));
        ok = !memcmp(&got, &want, sizeof got);
        CHECK(mgpu_device_info_get(0, &info));
        printf("mpi_msm: 2^%d points over %d ranks (%s): %.3f ms (slowest rank), MPI combine %.3f ms; %s\n", log2n,
               nranks, info.backend == MGPU_BACKEND_CUDA ? "GPUs" : "CPU devices", t_max * 1e3, t_combine * 1e3,
               ok ? "equal to the CPU device's MSM" : "MISMATCH with the CPU device's MSM");
        for (i = 0; i < nranks; i++)
            printf("  rank %d: points [%d, %d), %.1f%%\n", i, displs[i], displs[i] + counts[i], 100.0 * counts[i] / (double)n);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Op_free(&add);
    MPI_Type_free(&point_type);
    CHECK(mgpu_shutdown());
    free(all_scalars); free(all_points); free(scalars); free(points); free(weights); free(counts);
    MPI_Finalize();
    return ok ? 0 : 1;
}
