"""A numba type of a library's own (an Opaque or Dummy subclass made with typeof_impl and register_model) named
in a kernel's signature: gpujit has no data model for it, and says so at the decorator instead of failing to
parse the type's name (docs/extending.md, "Not supported")."""

import pytest

import gpujit as gpu

numba_types = pytest.importorskip("numba.core.types")


def test_a_librarys_opaque_type_in_a_signature_is_a_clear_error():
    class LibraryType(numba_types.Opaque):
        pass

    sig = numba_types.void(numba_types.int64[::1], LibraryType("my_thing"))

    def k(out, thing):
        out[0] = 1

    with pytest.raises(TypeError, match=r"'my_thing' is a numba type of a library's own \(LibraryType, .*gpujit "
                                        r"has no data model for such types"):
        gpu.jit(sig)(k)


def test_numbas_own_opaque_types_still_spell_as_before():
    # numba's NumberClass is an Opaque too, of numba's own type modules: a dtype argument, "class(int32)"
    sig = numba_types.void(numba_types.int64[::1], numba_types.NumberClass(numba_types.int32))

    def k(out, dty):
        out[0] = dty(1)

    assert gpu.jit(sig)(k) is not None
