"""Pure numeric metrics: judges against ground truth, and judges against each other.

numpy in, floats out, no I/O. A figure that has no value on the data (a kappa with no
chance disagreement, a correlation of a constant series, anything on zero items) is
``Undefined(reason)``, never 0. The rules for label codes and cannot-assess handling are
in ``codes``; the variable-rater forms of the agreement coefficients in ``agreement``;
the bootstrap in ``bootstrap``.
"""
