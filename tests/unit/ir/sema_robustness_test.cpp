// Unusual kernels: analysis must accept or reject each without throwing, and never report an error for a
// valid kernel nor stay silent on an invalid one.
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

struct Case {
  const char* body;  // the kernel `k`, after the standard imports
  const char* sig;
  bool ok;
};

class Robustness : public ::testing::TestWithParam<Case> {};

TEST_P(Robustness, AcceptsOrRejectsWithoutThrowing) {
  const Case& c = GetParam();
  std::string src =
      std::string("import math\nimport os\nimport numpy as np\nfrom numba import cuda\n") + c.body;
  Analyzed a;
  ASSERT_NO_THROW(a = analyze_source(src, "k", c.sig)) << c.body;
  EXPECT_EQ(a.program != nullptr, c.ok) << c.body << "\n" << a.diags.render();
  EXPECT_EQ(a.diags.has_errors(), !c.ok) << c.body;
  if (a.program) {
    EXPECT_NO_THROW(dump_typed(*a.program));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Robustness,
    ::testing::Values(
        Case{"def k(a):\n    t = ()\n    for i in range(3):\n        t = (t,)\n", "int64[:]", false},
        Case{"def k(a):\n    x = math\n", "int64[:]", false},
        Case{"def k(a):\n    x = cuda.shared\n", "int64[:]", false},
        Case{"def k(a):\n    x = cuda.threadIdx\n", "int64[:]", true},
        Case{"def k(a):\n    x = np.float32\n", "int64[:]", false},
        Case{"def k(a):\n    a += 1\n", "int64[:]", false},
        Case{"def k(a):\n    a[0] += 1\n    a[-1] -= a[0] * 2\n", "int64[:]", true},
        Case{"def k(a, n):\n    i = cuda.grid(1)\n    if 0 <= i < n <= a.size:\n        a[i] = i\n",
             "int64[:], int32", true},
        Case{"def k(a):\n    x = a and 1\n", "int64[:]", false},
        Case{"def k(a):\n    x = 1 if a[0] else 2.5\n    a[0] = x\n", "float64[:]", true},
        Case{"def k(a):\n    x = a if a[0] else 2.5\n", "float64[:]", false},
        Case{"def k(a):\n    x = None\n", "float64[:]", false},
        Case{"def k(a):\n    os.getcwd()\n", "float64[:]", false},
        Case{"def k(a):\n    s = 'text'\n", "float64[:]", true},  // a string value (ir/charseq.h)
        Case{"def k(a):\n    a[0] = 'text'\n", "float64[:]", false},
        Case{"def k(a):\n    'a comment string'\n    return\n", "float64[:]", true},
        Case{"def k(a):\n    return None\n", "float64[:]", true},
        Case{"def k(a):\n    i = 0\n    while i < 10:\n        i += 1\n    else:\n        a[0] = i\n",
             "float64[:]", true},
        Case{"def d(x):\n    return x\n\ndef k(a):\n    a[0] = d(y=1)\n", "float64[:]", false},
        Case{"def d(x):\n    return e(x)\n\ndef e(y):\n    return d(y)\n\ndef k(a):\n    a[0] = d(1)\n",
             "float64[:]", false},
        Case{"def d(v, i):\n    return v[i]\n\ndef k(a, b):\n    a[0] = d(a, 0) + d(b, 1)\n",
             "float64[:], float64[::1]", true},
        Case{"def k(a):\n    x = a[0]\n    x = (1, 2)\n", "float64[:]", false},
        Case{"def k(a):\n    x, y = 1\n", "float64[:]", false},
        Case{"def k(a):\n    a.shape = 3\n", "float64[:]", false},
        Case{"def k(a):\n    f = math.sqrt\n", "float64[:]", false},
        Case{"def k(a):\n    math.sqrt\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = a[0](1)\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = math(1)\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = 2 ** 70\n", "float64[:]", true},
        Case{"def k(a):\n    a[0] = 18446744073709551615 + 1\n", "uint64[:]", true},
        Case{"def k(a):\n    a[0] = 1 // 0\n", "int64[:]", true},
        Case{"def k(a):\n    x = cuda.local.array((2, 0), np.int32)\n", "int64[:]", false},
        Case{"def k(a):\n    x = cuda.local.array(2)\n", "int64[:]", false},
        Case{"def k(a):\n    x = cuda.local.array(2, np.int32, 3)\n", "int64[:]", false},
        Case{"def k(a):\n    x = cuda.local.array(2, dtype='float32')\n    x[0] = 1\n", "int64[:]", true},
        Case{"def k(a):\n    x = cuda.atomic.add(a, (0, 1), 1)\n", "float32[:]", false},
        Case{"def k(a):\n    x = cuda.atomic.and_(a, 0, 1)\n", "float32[:]", false},
        Case{"def k(a):\n    x = cuda.atomic.max(a, (0, 1), 1)\n", "int32[:, :]", true},
        Case{"def k(a):\n    cuda.syncwarp(mask=0xffff)\n    cuda.syncwarp()\n    n = "
             "cuda.syncthreads_count(a[0] > 0)\n",
             "int32[:]", true},
        Case{"def k(a):\n    cuda.syncthreads(1)\n", "int32[:]", false},
        Case{"def k(a):\n    x = cuda.blockIdx.x\n    t = a.shape\n    a[0] = t[x]\n", "int32[:]", true},
        Case{"def k(a):\n    t = (1, 2.5)\n    i = 1\n    a[0] = t[i]\n", "float64[:]", false},
        Case{"def k(a):\n    a[0, 0] = len(a.shape) + len(a)\n", "float64[:, :]", true},
        Case{"def k(a):\n    a[0] = len(3)\n", "float64[:]", false},
        Case{"def k(a):\n    x = -a[0]\n    y = not a[0]\n    z = ~True\n    a[0] = x + y + z\n",
             "float64[:]", true},
        Case{"def k(a):\n    a[0] = ~a[0]\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = a[0] is None\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = 1 in (1, 2)\n", "float64[:]", true},
        Case{"def k(a):\n    a[0] = 1 in a\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = 1 not in (a, 2)\n", "float64[:]", false},
        Case{"def k(a):\n    a[0] = math.sqrt(True) + math.floor(np.float16(2)) + abs(False)\n", "float64[:]",
             true},
        Case{"def k(a):\n    a[0] = np.float32\n", "float64[:]", false},
        Case{"def k(a):\n    for i, j in range(3):\n        pass\n", "float64[:]", false},
        Case{"def k(a):\n    for i in range(0.5):\n        pass\n", "float64[:]", false},
        Case{"def k(a):\n    for i in range(1, 5, 0):\n        pass\n", "float64[:]", false},
        Case{"def k(a, b):\n    a[0] = b\n", "float64[:], complex64", false},
        Case{"def k(a):\n    pass\n", "(int64, float32[:])", true}));

}  // namespace
}  // namespace gpujit::test
