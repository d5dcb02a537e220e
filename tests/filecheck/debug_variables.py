# --debug (numba's debug=True) describes every Python variable in DWARF: a DISubprogram per function with its
# parameters' types, a DILocalVariable per argument (numbered from 1) and local, each declared on its stack
# slot (llvm.dbg.declare), scalar types under numba's names, an array as gpujit's {data, shape, strides}
# struct, a tuple as the struct of its elements, a complex number as {real, imag}, a record as a pointer to
# its fields. Optimized (-O2), the device function is inlined and its variables keep their own subprogram
# through inlined-at locations. ptxas assembles the PTX either way; --lineinfo alone describes no variables.
# RUN: %gpujit ptx %s -k kern --sig 'float32[::1], UniTuple(int64, 2), complex64, int32' --debug -O0 --emit llvm \
# RUN:   | FileCheck %s
# RUN: %gpujit ptx %s -k kern --sig 'float32[::1], UniTuple(int64, 2), complex64, int32' --debug -O0 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k kern --sig 'float32[::1], UniTuple(int64, 2), complex64, int32' --debug -O2 --emit llvm \
# RUN:   | FileCheck %s --check-prefix=INLINED
# RUN: %gpujit ptx %s -k kern --sig 'float32[::1], UniTuple(int64, 2), complex64, int32' --debug -O2 -o %t.O2.ptx
# RUN: %ptxas-all %t.O2.ptx
# RUN: %gpujit ptx %s -k kern --sig 'float32[::1], UniTuple(int64, 2), complex64, int32' --lineinfo --emit llvm \
# RUN:   | FileCheck %s --check-prefix=LINES
import gpujit as gpu


@gpu.jit(device=True)
def scaled(v, k):
    product = v * k
    return product


@gpu.jit
def kern(out, pair, c, n):
    i = gpu.grid(1)
    flag = i < n
    x = scaled(c.real, pair[0])
    if flag and i < out.size:
        out[i] = x

# CHECK: #dbg_declare(ptr %k, [[K:![0-9]+]], !DIExpression(),
# CHECK: !DICompileUnit(language: DW_LANG_C_plus_plus, {{.*}}emissionKind: FullDebug
# CHECK-DAG: !DISubprogram(name: "scaled", {{.*}}line: 22, type: [[SCALED_TY:![0-9]+]]
# CHECK-DAG: [[SCALED_TY]] = !DISubroutineType(types: [[SCALED_TYPES:![0-9]+]])
# CHECK-DAG: [[SCALED_TYPES]] = !{[[F64:![0-9]+]], [[F32:![0-9]+]], [[I64:![0-9]+]]}
# CHECK-DAG: [[F64]] = !DIBasicType(name: "float64", size: 64, encoding: DW_ATE_float)
# CHECK-DAG: [[F32]] = !DIBasicType(name: "float32", size: 32, encoding: DW_ATE_float)
# CHECK-DAG: [[I64]] = !DIBasicType(name: "int64", size: 64, encoding: DW_ATE_signed)
# CHECK-DAG: !DILocalVariable(name: "v", arg: 1, scope: [[SCALED:![0-9]+]], {{.*}}type: [[F32]])
# CHECK-DAG: [[K]] = !DILocalVariable(name: "k", arg: 2, scope: [[SCALED]], {{.*}}type: [[I64]])
# CHECK-DAG: !DILocalVariable(name: "product", scope: [[SCALED]], {{.*}}type: [[F64]])
# CHECK-DAG: !DISubprogram(name: "kern", {{.*}}line: 28, type: [[KERN_TY:![0-9]+]]
# CHECK-DAG: [[KERN_TY]] = !DISubroutineType(types: [[KERN_TYPES:![0-9]+]])
# CHECK-DAG: [[KERN_TYPES]] = !{null, [[ARR:![0-9]+]], [[TUP:![0-9]+]], [[CPLX:![0-9]+]], [[I32:![0-9]+]]}
# CHECK-DAG: [[ARR]] = !DICompositeType(tag: DW_TAG_structure_type, name: "float32[::1]", size: 192, align: 64, elements: [[ARR_M:![0-9]+]])
# CHECK-DAG: [[ARR_M]] = !{[[DATA:![0-9]+]], [[SHAPE:![0-9]+]], [[STRIDES:![0-9]+]]}
# CHECK-DAG: [[DATA]] = !DIDerivedType(tag: DW_TAG_member, name: "data", baseType: [[PTR:![0-9]+]], size: 64)
# CHECK-DAG: [[PTR]] = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: [[F32]], size: 64)
# CHECK-DAG: [[SHAPE]] = !DIDerivedType(tag: DW_TAG_member, name: "shape", baseType: [[DIMS:![0-9]+]], size: 64, offset: 64)
# CHECK-DAG: [[STRIDES]] = !DIDerivedType(tag: DW_TAG_member, name: "strides", baseType: [[DIMS]], size: 64, offset: 128)
# CHECK-DAG: [[DIMS]] = !DICompositeType(tag: DW_TAG_array_type, baseType: [[I64]], size: 64
# CHECK-DAG: [[TUP]] = !DICompositeType(tag: DW_TAG_structure_type, name: "UniTuple(int64, 2)", size: 128, {{.*}}elements: [[TUP_M:![0-9]+]])
# CHECK-DAG: [[TUP_M]] = !{[[F0:![0-9]+]], [[F1:![0-9]+]]}
# CHECK-DAG: [[F1]] = !DIDerivedType(tag: DW_TAG_member, name: "f1", baseType: [[I64]], size: 64, offset: 64)
# CHECK-DAG: [[CPLX]] = !DICompositeType(tag: DW_TAG_structure_type, name: "complex64", size: 64, {{.*}}elements: [[CPLX_M:![0-9]+]])
# CHECK-DAG: [[CPLX_M]] = !{[[RE:![0-9]+]], [[IM:![0-9]+]]}
# CHECK-DAG: [[IM]] = !DIDerivedType(tag: DW_TAG_member, name: "imag", baseType: [[F32]], size: 32, offset: 32)
# CHECK-DAG: [[I32]] = !DIBasicType(name: "int32", size: 32, encoding: DW_ATE_signed)
# CHECK-DAG: !DILocalVariable(name: "c", arg: 3, scope: [[KERN:![0-9]+]], {{.*}}type: [[CPLX]])
# CHECK-DAG: !DILocalVariable(name: "out", arg: 1, scope: [[KERN]], {{.*}}type: [[ARR]])
# CHECK-DAG: !DILocalVariable(name: "pair", arg: 2, scope: [[KERN]], {{.*}}type: [[TUP]])
# CHECK-DAG: !DILocalVariable(name: "n", arg: 4, scope: [[KERN]], {{.*}}type: [[I32]])
# CHECK-DAG: !DILocalVariable(name: "flag", scope: [[KERN]], {{.*}}type: [[BOOL:![0-9]+]])
# CHECK-DAG: [[BOOL]] = !DIBasicType(name: "bool", size: 8, encoding: DW_ATE_boolean)
# CHECK-DAG: !DILocalVariable(name: "i", scope: [[KERN]], {{.*}}type: [[I64]])

# PTX: .target sm_80, debug
# PTX: .section .debug_info
# PTX-NOT: .section .debug_pubnames

# INLINED-DAG: !DILocalVariable(name: "product", scope: [[SCALED:![0-9]+]]
# INLINED-DAG: !DILocation(line: 23, column: 5, scope: [[SCALED]], inlinedAt: [[AT:![0-9]+]])
# INLINED-DAG: [[AT]] = distinct !DILocation(line: 31, column: 5, scope: [[KERN:![0-9]+]])

# LINES: !DICompileUnit(language: DW_LANG_Python, {{.*}}emissionKind: DebugDirectivesOnly
# LINES-NOT: !DILocalVariable
# LINES-NOT: #dbg_declare
