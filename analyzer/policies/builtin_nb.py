"""Built-in policies, called through their machine-code address so that kernels stay cached
and each built-in is compiled once.

A kernel that called a built-in by name would link the policy's whole code into every
rules kernel on the way down to the decision (numba links and optimizes each kernel with
all it calls): those copies were a third of the engine's compile time. Instead an entry
kernel takes the address of the built-in, compiled once for ``POLICY_ARGS``, as an int64
and calls it there: the kernels take no callable, so numba still caches them on disk. The
address belongs to this process; the runner asks for it where the kernel runs
(``PolicySpec.kernel_arg``).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.callconv import excinfo_t
from numba.core.errors import TypingError
from numba.experimental.structref import _Utils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from analyzer.core.codes import N_POLICY_INFO
from analyzer.policies.greedy_nb import greedy_nb
from analyzer.policies.random_nb import random_nb
from analyzer.rules.decide_nb import ask_policy, call_policy


class _BuiltinId(NamedTuple):
    RANDOM: int = 0
    GREEDY: int = 1


BuiltinId = _BuiltinId()
BUILTIN_FUNCTIONS = {BuiltinId.RANDOM: random_nb, BuiltinId.GREEDY: greedy_nb}

_INT_2D = types.Array(types.int64, 2, "C")
_INT_1D = types.Array(types.int64, 1, "C")
#: The numba types a kernel asks a policy with (docs/engine.md): kind, options, n_options,
#: the view (layout, hands, the public block of info), cards, params, rng.
POLICY_ARGS = (types.int64, _INT_2D, types.int64, types.Tuple((_INT_2D, _INT_2D, _INT_1D)),
               _INT_2D, types.Array(types.float64, 1, "C"),
               types.Array(types.uint64, 1, "C"))


@cache
def builtin_address(builtin_id: int) -> int:
    """Address of the built-in policy's compiled code for ``POLICY_ARGS`` in this process
    (compiled, or loaded from the disk cache, on first use)."""
    func = BUILTIN_FUNCTIONS[builtin_id]
    func.compile(POLICY_ARGS)
    compiled = func.overloads[POLICY_ARGS]
    if compiled.signature.return_type != types.int64:  # the call reads an int64
        raise RuntimeError(f"built-in policy {func.__name__} returns "
                           f"{compiled.signature.return_type}, not int64")
    address = compiled.library.get_pointer_to_function(compiled.fndesc.mangled_name)
    if not address:
        raise RuntimeError(f"no machine code for built-in policy {func.__name__}")
    return address


@intrinsic
def call_at_address(typingctx, address, kind, options, n_options, state, cards, params, rng):
    """``policy(...)`` for the policy compiled at ``address`` with numba's calling convention."""
    arg_types = (kind, options, n_options, state, cards, params, rng)
    if tuple(types.unliteral(t) for t in arg_types) != POLICY_ARGS:
        raise TypingError(f"a built-in policy is compiled for {POLICY_ARGS}, not {arg_types}")

    def codegen(context, builder, signature, args):
        casted = [context.cast(builder, v, t, u)
                  for v, t, u in zip(args[1:], signature.args[1:], POLICY_ARGS, strict=True)]
        return _emit_call(context, builder, args[0], casted)

    return types.int64(types.int64, *arg_types), codegen


@intrinsic
def ask_game_at_address(typingctx, address, kind, n_options, g, cards):
    """The policy at ``address`` asked about ``g``'s options: ``call_at_address`` with the
    arguments taken from ``g`` without reference counts.

    Reading an array out of ``g`` in numba code takes a reference (an atomic update, and
    another to give it back), and a decision passes six: together the largest cost of a
    decision after the policy itself. ``g`` holds every one of them for the whole call and a
    policy keeps none (it returns an int), so here they are lent instead.
    """
    fields = getattr(g, "field_dict", {})
    view_types = tuple(fields.get(name) for name in ("layout", "hands", "info"))
    arg_types = (types.unliteral(kind), fields.get("options"), types.unliteral(n_options),
                 types.Tuple(view_types) if None not in view_types else None, cards,
                 fields.get("params"), fields.get("policy_rng"))
    if arg_types != POLICY_ARGS:
        raise TypingError(f"a built-in policy is compiled for {POLICY_ARGS}, not {arg_types}")

    def codegen(context, builder, signature, args):
        address, kind, n_options, game, cards = args
        data = _Utils(context, builder, signature.args[3]).get_data_struct(game)
        info_type = fields["info"]
        info = context.make_array(info_type)(context, builder, value=data.info)
        public = context.make_array(info_type)(context, builder)  # info[:N_POLICY_INFO]
        n_public = context.get_constant(types.intp, N_POLICY_INFO)
        item = context.get_constant(types.intp, info_type.dtype.bitwidth // 8)
        populate_array(public, data=info.data, shape=[n_public], strides=[item],
                       itemsize=info.itemsize, meminfo=info.meminfo, parent=info.parent)
        view = context.make_tuple(builder, POLICY_ARGS[3],
                                  [data.layout, data.hands, public._getvalue()])
        return _emit_call(context, builder, address, [kind, data.options, n_options, view,
                                                      cards, data.params, data.policy_rng])

    return types.int64(types.int64, kind, n_options, g, cards), codegen


def _emit_call(context, builder, address, values):
    """Call the policy at ``address`` on ``values`` (of ``POLICY_ARGS``), propagating an
    exception it raises; the int64 it returns."""
    call_conv = context.call_conv
    fnty = call_conv.get_function_type(types.int64, POLICY_ARGS)
    callee = builder.inttoptr(address, ir.PointerType(fnty))
    retty = call_conv.get_return_type(types.int64).pointee
    retval = cgutils.alloca_once_value(builder, cgutils.get_null_value(retty))
    excinfo = cgutils.alloca_once(builder, ir.PointerType(excinfo_t), name="excinfo")
    packed = list(call_conv._get_arg_packer(POLICY_ARGS).as_arguments(builder, values))
    code = builder.call(callee, [retval, excinfo, *packed])
    status = call_conv._get_return_status(builder, code, builder.load(excinfo))
    with cgutils.if_unlikely(builder, status.is_error):
        call_conv.return_status_propagate(builder, status)
    return context.get_returned_value(builder, types.int64, builder.load(retval))


@overload(call_policy, inline="always")
def _call_builtin_policy(policy, kind, options, n_options, state, cards, params, rng):
    if not isinstance(policy, types.Integer):
        return None

    def impl(policy, kind, options, n_options, state, cards, params, rng):
        return call_at_address(policy, kind, options, n_options, state, cards, params, rng)

    return impl


@overload(ask_policy, inline="always")
def _ask_builtin_policy(policy, g, cards, kind, n_options):
    if not isinstance(policy, types.Integer):
        return None

    def impl(policy, g, cards, kind, n_options):
        return ask_game_at_address(policy, kind, n_options, g, cards)

    return impl
