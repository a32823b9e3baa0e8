// SPDX-License-Identifier: MIT
// The kernels `rocm-doctor verify` runs on every GPU. They use compiler
// builtins only, so they build without the HIP headers (-nogpuinc) at build
// time and compile unchanged with hiprtc on the user's machine, where the HIP
// macros are predefined.
#ifndef __global__
#define __global__ __attribute__((global))
#endif

static inline __attribute__((device)) unsigned rd_global_id(void)
{
    // workgroup_size_x is the 16-bit field at byte 4 of the dispatch packet
    const unsigned short *packet = (const unsigned short *)__builtin_amdgcn_dispatch_ptr();
    return __builtin_amdgcn_workgroup_id_x() * packet[2] + __builtin_amdgcn_workitem_id_x();
}

// c = a + b, element by element
extern "C" __global__ void rd_vector_add(const unsigned *a, const unsigned *b, unsigned *c, unsigned n)
{
    unsigned i = rd_global_id();
    if (i < n)
        c[i] = a[i] + b[i];
}

// *sum += a[i] for every i, through device-scope atomics
extern "C" __global__ void rd_atomic_sum(const unsigned *a, unsigned *sum, unsigned n)
{
    unsigned i = rd_global_id();
    if (i < n)
        __hip_atomic_fetch_add(sum, a[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// nothing: the launch round trip alone
extern "C" __global__ void rd_empty(void)
{
}
