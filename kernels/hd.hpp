#pragma once
// FLYSIM_HD marks a function that both backends compile: the CPU pool with g++
// (-ffp-contract=off) and the CUDA engine with nvcc (-fmad=false). Writing the
// arithmetic once is what makes the engines bit-exact with each other.
#if defined(__CUDACC__)
#define FLYSIM_HD __host__ __device__
#else
#define FLYSIM_HD
#endif
