"""Sentence templates for generated papers, grouped by the part of the paper they belong to.

Slots: {method} {task} {Task} {technique} {problem} {comp1} {comp2} {comp3} {ds1} {ds2} {dslist}
{metric} {area}. None of these templates prints a plotted value.
"""

CONTEXT = (
    "{Task} remains one of the central problems of computer vision and machine learning.",
    "Progress on {task} has been driven by larger datasets, better optimisation and stronger inductive biases.",
    "Benchmarks such as {ds1} have become the standard yardstick for measuring this progress.",
    "Despite steady gains, the best systems still rely on design choices that are poorly understood.",
    "A recurring difficulty is that improvements on one benchmark often fail to transfer to another.",
    "The cost of training state-of-the-art models has grown faster than their accuracy.",
    "Practitioners therefore need methods that are both accurate and simple to deploy.",
    "Much of the recent literature has focused on scaling, leaving the structure of the model largely unchanged.",
    "At the same time, the community has recognised that careful evaluation matters as much as new architectures.",
    "This tension between accuracy, cost and simplicity motivates the work presented here.",
    "In realistic settings, data is noisy, long-tailed and rarely matches the training distribution.",
    "These observations suggest that the field has not yet converged on a satisfactory recipe for {task}.",
)

LIMITS = (
    "Early approaches {cite} relied on hand-designed components that limit their flexibility.",
    "More recent methods such as {cm1} {cite1} improve accuracy but introduce considerable computational overhead.",
    "Methods in the line of {cm1} {cite1} treat the {comp1} as a fixed module, which we argue is suboptimal.",
    "Several works {cite} report that their gains shrink when the training budget is reduced.",
    "Other studies {cite} show that the {comp2} is the main source of instability during training.",
    "A common thread in prior work {cite} is the reliance on carefully tuned schedules.",
    "While {cm1} {cite1} reaches strong results on {ds1}, it transfers less well to {ds2}.",
    "The analysis in {cite} suggests that the {comp1} and the {comp2} interact in non-obvious ways.",
)

APPROACH = (
    "In this paper we introduce {method}, an approach to {task} based on {technique}.",
    "The key idea of {method} is to let the {comp1} adapt to the input instead of fixing it in advance.",
    "{method} keeps the overall pipeline of standard models but replaces the {comp2} with a learned counterpart.",
    "This design adds few parameters and can be dropped into existing training recipes.",
    "We show that the resulting models are easier to optimise and more robust to the choice of hyper-parameters.",
    "Unlike previous work, {method} does not require additional supervision or extra training data.",
    "Our formulation also makes explicit a trade-off that earlier methods handle only implicitly.",
)

CONTRIB = (
    "Our contributions are threefold. First, we propose {method}, which uses {technique} to address {problem}. "
    "Second, we analyse the role of the {comp1} and the {comp2} through controlled ablations. "
    "Third, we report results on {dslist}, where {method} compares favourably with strong prior methods.",
    "In summary, we make the following contributions: (i) a simple formulation of {technique} for {task}; "
    "(ii) a study of how the {comp1} affects accuracy and cost; and (iii) an evaluation on {dslist} "
    "with consistent improvements over published baselines.",
)

RELATED_HEADS = ("Architectures for {task}.", "Training strategies.", "Efficiency and scaling.",
                 "Methods related to {technique}.", "Benchmarks and evaluation.")

RELATED = (
    "{cm} {cite} introduced {ctech} for {cprob}.",
    "Building on this, {cm} {cite} studied {ctech} in the context of {cprob}.",
    "{cm} {cite} proposed {ctech}, which remains a strong baseline for {cprob}.",
    "The closest work to ours is {cm} {cite}, which also relies on {ctech} but keeps the {comp1} fixed.",
    "{cm} {cite} revisited {ctech} and showed that simple changes yield large gains.",
    "A different direction is taken by {cm} {cite}, who focus on {cprob}.",
)

CROSS = (
    "Ideas from neighbouring fields have also been influential: {cm} {cite}, designed for {carea}, "
    "inspired parts of our {comp2}.",
    "Beyond {task}, {cm} {cite} applies {ctech} to {carea}, and we borrow its training schedule.",
)

RELATED_CLOSE = (
    "In contrast to these works, {method} treats the {comp1} as a learned, input-dependent module.",
    "Our work differs from the above in that it targets the {comp2} directly.",
    "We compare against the most relevant of these methods in Section 4.",
)

METHOD_OVERVIEW = (
    "Given an input, {method} first computes a set of intermediate features with a standard backbone.",
    "These features are then processed by the {comp1}, which aggregates information across positions.",
    "The output of the {comp1} is combined with the original features through a residual connection.",
    "Finally, a lightweight head maps the fused representation to the prediction required by the task.",
    "We keep the backbone unchanged so that improvements can be attributed to the proposed components.",
    "All components are differentiable and trained end to end.",
)

METHOD_DETAIL = (
    "Let x denote the input features and let g be the {comp1}.",
    "We compute a gating signal from global statistics of x and use it to re-weight the contributions of each branch.",
    "In contrast to a fixed operator, the weights depend on the content of the input.",
    "This allows the model to allocate capacity to the regions that matter for {task}.",
    "To keep the cost low, the gating signal is computed at reduced resolution and upsampled.",
    "We found it important to initialise the gate close to the identity so that early training is stable.",
    "The {comp2} is implemented as a small stack of normalised linear layers.",
)

OBJECTIVE = (
    "The model is trained with the objective L = L_task + λ L_aux, where L_task is the standard loss for {task} "
    "and L_aux regularises the {comp2}.",
    "The weight λ balances the two terms; we use the same value on every dataset.",
    "The auxiliary term encourages the {comp1} to produce diverse outputs and prevents collapse.",
    "We optimise both terms jointly with stochastic gradient methods.",
    "No term of the objective requires labels beyond those of the original benchmark.",
)

SETUP = (
    "We evaluate on {dslist}, following the standard splits and evaluation protocols.",
    "We report {metric} on every benchmark.",
    "Unless stated otherwise, models are trained with AdamW, a cosine learning-rate schedule and a linear warm-up.",
    "All experiments run on eight GPUs with mixed precision.",
    "Hyper-parameters are selected on a held-out part of the training set and kept fixed across datasets.",
    "For prior methods we use the numbers reported in the original papers where available.",
    "Each result is the mean of three runs with different random seeds.",
)

RESULTS = (
    "{table_ref} compares {method} with prior methods on {dslist}.",
    "{method} obtains the best result on most benchmarks, with the largest margin on {ds1}.",
    "The gains are consistent across datasets, which indicates that they are not the product of tuning on a single benchmark.",
    "Compared with {cm1}, the strongest competitor, {method} improves on every dataset it was evaluated on.",
    "Notably, the improvement comes without additional training data or a larger backbone.",
    "The baselines in the first rows confirm that the benchmarks are far from saturated.",
)

FIGURE_TALK = {
    "line": ("{fig_ref} plots {ylabel} against {xlabel} for the compared methods on {fds}.",
             "The curve of {method} lies above those of the other methods over most of the range.",
             "The gap is smallest at the beginning of training and widens as training proceeds.",
             "The other methods saturate earlier, whereas {method} keeps improving."),
    "bar": ("{fig_ref} summarises the per-dataset results of the compared methods as a bar chart.",
            "The advantage of {method} holds on every benchmark, although its size varies.",
            "Benchmarks with more classes show the largest differences between methods."),
    "scatter": ("{fig_ref} shows the trade-off between compute and {ylabel} on {fds}.",
                "For a comparable budget, {method} reaches a better operating point than the alternatives.",
                "Larger model variants improve all methods, but the ordering between them is preserved."),
}

ABLATION = (
    "We ablate the components of {method} in {table_ref}.",
    "Removing the {comp1} causes the largest drop, confirming that it is the main source of the improvement.",
    "The {comp2} contributes a smaller but consistent gain.",
    "Replacing the learned module with its baseline counterpart recovers only part of the gap.",
    "These results indicate that the components are complementary.",
)

EFFICIENCY = (
    "{table_ref} reports model size and compute alongside accuracy.",
    "{method} has a parameter count comparable to the competing methods while being more accurate.",
    "The extra compute introduced by the {comp1} is small relative to the backbone.",
    "In practice, training time per epoch increases only marginally.",
)

CONCLUSION = (
    "We presented {method}, a simple approach to {task} based on {technique}.",
    "Experiments on {dslist} show that it improves over strong prior methods at a modest cost.",
    "Our ablations indicate that the {comp1} is the most important ingredient.",
    "A limitation of the current study is its focus on standard academic benchmarks; evaluating {method} under distribution shift is left for future work.",
    "We hope that the simplicity of the design encourages its use as a baseline for {problem}.",
)

COMPLEXITY = (
    "The additional cost of the {comp1} grows linearly with the number of positions, in contrast to the quadratic cost of dense alternatives.",
    "In terms of memory, the module stores one gating vector per block, which is negligible compared with the activations.",
    "Because the gates are shared across positions, the module adds only a few thousand parameters per block.",
    "At inference time the gates can be folded into the preceding linear layer, so the deployed model has the same structure as the backbone.",
    "We also considered a variant in which the {comp2} is shared across blocks; it is cheaper but slightly less accurate.",
    "The design is agnostic to the backbone and applies equally to convolutional and attention-based networks.",
)

IMPLEMENTATION = (
    "We implement {method} in a standard deep learning framework and reuse the public training recipes of the baselines.",
    "Data augmentation follows common practice for {task} and is identical for all compared models.",
    "The {comp1} is inserted after every second block of the backbone; inserting it after every block gave no further gain.",
    "Weights of the backbone are initialised from the same checkpoint for every method to make the comparison fair.",
    "Gradient clipping is applied to the auxiliary branch only, which we found to stabilise the first epochs.",
    "We release configuration files that reproduce every number in this paper.",
)

DISCUSSION = (
    "Why does the {comp1} help? We hypothesise that it lets the model route information that a fixed operator discards.",
    "This view is consistent with the ablation results: the largest drop occurs when the module is removed entirely.",
    "We observed that the learned gates become increasingly selective in deeper blocks.",
    "Failure cases are concentrated on inputs that differ strongly from the training distribution.",
    "On such inputs all compared methods degrade, and the ranking between them is less stable.",
    "A second observation is that the benefit of {method} is larger when training data is scarce.",
    "Taken together, these findings suggest that the {comp2} matters mostly as a regulariser.",
)

RELATED_GENERAL = (
    "Research on {task} has a long history, and we only review the works most related to ours.",
    "Surveys of this area document a steady shift from hand-crafted pipelines to end-to-end learning.",
    "Many of these methods share the same backbone and differ mainly in how they aggregate features.",
    "Evaluation protocols have also evolved, and we follow the most recent ones in our experiments.",
)
