"""The vocabulary the corpus generator draws from: research areas, datasets, invented names, venues.

Everything here is invented or generic: method names are built from made-up stems so no generated
paper can be mistaken for a real one, and author names combine given and family names from many
languages.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Dataset:
    """A benchmark of an area with the metric papers report on it and its plausible range."""

    name: str
    metric: str
    low: float
    high: float
    higher_is_better: bool = True


@dataclass(frozen=True)
class Area:
    """One research area: what its papers do, measure and build."""

    name: str
    task: str
    datasets: tuple[Dataset, ...]
    suffixes: tuple[str, ...]
    techniques: tuple[str, ...]
    problems: tuple[str, ...]
    components: tuple[str, ...]
    baselines: tuple[str, ...]
    curve_x: tuple[str, ...] = field(default=("Training epochs",))


AREAS: tuple[Area, ...] = (
    Area(
        name="image classification",
        task="image classification",
        datasets=(
            Dataset("ImageNet-1K", "top-1 accuracy (%)", 70, 86),
            Dataset("CIFAR-100", "top-1 accuracy (%)", 72, 90),
            Dataset("iNaturalist-2018", "top-1 accuracy (%)", 60, 80),
            Dataset("Places365", "top-1 accuracy (%)", 50, 62),
        ),
        suffixes=("Net", "Former", "Mixer", "ViT"),
        techniques=("Hierarchical Token Mixing", "Adaptive Channel Recalibration", "Sparse Window Attention",
                    "Frequency-Aware Convolution", "Progressive Patch Merging", "Dynamic Depth Routing",
                    "Low-Rank Token Interaction", "Shifted Kernel Aggregation"),
        problems=("Large-Scale Image Recognition", "Data-Efficient Visual Recognition",
                  "Robust Image Classification", "Fine-Grained Recognition"),
        components=("token mixer", "channel gate", "relative position bias", "stochastic depth schedule"),
        baselines=("Plain CNN baseline", "Vanilla transformer baseline"),
    ),
    Area(
        name="object detection",
        task="object detection",
        datasets=(
            Dataset("COCO", "box AP", 36, 58),
            Dataset("LVIS v1", "box AP", 22, 44),
            Dataset("Objects365", "box AP", 18, 36),
            Dataset("CrowdHuman", "AP50", 80, 93),
        ),
        suffixes=("Det", "DETR", "RCNN", "Box"),
        techniques=("Query-Adaptive Feature Pyramids", "Decoupled Box Refinement", "Scale-Aware Anchor Assignment",
                    "Dense Set Prediction", "Iterative Query Denoising", "Rotated Region Sampling",
                    "Cross-Level Context Fusion", "Soft Label Matching"),
        problems=("Dense Object Detection", "Real-Time Object Detection", "Long-Tailed Object Detection",
                  "End-to-End Detection"),
        components=("query denoising", "feature pyramid", "box refinement head", "label assignment"),
        baselines=("Two-stage baseline", "One-stage baseline"),
    ),
    Area(
        name="semantic segmentation",
        task="semantic segmentation",
        datasets=(
            Dataset("ADE20K", "mIoU (%)", 38, 56),
            Dataset("Cityscapes", "mIoU (%)", 74, 85),
            Dataset("PASCAL Context", "mIoU (%)", 46, 62),
            Dataset("COCO-Stuff", "mIoU (%)", 35, 50),
        ),
        suffixes=("Seg", "Mask", "Parse", "Former"),
        techniques=("Boundary-Aware Decoding", "Class-Conditional Context Aggregation", "Multi-Scale Mask Attention",
                    "Lightweight Pixel Decoders", "Prototype-Guided Grouping", "Stripe Pooling Refinement",
                    "Global-Local Affinity Learning", "Uncertainty-Guided Upsampling"),
        problems=("Semantic Segmentation", "Efficient Scene Parsing", "High-Resolution Segmentation",
                  "Open-Vocabulary Segmentation"),
        components=("pixel decoder", "boundary loss", "context module", "mask attention"),
        baselines=("FCN-style baseline", "Encoder-decoder baseline"),
    ),
    Area(
        name="self-supervised learning",
        task="self-supervised representation learning",
        datasets=(
            Dataset("ImageNet-1K (linear)", "linear top-1 (%)", 62, 81),
            Dataset("ImageNet-1K (k-NN)", "k-NN top-1 (%)", 52, 76),
            Dataset("Places205 (linear)", "linear top-1 (%)", 50, 62),
            Dataset("VOC07 (SVM)", "mAP", 78, 92),
        ),
        suffixes=("CLR", "MAE", "Siam", "Distill"),
        techniques=("Momentum Prototype Contrast", "Masked Feature Prediction", "Cross-View Redundancy Reduction",
                    "Clustered Token Distillation", "Asymmetric Predictor Learning", "Multi-Crop Consistency",
                    "Semantic-Aware Masking", "Hard Negative Mixing"),
        problems=("Self-Supervised Visual Representation Learning", "Label-Free Pretraining",
                  "Contrastive Representation Learning", "Masked Image Modeling"),
        components=("momentum encoder", "predictor head", "multi-crop augmentation", "masking strategy"),
        baselines=("Random initialization", "Supervised pretraining"),
        curve_x=("Pretraining epochs",),
    ),
    Area(
        name="generative models",
        task="image generation",
        datasets=(
            Dataset("CIFAR-10 (FID)", "FID", 2, 30, higher_is_better=False),
            Dataset("CelebA-HQ 256", "FID", 4, 25, higher_is_better=False),
            Dataset("LSUN Bedroom", "FID", 2, 20, higher_is_better=False),
            Dataset("FFHQ 256", "FID", 3, 22, higher_is_better=False),
        ),
        suffixes=("GAN", "Diff", "Flow", "VAE"),
        techniques=("Score-Matched Latent Diffusion", "Progressive Style Modulation", "Consistency-Regularized Sampling",
                    "Spectral Discriminator Normalization", "Hierarchical Latent Flows", "Few-Step Denoising Schedules",
                    "Adaptive Noise Conditioning", "Patch-Level Adversarial Training"),
        problems=("High-Fidelity Image Synthesis", "Unconditional Image Generation", "Fast Sampling",
                  "Controllable Image Generation"),
        components=("noise schedule", "spectral normalization", "style modulation", "latent regularizer"),
        baselines=("DCGAN-style baseline", "Vanilla VAE baseline"),
        curve_x=("Training iterations (k)",),
    ),
    Area(
        name="graph learning",
        task="node classification",
        datasets=(
            Dataset("Cora", "accuracy (%)", 78, 88),
            Dataset("CiteSeer", "accuracy (%)", 66, 76),
            Dataset("PubMed", "accuracy (%)", 76, 84),
            Dataset("ogbn-arxiv", "accuracy (%)", 68, 76),
        ),
        suffixes=("GNN", "GCN", "GAT", "Graph"),
        techniques=("Adaptive Neighborhood Sampling", "Spectral Message Passing", "Positional Graph Encoding",
                    "Over-Smoothing-Free Propagation", "Heterophily-Aware Aggregation", "Graph Token Pruning",
                    "Edge-Conditioned Attention", "Decoupled Label Propagation"),
        problems=("Semi-Supervised Node Classification", "Scalable Graph Learning", "Deep Graph Networks",
                  "Learning on Heterophilous Graphs"),
        components=("edge attention", "residual propagation", "positional encoding", "neighbor sampler"),
        baselines=("MLP baseline", "Label propagation baseline"),
        curve_x=("Number of layers",),
    ),
)

AREA_BY_NAME = {a.name: a for a in AREAS}

VENUES = ("CVPR", "ICCV", "ECCV", "NeurIPS", "ICML", "ICLR", "AAAI")
VENUE_LONG = {
    "CVPR": "IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
    "ICCV": "IEEE/CVF International Conference on Computer Vision (ICCV)",
    "ECCV": "European Conference on Computer Vision (ECCV)",
    "NeurIPS": "Advances in Neural Information Processing Systems (NeurIPS)",
    "ICML": "International Conference on Machine Learning (ICML)",
    "ICLR": "International Conference on Learning Representations (ICLR)",
    "AAAI": "AAAI Conference on Artificial Intelligence (AAAI)",
}
# ICCV is held in odd years and ECCV in even years, as in reality.
VENUES_BY_PARITY = {0: ("CVPR", "ECCV", "NeurIPS", "ICML", "ICLR", "AAAI"),
                    1: ("CVPR", "ICCV", "NeurIPS", "ICML", "ICLR", "AAAI")}
YEARS = tuple(range(2016, 2025))

# Syllables for invented method stems: pronounceable, not real model names.
STEM_HEADS = ("Zar", "Tel", "Qui", "Vor", "Lum", "Kes", "Mir", "Ost", "Pel", "Dra", "Fen", "Gal", "Hal",
              "Jun", "Kor", "Lys", "Nor", "Obi", "Pra", "Ryn", "Sol", "Tav", "Ulm", "Vel", "Wyn", "Xan", "Yor",
              "Zel", "Bre", "Cal", "Dun", "Eri")
STEM_TAILS = ("vo", "mi", "ra", "den", "lix", "tor", "ka", "ven", "sa", "rin", "to", "lo", "na", "quin", "bel")

GIVEN_NAMES = ("Amara", "Bao", "Chiara", "Dmitri", "Esi", "Farid", "Greta", "Hiroshi", "Ines", "Jae-won",
               "Kavya", "Lars", "Mei", "Nikhil", "Olumide", "Priya", "Quentin", "Rania", "Sven", "Tomasz",
               "Uzma", "Valeria", "Wen", "Xavier", "Yusuf", "Zeynep", "Aiko", "Bruno", "Chen", "Daria",
               "Emeka", "Fatima", "Gustavo", "Hana", "Ivan", "Joon", "Kofi", "Leila", "Mateo", "Nadia",
               "Oskar", "Paulina", "Ravi", "Sakura", "Tariq", "Ulrike", "Vikram", "Yara")
FAMILY_NAMES = ("Okafor", "Lin", "Moreau", "Haddad", "Kowalski", "Nakamura", "Osei", "Petrov", "Quispe",
                "Rahman", "Silva", "Tanaka", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Abebe", "Brandt",
                "Castillo", "Dubois", "Eriksen", "Fischer", "Gupta", "Horvath", "Iyer", "Jansen", "Kim",
                "Lindqvist", "Mensah", "Novak", "Oliveira", "Park", "Rossi", "Sato", "Teo", "Usman", "Vance",
                "Wang", "Yamada", "Zhou", "Adeyemi", "Bianchi", "Chaudhry", "Demir", "Ferreira", "Gallo")

AFFILIATIONS = ("Northfield Institute of Technology", "University of Lakeshore", "Meridian AI Lab",
                "Eastbrook University", "Coastal Institute for Learning Systems", "Halvorsen Research",
                "Ridgeview University", "Institute for Visual Computing, Arlen", "Summit Vision Group",
                "Westmoor College of Engineering", "Pinecrest University", "Orchard Labs")
