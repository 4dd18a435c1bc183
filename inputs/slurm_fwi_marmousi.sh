#!/bin/bash
# Example Slurm job: Marmousi FWI on 2 nodes x 4 GPUs, one MPI rank per GPU.
# pwave picks each rank's GPU from its node-local rank (SLURM_LOCALID / MPI shared-memory
# split); set PWAVE_DEVICE_ID or KOKKOS_DEVICE_ID to override. The shots of every iteration's
# minibatch are split over the ranks, so give inversion.batch_size at least the rank count.
#SBATCH --job-name=pwave-fwi
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
#SBATCH --output=pwave-%j.out

set -euo pipefail
# module load cuda openmpi kokkos kokkos-kernels    # site specific; see README "Building"
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
# GPU-aware MPI: detected (Open MPI, MPICH, Cray MPICH_GPU_SUPPORT_ENABLED, MVAPICH2
# MV2_USE_CUDA); force it with on/off when detection is wrong. The log says which path is used.
export PWAVE_GPU_AWARE_MPI=${PWAVE_GPU_AWARE_MPI:-auto}

# A wall-time-limited job: stop after 30 iterations with a checkpoint, resubmit with --resume.
srun --cpu-bind=cores build-cuda/bin/pwave run inputs/fwi_marmousi.yaml \
  --set inversion.batch_size=8 ${PWAVE_RESUME:+--resume} --stop-after 30
