# Votes lower to vote.sync (ballot gives int32, all/any/eq a bool), matches to match.sync (sm_70+; 64-bit
# values match as b64), activemask() to activemask.b32 and lanemask_lt() to the %lanemask_lt register.
# RUN: %gpujit ptx %s --sig 'void(int32[::1], float64[::1], int32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --sig 'void(int32[::1], float64[::1], int32[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
import gpujit as gpu


@gpu.jit
def votes(x, y, out):
    i = gpu.grid(1)
    mask = gpu.activemask()
    count = gpu.ballot_sync(mask, x[i] > 0)
    every = gpu.all_sync(mask, x[i])
    some = gpu.any_sync(0xffffffff, x[i] > 1)
    same = gpu.eq_sync(0xffffffff, x[i] > 2)
    peers = gpu.match_any_sync(mask, x[i])
    lanes, equal = gpu.match_all_sync(0xffffffff, y[i])
    below = gpu.lanemask_lt()
    out[i] = count + every + some + same + peers + lanes + equal + below

# CHECK: .visible .entry {{.*}}votes
# CHECK: activemask.b32
# CHECK: vote.sync.ballot.b32
# CHECK: vote.sync.all.pred
# CHECK: vote.sync.any.pred {{.*}}, -1;
# CHECK: vote.sync.uni.pred
# CHECK: match.any.sync.b32
# CHECK: match.all.sync.b64 {{.*}}|%p{{[0-9]+}}, %rd{{[0-9]+}}, -1;
# CHECK: %lanemask_lt

# TYPED-DAG: count: int32
# TYPED-DAG: every: bool
# TYPED-DAG: peers: int32
# TYPED-DAG: lanes: int32
# TYPED-DAG: equal: bool
# TYPED-DAG: mask: uint32
# TYPED-DAG: below: uint32
