"""Scratch arrays on the stack of the kernel that uses them.

A policy scores a decision, and a census weighs the rows, with a few small tables (row
facts, scores per option, rows to pacify). Made with ``np.empty``, each costs an allocation
and a free, and the kernel that makes it must count references (core/jit.py,
``borrowing_jit``). ``stack_array`` gives an uninitialized
C-contiguous array of a size known at compile time in the calling kernel's stack frame,
with no MemInfo: reference counts on it do nothing, and it is gone when the kernel returns.

It must therefore never leave the kernel that made it: not returned, not stored. Pass it
down to callees as any array.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


def _shape_of(shape) -> tuple[int, ...] | None:
    """The dimensions of a literal int or a tuple of literal ints, else None."""
    dims = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not all(isinstance(d, types.IntegerLiteral) for d in dims):
        return None
    return tuple(int(d.literal_value) for d in dims)


@intrinsic
def stack_array(typingctx, shape, dtype):
    """``np.empty(shape, dtype)`` on the caller's stack; ``shape`` a constant int or tuple of
    constant ints (module-level constants are), ``dtype`` a numba scalar class."""
    dims = _shape_of(shape)
    if dims is None or not isinstance(dtype, types.DTypeSpec | types.NumberClass):
        raise TypingError("stack_array takes a constant shape and a dtype")
    element = dtype.dtype
    array_type = types.Array(element, len(dims), "C")

    def codegen(context, builder, signature, args):
        llvm_element = context.get_data_type(element)
        itemsize = context.get_abi_sizeof(llvm_element)
        count = 1
        for d in dims:
            count *= d
        # in the entry block: one slot per kernel, however often a loop asks for it
        data = cgutils.alloca_once(builder, llvm_element, size=max(count, 1))
        strides, step = [], itemsize
        for d in reversed(dims):
            strides.insert(0, step)
            step *= d
        intp = context.get_value_type(types.intp)
        array = make_array(array_type)(context, builder)
        populate_array(array, data=data,
                       shape=[intp(d) for d in dims], strides=[intp(s) for s in strides],
                       itemsize=intp(itemsize), meminfo=None)
        return array._getvalue()

    return array_type(shape, dtype), codegen
