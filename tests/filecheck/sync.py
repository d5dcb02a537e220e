# Barriers and fences, one PTX instruction each as CUDA C compiles them: syncthreads is bar.sync 0, the
# predicate forms reduce in the barrier (bar.red.popc/and/or), syncwarp is bar.warp.sync with its mask, and
# the fences are membar (or the equivalent fence.sc) at block, device and system scope.
# RUN: %gpujit ptx %s -k barriers --sig 'void(int32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k fences --sig 'void(int32[::1])' --arch sm_75 -o %t.fence.ptx
# RUN: FileCheck %s --check-prefix=FENCE < %t.fence.ptx
# RUN: %ptxas-all %t.fence.ptx
import gpujit as cuda


@cuda.jit
def barriers(out):
    t = cuda.threadIdx.x
    cuda.syncthreads()
    n = cuda.syncthreads_count(t % 3 == 0)
    every = cuda.syncthreads_and(t < 1000)
    some = cuda.syncthreads_or(t == 5)
    cuda.syncwarp(0x0000FFFF)
    cuda.syncwarp()
    out[t] = n + every + some


@cuda.jit
def fences(out):
    out[0] = 1
    cuda.threadfence_block()
    out[1] = 2
    cuda.threadfence()
    out[2] = 3
    cuda.threadfence_system()
    out[3] = 4

# CHECK: .visible .entry {{.*}}barriers
# CHECK: bar.sync 0;
# CHECK: bar.red.popc.u32 {{%r[0-9]+}}, 0, {{%p[0-9]+}};
# CHECK: bar.red.and.pred {{%p[0-9]+}}, 0, {{%p[0-9]+}};
# CHECK: bar.red.or.pred {{%p[0-9]+}}, 0, {{%p[0-9]+}};
# CHECK: bar.warp.sync 65535;
# CHECK: bar.warp.sync -1;

# FENCE: .visible .entry {{.*}}fences
# FENCE: st.global.b32
# FENCE-NEXT: {{membar.cta|fence.sc.cta}};
# FENCE: st.global.b32
# FENCE-NEXT: {{membar.gl|fence.sc.gpu}};
# FENCE: st.global.b32
# FENCE-NEXT: {{membar.sys|fence.sc.sys}};
