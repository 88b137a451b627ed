"""What each rule family that waits registers, by name: the index revsrc/core/waiting.py
reads to know which family to register when a callable is first asked about.

Per family (in the order they registered when every family registered at import): the
names of the records it defines or extends, the `name_key` (module, name) of every
callable it defines, and, per fact, those of the callables it declares the fact of.
Made by registering each family with what it does recorded (`rules.measure_index`):

    python -c "import revsrc.rules as r; print(r.index_text(r.measure_index()), end='')" > new.py

and tests/test_rules.py fails when a family registers anything this index does not say.
"""

FAMILIES = {
    'copies': (
        (),
        (),
        {
            'view':
            (('numpy', 'all'), ('numpy', 'allclose'), ('numpy', 'amax'), ('numpy', 'amin'),
             ('numpy', 'angle'), ('numpy', 'any'), ('numpy', 'append'), ('numpy', 'arange'),
             ('numpy', 'argmax'), ('numpy', 'argmin'), ('numpy', 'argsort'),
             ('numpy', 'argwhere'), ('numpy', 'around'), ('numpy', 'array_equal'),
             ('numpy', 'average'), ('numpy', 'clip'), ('numpy', 'column_stack'),
             ('numpy', 'concatenate'), ('numpy', 'convolve'), ('numpy', 'copy'),
             ('numpy', 'count_nonzero'), ('numpy', 'cov'), ('numpy', 'cross'),
             ('numpy', 'cumprod'), ('numpy', 'cumsum'), ('numpy', 'diff'),
             ('numpy', 'digitize'), ('numpy', 'dot'), ('numpy', 'dstack'), ('numpy', 'empty'),
             ('numpy', 'empty_like'), ('numpy', 'eye'), ('numpy', 'fix'),
             ('numpy', 'flatnonzero'), ('numpy', 'full'), ('numpy', 'full_like'),
             ('numpy', 'gradient'), ('numpy', 'hstack'), ('numpy', 'identity'),
             ('numpy', 'indices'), ('numpy', 'inner'), ('numpy', 'interp'),
             ('numpy', 'isclose'), ('numpy', 'kron'), ('numpy', 'linspace'), ('numpy', 'max'),
             ('numpy', 'mean'), ('numpy', 'median'), ('numpy', 'min'), ('numpy', 'nanmean'),
             ('numpy', 'nansum'), ('numpy', 'nonzero'), ('numpy', 'ones'),
             ('numpy', 'ones_like'), ('numpy', 'outer'), ('numpy', 'pad'),
             ('numpy', 'partition'), ('numpy', 'polyval'), ('numpy', 'prod'),
             ('numpy', 'ravel_multi_index'), ('numpy', 'repeat'), ('numpy', 'roll'),
             ('numpy', 'round'), ('numpy', 'row_stack'), ('numpy', 'searchsorted'),
             ('numpy', 'select'), ('numpy', 'sinc'), ('numpy', 'sort'), ('numpy', 'stack'),
             ('numpy', 'std'), ('numpy', 'sum'), ('numpy', 'take'),
             ('numpy', 'take_along_axis'), ('numpy', 'tensordot'), ('numpy', 'tile'),
             ('numpy', 'trace'), ('numpy', 'trapezoid'), ('numpy', 'tri'), ('numpy', 'tril'),
             ('numpy', 'triu'), ('numpy', 'unravel_index'), ('numpy', 'var'),
             ('numpy', 'vstack'), ('numpy', 'where'), ('numpy', 'zeros'),
             ('numpy', 'zeros_like'), ('numpy.linalg', 'cholesky'), ('numpy.linalg', 'det'),
             ('numpy.linalg', 'eig'), ('numpy.linalg', 'eigh'), ('numpy.linalg', 'inv'),
             ('numpy.linalg', 'lstsq'), ('numpy.linalg', 'matrix_power'),
             ('numpy.linalg', 'norm'), ('numpy.linalg', 'pinv'), ('numpy.linalg', 'slogdet'),
             ('numpy.linalg', 'solve'), ('numpy.linalg', 'svd'),),
        }),
    'calculus': (
        ('convolve', 'diff', 'gradient', 'interp', 'polyval', 'trapezoid',),
        (('numpy', 'convolve'), ('numpy', 'diff'), ('numpy', 'gradient'), ('numpy', 'interp'),
         ('numpy', 'polyval'), ('numpy', 'trapezoid'),),
        {
        }),
    'indexing': (
        ('add_at', 'fill_diagonal', 'getitem', 'partition', 'sort', 'take', 'take_along_axis',),
        (('_operator', 'getitem'), ('numpy', 'partition'), ('numpy', 'sort'),
         ('numpy', 'take'), ('numpy', 'take_along_axis'), ('revsrc.runtime.inplace', 'add_at'),
         ('revsrc.runtime.inplace', 'fill_diagonal'),),
        {
            'effect_free':
            (('_operator', 'getitem'),),
        }),
    'linalg': (
        ('cholesky', 'cross', 'det', 'dot', 'eig', 'eigh', 'einsum', 'inner', 'inv', 'kron',
         'lstsq', 'matmul', 'matrix_power', 'outer', 'pinv', 'slogdet', 'solve', 'svd',
         'tensordot', 'trace',),
        (('_operator', 'imatmul'), ('_operator', 'matmul'), ('numpy', 'cross'),
         ('numpy', 'dot'), ('numpy', 'einsum'), ('numpy', 'inner'), ('numpy', 'kron'),
         ('numpy', 'matmul'), ('numpy', 'outer'), ('numpy', 'tensordot'), ('numpy', 'trace'),
         ('numpy.linalg', 'cholesky'), ('numpy.linalg', 'det'), ('numpy.linalg', 'eig'),
         ('numpy.linalg', 'eigh'), ('numpy.linalg', 'inv'), ('numpy.linalg', 'lstsq'),
         ('numpy.linalg', 'matrix_power'), ('numpy.linalg', 'pinv'),
         ('numpy.linalg', 'slogdet'), ('numpy.linalg', 'solve'), ('numpy.linalg', 'svd'),),
        {
            'effect_free':
            (('numpy', 'dot'), ('numpy', 'matmul'),),
            'loop_kernel':
            (('numpy', 'dot'),),
            'pure':
            (('_operator', 'matmul'),),
            'raises_on_scalars':
            (('_operator', 'matmul'),),
        }),
    'nondiff': (
        ('numpy.all', 'numpy.allclose', 'numpy.any', 'numpy.arange', 'numpy.argmax',
         'numpy.argmin', 'numpy.argsort', 'numpy.argwhere', 'numpy.around',
         'numpy.array_equal', 'numpy.bitwise_and', 'numpy.bitwise_or', 'numpy.bitwise_xor',
         'numpy.broadcast_shapes', 'numpy.ceil', 'numpy.count_nonzero', 'numpy.digitize',
         'numpy.empty', 'numpy.empty_like', 'numpy.equal', 'numpy.eye', 'numpy.fix',
         'numpy.flatnonzero', 'numpy.floor', 'numpy.floor_divide', 'numpy.gcd',
         'numpy.greater', 'numpy.greater_equal', 'numpy.identity', 'numpy.indices',
         'numpy.invert', 'numpy.isclose', 'numpy.iscomplexobj', 'numpy.isfinite',
         'numpy.isinf', 'numpy.isnan', 'numpy.isrealobj', 'numpy.lcm', 'numpy.left_shift',
         'numpy.less', 'numpy.less_equal', 'numpy.logical_and', 'numpy.logical_not',
         'numpy.logical_or', 'numpy.logical_xor', 'numpy.ndim', 'numpy.nonzero',
         'numpy.not_equal', 'numpy.ones', 'numpy.ones_like', 'numpy.ravel_multi_index',
         'numpy.result_type', 'numpy.right_shift', 'numpy.rint', 'numpy.round',
         'numpy.searchsorted', 'numpy.shape', 'numpy.sign', 'numpy.signbit', 'numpy.size',
         'numpy.tri', 'numpy.trunc', 'numpy.unravel_index', 'numpy.zeros', 'numpy.zeros_like',),
        (('numpy', 'all'), ('numpy', 'allclose'), ('numpy', 'any'), ('numpy', 'arange'),
         ('numpy', 'argmax'), ('numpy', 'argmin'), ('numpy', 'argsort'), ('numpy', 'argwhere'),
         ('numpy', 'around'), ('numpy', 'array_equal'), ('numpy', 'bitwise_and'),
         ('numpy', 'bitwise_or'), ('numpy', 'bitwise_xor'), ('numpy', 'broadcast_shapes'),
         ('numpy', 'ceil'), ('numpy', 'count_nonzero'), ('numpy', 'digitize'),
         ('numpy', 'empty'), ('numpy', 'empty_like'), ('numpy', 'equal'), ('numpy', 'eye'),
         ('numpy', 'fix'), ('numpy', 'flatnonzero'), ('numpy', 'floor'),
         ('numpy', 'floor_divide'), ('numpy', 'gcd'), ('numpy', 'greater'),
         ('numpy', 'greater_equal'), ('numpy', 'identity'), ('numpy', 'indices'),
         ('numpy', 'invert'), ('numpy', 'isclose'), ('numpy', 'iscomplexobj'),
         ('numpy', 'isfinite'), ('numpy', 'isinf'), ('numpy', 'isnan'), ('numpy', 'isrealobj'),
         ('numpy', 'lcm'), ('numpy', 'left_shift'), ('numpy', 'less'), ('numpy', 'less_equal'),
         ('numpy', 'logical_and'), ('numpy', 'logical_not'), ('numpy', 'logical_or'),
         ('numpy', 'logical_xor'), ('numpy', 'ndim'), ('numpy', 'nonzero'),
         ('numpy', 'not_equal'), ('numpy', 'ones'), ('numpy', 'ones_like'),
         ('numpy', 'ravel_multi_index'), ('numpy', 'result_type'), ('numpy', 'right_shift'),
         ('numpy', 'rint'), ('numpy', 'round'), ('numpy', 'searchsorted'), ('numpy', 'shape'),
         ('numpy', 'sign'), ('numpy', 'signbit'), ('numpy', 'size'), ('numpy', 'tri'),
         ('numpy', 'trunc'), ('numpy', 'unravel_index'), ('numpy', 'zeros'),
         ('numpy', 'zeros_like'),),
        {
        }),
    'quantiles': (
        ('nanpercentile', 'nanquantile', 'percentile', 'quantile',),
        (('numpy', 'nanpercentile'), ('numpy', 'nanquantile'), ('numpy', 'percentile'),
         ('numpy', 'quantile'),),
        {
        }),
    'reductions': (
        ('average', 'builtin_sum', 'cov', 'cumprod', 'cumsum', 'extremum',
         'maximum.accumulate', 'mean', 'median', 'minimum.accumulate', 'nanmean', 'nansum',
         'norm', 'prod', 'std', 'sum', 'var',),
        (('builtins', 'sum'), ('numpy', 'amax'), ('numpy', 'amin'), ('numpy', 'average'),
         ('numpy', 'cov'), ('numpy', 'cumprod'), ('numpy', 'cumsum'), ('numpy', 'max'),
         ('numpy', 'mean'), ('numpy', 'median'), ('numpy', 'min'), ('numpy', 'nanmean'),
         ('numpy', 'nansum'), ('numpy', 'prod'), ('numpy', 'std'), ('numpy', 'sum'),
         ('numpy', 'var'), ('numpy.linalg', 'norm'), (None, 'accumulate'),),
        {
            'effect_free':
            (('numpy', 'mean'), ('numpy', 'sum'),),
        }),
    'shape': (
        ('append', 'array', 'broadcast_to', 'c_', 'column_stack', 'concatenate', 'diag',
         'diagonal', 'dsplit', 'dstack', 'expand_dims', 'flatten', 'flip', 'fliplr', 'flipud',
         'full', 'full_like', 'hsplit', 'hstack', 'linspace', 'moveaxis', 'pad', 'r_', 'ravel',
         'repeat', 'reshape', 'roll', 'rollaxis', 'rot90', 'split', 'stack', 'swapaxes',
         'tile', 'transpose', 'tril', 'triu', 'vsplit', 'vstack',),
        (('numpy', 'append'), ('numpy', 'array'), ('numpy', 'array_split'),
         ('numpy', 'asarray'), ('numpy', 'ascontiguousarray'), ('numpy', 'atleast_1d'),
         ('numpy', 'atleast_2d'), ('numpy', 'atleast_3d'), ('numpy', 'broadcast_to'),
         ('numpy', 'column_stack'), ('numpy', 'concatenate'), ('numpy', 'copy'),
         ('numpy', 'diag'), ('numpy', 'diagonal'), ('numpy', 'dsplit'), ('numpy', 'dstack'),
         ('numpy', 'expand_dims'), ('numpy', 'flip'), ('numpy', 'fliplr'), ('numpy', 'flipud'),
         ('numpy', 'full'), ('numpy', 'full_like'), ('numpy', 'hsplit'), ('numpy', 'hstack'),
         ('numpy', 'linspace'), ('numpy', 'moveaxis'), ('numpy', 'pad'), ('numpy', 'ravel'),
         ('numpy', 'repeat'), ('numpy', 'reshape'), ('numpy', 'roll'), ('numpy', 'rollaxis'),
         ('numpy', 'rot90'), ('numpy', 'row_stack'), ('numpy', 'split'), ('numpy', 'squeeze'),
         ('numpy', 'stack'), ('numpy', 'swapaxes'), ('numpy', 'tile'), ('numpy', 'transpose'),
         ('numpy', 'tril'), ('numpy', 'triu'), ('numpy', 'vsplit'), ('numpy', 'vstack'),
         ('revsrc.runtime', 'c_'), ('revsrc.runtime', 'r_'),
         ('revsrc.runtime.tensor', 'flatten'),),
        {
            'effect_free':
            (('numpy', 'reshape'), ('numpy', 'transpose'),),
            'view':
            (('numpy', 'array_split'), ('numpy', 'asanyarray'), ('numpy', 'asarray'),
             ('numpy', 'ascontiguousarray'), ('numpy', 'atleast_1d'), ('numpy', 'atleast_2d'),
             ('numpy', 'atleast_3d'), ('numpy', 'broadcast_to'), ('numpy', 'diag'),
             ('numpy', 'diagonal'), ('numpy', 'dsplit'), ('numpy', 'expand_dims'),
             ('numpy', 'flip'), ('numpy', 'fliplr'), ('numpy', 'flipud'), ('numpy', 'hsplit'),
             ('numpy', 'matrix_transpose'), ('numpy', 'moveaxis'), ('numpy', 'ravel'),
             ('numpy', 'reshape'), ('numpy', 'rollaxis'), ('numpy', 'rot90'),
             ('numpy', 'split'), ('numpy', 'squeeze'), ('numpy', 'swapaxes'),
             ('numpy', 'transpose'), ('numpy', 'unstack'), ('numpy', 'vsplit'),),
        }),
    'batching': (
        (),
        (),
        {
            'batch':
            (('_operator', 'eq'), ('_operator', 'ge'), ('_operator', 'getitem'),
             ('_operator', 'gt'), ('_operator', 'le'), ('_operator', 'lt'),
             ('_operator', 'matmul'), ('_operator', 'ne'), ('_operator', 'neg'),
             ('_operator', 'pos'), ('builtins', 'abs'), ('builtins', 'float'),
             ('numpy', 'all'), ('numpy', 'amax'), ('numpy', 'amin'), ('numpy', 'any'),
             ('numpy', 'ceil'), ('numpy', 'concatenate'), ('numpy', 'dot'),
             ('numpy', 'einsum'), ('numpy', 'equal'), ('numpy', 'floor'),
             ('numpy', 'floor_divide'), ('numpy', 'full_like'), ('numpy', 'greater'),
             ('numpy', 'greater_equal'), ('numpy', 'isfinite'), ('numpy', 'isinf'),
             ('numpy', 'isnan'), ('numpy', 'less'), ('numpy', 'less_equal'),
             ('numpy', 'logical_and'), ('numpy', 'logical_not'), ('numpy', 'logical_or'),
             ('numpy', 'logical_xor'), ('numpy', 'matmul'), ('numpy', 'max'),
             ('numpy', 'mean'), ('numpy', 'min'), ('numpy', 'nanmean'), ('numpy', 'nansum'),
             ('numpy', 'negative'), ('numpy', 'not_equal'), ('numpy', 'ones_like'),
             ('numpy', 'positive'), ('numpy', 'prod'), ('numpy', 'reshape'), ('numpy', 'rint'),
             ('numpy', 'sign'), ('numpy', 'signbit'), ('numpy', 'stack'), ('numpy', 'std'),
             ('numpy', 'sum'), ('numpy', 'transpose'), ('numpy', 'trunc'), ('numpy', 'var'),
             ('numpy', 'zeros_like'), ('revsrc.core.ir', 'copy'),
             ('revsrc.core.ir', 'make_list'), ('revsrc.core.ir', 'make_tuple'),
             ('revsrc.runtime', 'broadcast_like'), ('revsrc.runtime', 'finalize_grad'),
             ('revsrc.runtime', 'result_like'),
             ('revsrc.runtime.forward_grads', 'tanh_vjp_jvp'),
             ('revsrc.runtime.grads.linalg', 'matmul_grad_a'),
             ('revsrc.runtime.grads.linalg', 'matmul_grad_b'),
             ('revsrc.runtime.grads.reductions', 'broadcast_reduced'),
             ('revsrc.runtime.grads.reductions', 'mean_grad'),
             ('revsrc.runtime.ieee', 'where'), ('revsrc.runtime.tensor', 'relu_vjp'),
             ('revsrc.runtime.tensor', 'tanh_vjp'), ('revsrc.runtime.tensor', 'unbroadcast'),),
        }),
}
