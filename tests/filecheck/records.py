# Record (structured dtype) fields are addressed at the byte offsets NumPy gives them: `ary[i].b` is the
# element's address plus the field's offset, a sub-array field `ary[i].d[3]` the field's address plus the
# index, and a field of a packed record is loaded and stored with the alignment its offset proves (align 1
# for a float64 at offset 1; the stored float goes through an integer move on NVPTX). A record argument is one pointer parameter. Type strings spell records as numba
# prints them, so the CLI compiles record kernels; a bad field name is an error at the name.
# RUN: %gpujit ptx %s -k set_fields --sig 'void(Record(a[type=float64;offset=0],b[type=int32;offset=8],c[type=complex64;offset=12],d[type=nestedarray(uint8, (5,));offset=20];32;True)[::1], int64, int32)' --emit llvm | FileCheck %s --check-prefix=FIELDS
# RUN: %gpujit ptx %s -k packed --sig 'void(Record(x[type=int8;offset=0],y[type=float64;offset=1];9;False)[:])' --emit llvm | FileCheck %s --check-prefix=PACKED
# RUN: %gpujit ptx %s -k by_value --sig 'void(Record(x[type=int8;offset=0],y[type=float64;offset=1];9;False), float64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: not %gpujit ptx %s -k bad_field --sig 'void(Record(x[type=int8;offset=0],y[type=float64;offset=1];9;False)[:])' 2>&1 | FileCheck %s --check-prefix=ERR
# RUN: not %gpujit ptx %s -k packed --sig 'void(Record(x[type=int8;offset=0],y[type=float64;offset=4];9;False)[:])' 2>&1 | FileCheck %s --check-prefix=ERRSIG
import gpujit as cuda


@cuda.jit
def set_fields(ary, i, v):
    ary[i].b = v
    ary[i]["a"] = 1.5
    ary[i].d[3] = 7


# FIELDS: getelementptr [32 x i8], ptr %ary
# FIELDS: %b = getelementptr inbounds nuw i8, ptr %{{[0-9]+}}, i64 8
# FIELDS-NEXT: store i32 %v{{[0-9]*}}, ptr %b
# FIELDS-NEXT: store double 1.5{{.*}}, ptr %{{[0-9]+}}, align 8
# FIELDS: getelementptr inbounds nuw i8, ptr %{{[0-9]+}}, i64 23
# FIELDS-NEXT: store i8 7


@cuda.jit
def packed(ary):
    ary[0].y += 1.0


# The stored float's bits go through an integer move first (store_element: ptxas otherwise stores the low
# byte of a float register split into byte stores as the value converted to an integer).
# PACKED: load double, ptr %y, align 1
# PACKED: [[BITS:%[0-9]+]] = {{(tail )?}}call i64 asm "mov.b64 $0, $1;", "=l,d"(double
# PACKED: store i64 [[BITS]], ptr %y, align 1


@cuda.jit
def by_value(r, out):
    out[0] = r.y + r.x


# PTX: .entry {{.*}}by_value{{.*}}(
# PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_0,


@cuda.jit
def bad_field(ary):
    ary[0].yy = 1


# ERR: records.py:[[# @LINE-3]]:12: error: record has no field 'yy'; did you mean 'y'?; its fields are 'x', 'y'
# ERRSIG: record field 'y' ends at byte 12, past the itemsize 9
