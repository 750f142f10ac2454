"""What corpus v2 draws from: six areas, each with shared datasets, shared sweep grids and a shift condition.

Papers of one area evaluate on the same datasets and sweep the same settings on the same grids, so
figures of different papers can be compared at the same setting (EpiBench's aligned settings). A
table reports the standard setting (`Area.standard`), which no sweep grid contains, so a plotted value
never equals a printed one. Every technique has a paraphrase that shares no content word with it:
indirect hints describe a paper in other words than its title and abstract.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dataset:
    name: str
    low: float
    high: float


@dataclass(frozen=True)
class Sweep:
    """A setting the papers of an area vary in their figures, and the grid they all use."""

    x_label: str
    grid: tuple[float, ...]
    phrase: str  # how the text describes varying it: "the fraction of labelled training images"
    shape: str = "budget"  # "budget": more is better for every method; "depth": deeper hurts the baselines
    log_x: bool = True


@dataclass(frozen=True)
class Area:
    name: str
    task: str
    task_paraphrase: str
    metric: str
    higher_is_better: bool
    datasets: tuple[Dataset, ...]
    sweeps: tuple[Sweep, ...]
    standard: str  # the setting every table reports, as the setup section states it
    shift: str  # the condition the robustness bar charts report, as their caption states it
    suffixes: tuple[str, ...]
    techniques: tuple[tuple[str, str], ...]  # (technique as in titles, paraphrase with none of its words)
    problems: tuple[str, ...]
    components: tuple[str, ...]
    baselines: tuple[str, ...]


def _ds(*items: tuple[str, float, float]) -> tuple[Dataset, ...]:
    return tuple(Dataset(n, lo, hi) for n, lo, hi in items)


LABELS = Sweep("labelled fraction (%)", (1, 2, 5, 10, 20, 50), "the fraction of labelled training images")
AREAS: tuple[Area, ...] = (
    Area("image classification", "image classification", "telling apart the object categories shown in photographs",
         "top-1 accuracy (%)", True,
         _ds(("ImageNet-1K", 70, 86), ("CIFAR-100", 72, 90), ("iNaturalist-2018", 60, 80), ("Places365", 50, 62),
             ("Food-101", 80, 93)),
         (LABELS, Sweep("training epochs", (10, 20, 40, 80, 160), "the number of training epochs")),
         "trained for 300 epochs on the full training set", "on corrupted test images (severity 3)",
         ("Net", "Former", "Mixer", "ViT"),
         (("Hierarchical Token Mixing", "blending patch features level by level"),
          ("Adaptive Channel Recalibration", "reweighting feature maps depending on the input"),
          ("Sparse Window Attention", "letting each patch look only at a few local neighbourhoods"),
          ("Frequency-Aware Convolution", "filters that treat coarse and fine image detail separately"),
          ("Progressive Patch Merging", "gradually fusing neighbouring image pieces as depth grows"),
          ("Dynamic Depth Routing", "skipping layers on easy inputs"),
          ("Low-Rank Token Interaction", "compressing how image pieces exchange information"),
          ("Shifted Kernel Aggregation", "pooling responses of displaced filters")),
         ("Large-Scale Image Recognition", "Data-Efficient Visual Recognition", "Robust Image Classification",
          "Fine-Grained Recognition"),
         ("token mixer", "channel gate", "relative position bias", "stochastic depth schedule"),
         ("Plain CNN baseline", "Vanilla transformer baseline")),
    Area("object detection", "object detection", "locating and naming every object in an image with boxes",
         "box AP", True,
         _ds(("COCO", 36, 58), ("LVIS v1", 22, 44), ("Objects365", 18, 36), ("CrowdHuman", 40, 56),
             ("Pascal VOC", 70, 86)),
         (Sweep("training epochs", (6, 12, 18, 24, 36), "the length of the training schedule"),
          Sweep("input resolution (px)", (320, 480, 640, 800, 1024), "the input image resolution")),
         "trained with the 3x schedule at 1333 px", "on foggy images", ("Det", "DETR", "RCNN", "Box"),
         (("Query-Adaptive Feature Pyramids", "multi-scale maps tailored to each learned slot"),
          ("Decoupled Box Refinement", "separate heads that iteratively correct rectangles"),
          ("Scale-Aware Anchor Assignment", "matching reference boxes to targets by their size"),
          ("Dense Set Prediction", "emitting a full collection of outputs in one pass"),
          ("Iterative Query Denoising", "training slots to clean up perturbed targets"),
          ("Rotated Region Sampling", "drawing tilted proposals"),
          ("Cross-Level Context Fusion", "mixing information between coarse and fine maps"),
          ("Soft Label Matching", "graded rather than hard target assignment")),
         ("Dense Object Detection", "Real-Time Object Detection", "Long-Tailed Object Detection", "End-to-End Detection"),
         ("query denoising", "feature pyramid", "box refinement head", "label assignment"),
         ("Two-stage baseline", "One-stage baseline")),
    Area("semantic segmentation", "semantic segmentation", "labelling every pixel of a scene with its class",
         "mIoU (%)", True,
         _ds(("ADE20K", 38, 56), ("Cityscapes", 74, 85), ("PASCAL Context", 46, 62), ("COCO-Stuff", 35, 50),
             ("Mapillary Vistas", 45, 60)),
         (LABELS, Sweep("training iterations (k)", (10, 20, 40, 80, 160), "the number of training iterations")),
         "trained for 320k iterations on the full training set", "on night-time images",
         ("Seg", "Mask", "Parse", "Former"),
         (("Boundary-Aware Decoding", "upsampling that pays attention to where object borders lie"),
          ("Class-Conditional Context Aggregation", "pooling surroundings separately for each category"),
          ("Multi-Scale Mask Attention", "restricting attention to predicted regions at several sizes"),
          ("Lightweight Pixel Decoders", "a cheap head that restores full resolution"),
          ("Prototype-Guided Grouping", "clustering pixels around learned exemplars"),
          ("Stripe Pooling Refinement", "averaging along long thin horizontal and vertical bands"),
          ("Global-Local Affinity Learning", "relating each pixel to both near and far ones"),
          ("Uncertainty-Guided Upsampling", "spending effort on the pixels the model is least sure about")),
         ("Semantic Segmentation", "Efficient Scene Parsing", "High-Resolution Segmentation", "Open-Vocabulary Segmentation"),
         ("pixel decoder", "boundary loss", "context module", "mask attention"),
         ("FCN-style baseline", "Encoder-decoder baseline")),
    Area("self-supervised learning", "self-supervised representation learning",
         "learning visual features from images without any labels", "linear top-1 (%)", True,
         _ds(("ImageNet-1K (linear)", 62, 81), ("Places205 (linear)", 50, 62), ("iNaturalist-2018 (linear)", 40, 60),
             ("CIFAR-100 (linear)", 70, 86), ("Food-101 (linear)", 72, 88)),
         (Sweep("pretraining epochs", (50, 100, 200, 400, 800), "the length of pretraining"),
          Sweep("labelled fraction (%)", (1, 2, 5, 10, 20), "the fraction of labels used for fine-tuning")),
         "pretrained for 1600 epochs and evaluated with a linear probe", "with a frozen backbone on shifted test images",
         ("CLR", "MAE", "Siam", "Distill"),
         (("Momentum Prototype Contrast", "comparing samples against slowly updated cluster centres"),
          ("Masked Feature Prediction", "reconstructing hidden parts of an image in feature space"),
          ("Cross-View Redundancy Reduction", "decorrelating the embeddings of two augmented copies"),
          ("Clustered Token Distillation", "a student matching a teacher's groupings of patches"),
          ("Asymmetric Predictor Learning", "an extra head on one branch only, avoiding collapse"),
          ("Multi-Crop Consistency", "agreement between many small and a few large views"),
          ("Semantic-Aware Masking", "hiding object parts rather than random squares"),
          ("Hard Negative Mixing", "synthesising difficult contrasting samples")),
         ("Self-Supervised Visual Representation Learning", "Label-Free Pretraining",
          "Contrastive Representation Learning", "Masked Image Modeling"),
         ("momentum encoder", "predictor head", "multi-crop augmentation", "masking strategy"),
         ("Random initialization", "Supervised pretraining")),
    Area("generative models", "image generation", "synthesising realistic pictures from noise", "FID", False,
         _ds(("CIFAR-10", 2, 30), ("CelebA-HQ 256", 4, 25), ("LSUN Bedroom", 2, 20), ("FFHQ 256", 3, 22),
             ("ImageNet 64", 3, 28)),
         (Sweep("sampling steps", (5, 10, 20, 50, 100), "the number of sampling steps"),
          Sweep("training iterations (k)", (50, 100, 200, 400, 800), "the number of training iterations")),
         "trained for 1M iterations and sampled with 250 steps", "with a 4x smaller training set",
         ("GAN", "Diff", "Flow", "VAE"),
         (("Score-Matched Latent Diffusion", "denoising in a compressed code space"),
          ("Progressive Style Modulation", "injecting appearance controls coarse to fine"),
          ("Consistency-Regularized Sampling", "asking the sampler to agree with itself along its path"),
          ("Spectral Discriminator Normalization", "bounding how sharply the critic can change"),
          ("Hierarchical Latent Flows", "invertible maps stacked over several code resolutions"),
          ("Few-Step Denoising Schedules", "reaching clean outputs in a handful of iterations"),
          ("Adaptive Noise Conditioning", "telling the network how corrupted its input is"),
          ("Patch-Level Adversarial Training", "a critic that judges small image pieces")),
         ("High-Fidelity Image Synthesis", "Unconditional Image Generation", "Fast Sampling",
          "Controllable Image Generation"),
         ("noise schedule", "spectral normalization", "style modulation", "latent regularizer"),
         ("DCGAN-style baseline", "Vanilla VAE baseline")),
    Area("graph learning", "node classification", "predicting the category of each vertex in a network",
         "accuracy (%)", True,
         _ds(("Cora", 78, 88), ("CiteSeer", 66, 76), ("PubMed", 76, 84), ("ogbn-arxiv", 68, 76),
             ("Amazon Photo", 88, 95)),
         (Sweep("number of layers", (2, 4, 8, 16, 32), "the depth of the network", shape="depth"),
          Sweep("label rate (%)", (1, 2, 5, 10, 20), "the share of labelled nodes")),
         "trained with the public split and early stopping", "with 40% of the edges removed",
         ("GNN", "GCN", "GAT", "Graph"),
         (("Adaptive Neighborhood Sampling", "choosing which adjacent vertices to visit per step"),
          ("Spectral Message Passing", "exchanging signals filtered by eigenvalues"),
          ("Positional Graph Encoding", "giving each vertex coordinates derived from structure"),
          ("Over-Smoothing-Free Propagation", "keeping vertex features distinct as layers stack up"),
          ("Heterophily-Aware Aggregation", "combining neighbours that tend to belong to other classes"),
          ("Graph Token Pruning", "dropping uninformative vertices early"),
          ("Edge-Conditioned Attention", "weighting neighbours by the type of link"),
          ("Decoupled Label Propagation", "spreading predictions separately from feature learning")),
         ("Semi-Supervised Node Classification", "Scalable Graph Learning", "Deep Graph Networks",
          "Learning on Heterophilous Graphs"),
         ("edge attention", "residual propagation", "positional encoding", "neighbor sampler"),
         ("MLP baseline", "Label propagation baseline")),
)

AREA_BY_NAME = {a.name: a for a in AREAS}
VENUES_BY_PARITY = {0: ("CVPR", "ECCV", "NeurIPS", "ICML", "ICLR", "AAAI"),
                    1: ("CVPR", "ICCV", "NeurIPS", "ICML", "ICLR", "AAAI")}
FIRST_YEAR, LAST_YEAR = 2016, 2024
