"""The columns of the `validate` tables, shared by the terminal and the HTML report."""

FC_COLUMNS = {
    "hit_rate": "hit rate",
    "cohen_kappa": "Cohen κ",
    "fleiss_kappa": "Fleiss κ",
    "krippendorff_alpha": "Kripp. α",
    "scotts_pi": "Scott π",
    "kl_human_judge": "KL(h‖j)",
    "kl_judge_human": "KL(j‖h)",
    "ce_human_judge": "CE(h,j)",
    "ce_judge_human": "CE(j,h)",
    "jsd": "JSD",
}
RS_COLUMNS = {
    "coverage": "coverage",
    "precision": "precision",
    "recall": "recall",
    "efficiency": "set size",
    "bce": "BCE",
    "mse": "MSE",
}
DOWNSTREAM_COLUMNS = {
    "decision_consistency": "C (resp. set)",
    "prevalence_bias": "B (resp. set)",
    "decision_consistency_fc": "C (forced ch.)",
    "prevalence_bias_fc": "B (forced ch.)",
}
