# With a single @jit kernel in the file, --kernel may be left out; -o writes the output to a file; every
# stage can be printed with --emit; --version and --help answer with exit status 0.
# RUN: %gpujit ptx %s --sig 'void(int64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s --sig 'void(int64[::1])' --emit tokens | FileCheck %s --check-prefix=STAGE
# RUN: %gpujit ptx %s --sig 'void(int64[::1])' --emit ast | FileCheck %s --check-prefix=STAGE
# RUN: %gpujit ptx %s --sig 'void(int64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: %gpujit ptx %s --sig 'void(int64[::1])' --emit llvm -O0 | FileCheck %s --check-prefix=LLVM
# RUN: %gpujit --version | FileCheck %s --check-prefix=VERSION
# RUN: %gpujit ptx --help | FileCheck %s --check-prefix=HELP
import gpujit as gpu


@gpu.jit
def only_kernel(out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = i * i

# PTX: .visible .entry {{.*}}only_kernel
# STAGE: only_kernel
# TYPED: only_kernel
# TYPED: int64
# LLVM: define {{.*}}only_kernel
# VERSION: gpujit {{[0-9]+\.[0-9]+\.[0-9]+}} (LLVM 22.
# HELP: --kernel
# HELP: --sig
# HELP: --arch
# HELP: --emit
# HELP: Examples:
