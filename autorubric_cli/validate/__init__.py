"""Validating judges without gold labels (Guerdan et al., ICML 2025): `autorubric validate`.

When raters legitimately disagree, agreement with a majority-vote "gold" label can select a
judge that is far worse on the decisions that matter. This package compares every judge (its
repeated samples give a rating distribution per item) with the human raters under several
definitions of performance, forced-choice and response-set, and shows where they disagree.

Modules: ``space`` (options and ratings), ``fc_model`` (forced choice -> response set),
``distributions`` (O, Omega and their aggregations), ``measures`` (one function per metric),
``performance`` (every definition for one judge), ``selection`` (best judge, rank
correlation, inversions), ``settings`` and ``advice`` (flags, warnings), ``collect`` and
``analysis`` (records to the result), ``synthetic`` (the §6 generator); ``loader`` and
``simulate_files`` are the only modules that touch files."""
