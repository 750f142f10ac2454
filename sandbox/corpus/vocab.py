"""What corpus v3 draws from: eight areas, each with its own datasets, metrics, method families and the
sweep axes that make sense for those families.

A sweep names the families it applies to (sampling steps only for diffusion models, the mask ratio only
for masked image modelling, beam size only for autoregressive decoders), so a paper never plots a curve
its methods cannot have. Method names are built from area-neutral stems and suffixes (no "...Det",
"...GCN"), so a name does not give its area away.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dataset:
    name: str
    low: float  # the plausible range of the area's main metric on this dataset
    high: float


@dataclass(frozen=True)
class Sweep:
    """A setting papers vary in line figures; `families` are the method families it makes sense for."""

    key: str
    x_label: str
    grid: tuple[float, ...]
    phrase: str  # "the number of sampling steps"
    families: tuple[str, ...]  # empty: every family of the area
    shape: str = "budget"  # budget (more helps) | peak (an optimum inside the grid) | depth (deeper hurts some)
    log_x: bool = False


@dataclass(frozen=True)
class Family:
    key: str
    name: str  # "diffusion model"
    plural: str
    blurb: str  # a clause describing how the family works


@dataclass(frozen=True)
class Area:
    name: str
    task: str
    metric: str
    higher_is_better: bool
    datasets: tuple[Dataset, ...]
    families: tuple[Family, ...]
    sweeps: tuple[Sweep, ...]
    components: tuple[str, ...]
    techniques: tuple[str, ...]
    problems: tuple[str, ...]
    shifts: tuple[str, ...]  # conditions a robustness chart reports
    data_unit: str  # "images", "utterances", "sentence pairs", "graphs"
    qualitative: str  # what an image grid shows ("" when the area has no images)
    input_name: str
    output_name: str
    cost_axis: str  # x axis of the accuracy/cost scatter
    context: tuple[str, ...]  # area-specific framing clauses used by the writer
    venues: tuple[str, ...]
    per_class: tuple[str, ...]  # categories for per-class breakdown tables and heatmaps


def _ds(*items: tuple[str, float, float]) -> tuple[Dataset, ...]:
    return tuple(Dataset(n, lo, hi) for n, lo, hi in items)


CV_VENUES = ("CVPR", "ICCV", "ECCV", "NeurIPS", "ICLR", "WACV", "BMVC")
ML_VENUES = ("NeurIPS", "ICML", "ICLR", "AISTATS", "TMLR", "AAAI")

AREAS: tuple[Area, ...] = (
    Area("image classification", "image classification", "top-1 accuracy (%)", True,
         _ds(("ImageNet-1K", 70, 86), ("CIFAR-100", 72, 90), ("iNaturalist-2018", 60, 80), ("Places365", 50, 62),
             ("Food-101", 80, 93)),
         (Family("cnn", "convolutional network", "convolutional networks", "stacks local filters with pooling between stages"),
          Family("vit", "vision transformer", "vision transformers", "treats an image as a sequence of patches mixed by self-attention"),
          Family("hybrid", "hybrid convolution-attention model", "hybrid convolution-attention models",
                 "uses convolutions in early stages and attention in late ones")),
         (Sweep("epochs", "training epochs", (50, 100, 150, 200, 300), "the length of the training schedule", ()),
          Sweep("labels", "labelled fraction (%)", (1, 2, 5, 10, 25, 50, 100), "the fraction of labelled training images", (), log_x=True),
          Sweep("res", "input resolution (px)", (128, 160, 192, 224, 256, 320), "the input resolution", ()),
          Sweep("patch", "patch size (px)", (8, 12, 16, 24, 32), "the patch size", ("vit", "hybrid"), shape="peak")),
         ("token mixer", "channel gate", "stem block", "relative position bias", "stochastic depth schedule", "downsampling layer"),
         ("hierarchical token mixing", "adaptive channel recalibration", "sparse window attention",
          "frequency-aware convolution", "progressive patch merging", "dynamic depth routing", "low-rank token interaction"),
         ("data-efficient recognition", "robust classification", "fine-grained recognition", "large-scale recognition"),
         ("corrupted images (severity 3)", "rendition images", "low-light photographs"),
         "images", "predicted class-attention maps", "an image", "class scores", "GFLOPs",
         ("labelled photographs remain expensive to collect", "accuracy on the standard benchmark has saturated while robustness has not",
          "compute budgets at deployment are often a fraction of those used in research"),
         CV_VENUES, ("animals", "vehicles", "plants", "food", "scenes", "tools")),
    Area("object detection", "object detection", "box AP", True,
         _ds(("COCO", 36, 58), ("LVIS v1", 22, 44), ("Objects365", 18, 36), ("CrowdHuman", 40, 56), ("Pascal VOC", 70, 86)),
         (Family("twostage", "two-stage detector", "two-stage detectors", "proposes regions first and classifies them in a second stage"),
          Family("onestage", "dense one-stage detector", "dense one-stage detectors", "predicts a box at every location of a feature map"),
          Family("query", "query-based detector", "query-based detectors", "decodes a fixed set of learned queries into boxes")),
         (Sweep("sched", "training epochs", (12, 24, 36, 50, 72), "the length of the training schedule", ()),
          Sweep("res", "input resolution (px)", (480, 640, 800, 1024, 1333), "the shorter side of the input", ()),
          Sweep("queries", "number of queries", (50, 100, 300, 600, 900), "the number of object queries", ("query",), shape="peak", log_x=True),
          Sweep("proposals", "proposals per image", (100, 300, 500, 1000, 2000), "the number of region proposals", ("twostage",), log_x=True)),
         ("feature pyramid", "box refinement head", "label assignment", "query denoising", "region sampler", "classification branch"),
         ("query-adaptive feature pyramids", "decoupled box refinement", "scale-aware label assignment",
          "iterative query denoising", "cross-level context fusion", "soft label matching"),
         ("dense scenes", "long-tailed categories", "real-time detection", "small objects"),
         ("foggy images", "motion-blurred frames", "night-time street scenes"),
         "images", "detections on validation images", "an image", "boxes and labels", "latency (ms)",
         ("crowded scenes produce heavily overlapping boxes", "rare categories have only a handful of annotated instances",
          "detectors trained on one camera rig often fail on another"),
         CV_VENUES, ("person", "car", "bicycle", "dog", "bottle", "chair")),
    Area("semantic segmentation", "semantic segmentation", "mIoU (%)", True,
         _ds(("ADE20K", 38, 56), ("Cityscapes", 74, 85), ("PASCAL Context", 46, 62), ("COCO-Stuff", 35, 50),
             ("Mapillary Vistas", 45, 60)),
         (Family("dilated", "dilated fully convolutional network", "dilated fully convolutional networks",
                 "keeps a high-resolution feature map by dilating its filters"),
          Family("encdec", "encoder-decoder network", "encoder-decoder networks", "recovers resolution with a learned decoder"),
          Family("maskcls", "mask-classification model", "mask-classification models", "predicts a set of masks, each with a class")),
         (Sweep("iters", "training iterations (k)", (20, 40, 80, 160, 320), "the number of training iterations", (), log_x=True),
          Sweep("crop", "crop size (px)", (256, 384, 512, 640, 768), "the training crop size", ()),
          Sweep("stride", "output stride", (4, 8, 16, 32), "the output stride of the backbone", ("dilated", "encdec"), log_x=True),
          Sweep("masks", "number of mask queries", (50, 100, 150, 200, 300), "the number of mask queries", ("maskcls",), shape="peak")),
         ("pixel decoder", "boundary loss", "context module", "mask attention", "auxiliary head", "atrous pyramid"),
         ("boundary-aware decoding", "class-conditional context aggregation", "multi-scale mask attention",
          "prototype-guided grouping", "stripe pooling refinement", "uncertainty-guided upsampling"),
         ("scene parsing", "high-resolution segmentation", "open-vocabulary segmentation", "efficient segmentation"),
         ("night-time images", "rainy scenes", "images from an unseen city"),
         "images", "predicted label maps", "an image", "a label per pixel", "GFLOPs",
         ("thin structures such as poles are lost at low resolution", "dense annotation of a single image takes over an hour",
          "class boundaries carry most of the remaining errors"),
         CV_VENUES, ("road", "building", "vegetation", "sky", "person", "pole")),
    Area("self-supervised learning", "self-supervised representation learning", "linear-probe top-1 (%)", True,
         _ds(("ImageNet-100", 72, 88), ("Places205", 50, 62), ("STL-10", 80, 94), ("Tiny-ImageNet", 45, 62),
             ("DTD", 64, 78)),
         (Family("contrastive", "contrastive method", "contrastive methods", "pulls together two views of an image and pushes apart others"),
          Family("mim", "masked image model", "masked image models", "reconstructs hidden patches from the visible ones"),
          Family("distill", "self-distillation method", "self-distillation methods", "matches a student to a slowly updated teacher")),
         (Sweep("pt", "pretraining epochs", (100, 200, 400, 800, 1600), "the length of pretraining", (), log_x=True),
          Sweep("fewshot", "labels per class", (1, 2, 5, 13, 25), "the number of labelled images per class in the probe", (), log_x=True),
          Sweep("mask", "mask ratio (%)", (40, 50, 60, 70, 80, 90), "the share of masked patches", ("mim",), shape="peak"),
          Sweep("batch", "batch size", (256, 512, 1024, 2048, 4096), "the pretraining batch size", ("contrastive",), log_x=True)),
         ("projection head", "momentum encoder", "masking strategy", "prediction target", "augmentation pipeline", "centering step"),
         ("momentum prototype contrast", "masked feature prediction", "cross-view distillation", "multi-crop consistency",
          "redundancy reduction", "semantic token targets"),
         ("label-efficient learning", "transfer to dense tasks", "scalable pretraining", "representation collapse"),
         ("a frozen backbone on shifted test images", "a frozen backbone on sketches", "a frozen backbone on blurred images"),
         "images", "attention maps of the last layer", "an unlabelled image", "a feature vector", "pretraining GPU-hours",
         ("labels are the main cost of supervised pretraining", "features learned without labels must transfer to tasks unseen in pretraining",
          "collapsed solutions satisfy most objectives without labels"),
         CV_VENUES + ("ICML",), ("animals", "vehicles", "plants", "food", "scenes", "textures")),
    Area("image generation", "image generation", "FID", False,
         _ds(("CIFAR-10", 2.0, 12.0), ("ImageNet 256x256", 2.0, 16.0), ("FFHQ 256", 2.5, 10.0), ("LSUN Bedroom", 2.0, 9.0),
             ("CelebA-HQ", 3.0, 11.0)),
         (Family("diffusion", "diffusion model", "diffusion models", "learns to reverse a gradual noising process"),
          Family("gan", "generative adversarial network", "generative adversarial networks", "trains a generator against a discriminator"),
          Family("ar", "autoregressive token model", "autoregressive token models", "predicts discrete image tokens one at a time")),
         (Sweep("train", "training iterations (k)", (50, 100, 200, 400, 800), "the number of training iterations", (), log_x=True),
          Sweep("steps", "sampling steps", (5, 10, 20, 50, 100, 250), "the number of sampling steps", ("diffusion",), log_x=True),
          Sweep("guidance", "guidance scale", (1.0, 1.5, 2.0, 3.0, 4.0, 6.0), "the classifier-free guidance scale", ("diffusion", "ar"), shape="peak"),
          Sweep("trunc", "truncation", (0.5, 0.6, 0.7, 0.8, 0.9, 1.0), "the truncation threshold", ("gan",), shape="peak")),
         ("noise schedule", "discriminator", "tokenizer", "denoising network", "latent encoder", "regularizer"),
         ("rectified flow matching", "progressive distillation", "latent token modelling", "adaptive augmentation",
          "consistency training", "style modulation"),
         ("few-step sampling", "high-resolution synthesis", "data-limited generation", "controllable synthesis"),
         ("50 sampling steps", "a quarter of the training data", "a 64x64 resolution"),
         "images", "uncurated samples", "noise", "an image", "sampling time (s)",
         ("sample quality and sampling speed pull in opposite directions", "evaluating generative models needs many samples",
          "small datasets make discriminators overfit"),
         ML_VENUES + ("CVPR",), ("faces", "rooms", "animals", "objects", "textures", "scenes")),
    Area("graph learning", "node classification", "accuracy (%)", True,
         _ds(("Cora", 78, 88), ("Citeseer", 66, 76), ("PubMed", 76, 84), ("ogbn-arxiv", 68, 76), ("ogbn-products", 74, 84)),
         (Family("mp", "message-passing network", "message-passing networks", "aggregates features from neighbours layer by layer"),
          Family("gt", "graph transformer", "graph transformers", "lets every node attend to every other node with structural encodings"),
          Family("decoupled", "decoupled propagation model", "decoupled propagation models",
                 "separates feature transformation from propagation over the graph")),
         (Sweep("depth", "number of layers", (2, 4, 8, 16, 32), "the depth of the network", ("mp", "gt"), shape="depth", log_x=True),
          Sweep("labelrate", "label rate (%)", (0.5, 1, 2, 5, 10, 20), "the label rate", (), log_x=True),
          Sweep("hops", "propagation steps", (1, 2, 4, 8, 16, 32), "the number of propagation steps", ("decoupled",), shape="peak", log_x=True),
          Sweep("hidden", "hidden dimension", (16, 32, 64, 128, 256), "the hidden dimension", ())),
         ("edge attention", "residual propagation", "positional encoding", "neighbour sampler", "readout layer", "normalisation layer"),
         ("heterophily-aware aggregation", "positional graph encoding", "decoupled label propagation",
          "edge-conditioned attention", "spectral filtering", "adaptive residual connections"),
         ("heterophilous graphs", "scalable graph learning", "deep graph networks", "label-scarce graphs"),
         ("graphs with 30% of edges removed", "graphs with noisy features", "graphs with adversarial edges"),
         "nodes", "", "a graph", "a label per node", "training time per epoch (s)",
         ("deep graph networks tend to make node features indistinguishable", "labels are available for a tiny fraction of nodes",
          "real graphs mix homophilous and heterophilous regions"),
         ML_VENUES + ("KDD", "WWW"), ("theory", "systems", "vision", "language", "biology", "robotics")),
    Area("speech recognition", "speech recognition", "WER (%)", False,
         _ds(("LibriSpeech test-clean", 1.8, 6.0), ("LibriSpeech test-other", 3.8, 12.0), ("TED-LIUM 3", 4.5, 12.0),
             ("Common Voice (en)", 7.0, 20.0), ("WSJ eval92", 2.5, 8.0)),
         (Family("ctc", "CTC model", "CTC models", "labels every frame independently and merges repeats"),
          Family("aed", "attention encoder-decoder", "attention encoder-decoders", "decodes the transcript with attention over the encoder"),
          Family("rnnt", "transducer", "transducers", "combines an acoustic encoder with a label predictor through a joint network")),
         (Sweep("hours", "labelled audio (hours)", (10, 50, 100, 460, 960), "the amount of labelled audio", (), log_x=True),
          Sweep("snr", "SNR (dB)", (0, 5, 10, 15, 20), "the signal-to-noise ratio of added noise", ()),
          Sweep("beam", "beam size", (1, 2, 4, 8, 16), "the beam size", ("aed", "rnnt"), log_x=True),
          Sweep("chunk", "chunk size (ms)", (160, 320, 640, 1280, 2560), "the streaming chunk size", ("ctc", "rnnt"), log_x=True)),
         ("acoustic encoder", "subsampling front-end", "label predictor", "joint network", "language model fusion", "spec augmentation"),
         ("chunked streaming attention", "intermediate CTC regularisation", "stateless prediction", "dynamic subsampling",
          "noise-robust front-ends", "shallow fusion"),
         ("streaming recognition", "low-resource recognition", "noisy speech", "long-form transcription"),
         ("babble noise at 5 dB", "accented speech", "far-field recordings"),
         "utterances", "log-mel spectrograms with attention overlays", "an utterance", "a transcript", "real-time factor",
         ("transcribed audio is scarce outside a few languages", "streaming recognition must commit to words before an utterance ends",
          "background noise degrades recognisers trained on read speech"),
         ("Interspeech", "ICASSP", "ASRU", "NeurIPS", "ICLR"), ("numbers", "names", "short words", "long words", "fillers", "accented")),
    Area("machine translation", "machine translation", "BLEU", True,
         _ds(("WMT14 En-De", 24, 32), ("WMT14 En-Fr", 38, 45), ("WMT16 En-Ro", 30, 37), ("IWSLT14 De-En", 32, 38),
             ("WMT17 Zh-En", 20, 28)),
         (Family("ar", "autoregressive transformer", "autoregressive transformers", "generates the translation one token at a time"),
          Family("nat", "non-autoregressive model", "non-autoregressive models", "predicts all target tokens in parallel"),
          Family("retrieval", "retrieval-augmented model", "retrieval-augmented models", "conditions on similar sentence pairs from a datastore")),
         (Sweep("steps", "training steps (k)", (25, 50, 100, 200, 300), "the number of training steps", ()),
          Sweep("beam", "beam size", (1, 2, 4, 8, 16), "the beam size", ("ar", "retrieval"), shape="peak", log_x=True),
          Sweep("iters", "decoding iterations", (1, 2, 4, 8, 10), "the number of refinement iterations", ("nat",)),
          Sweep("length", "source length (tokens)", (10, 20, 30, 40, 60), "the source sentence length", (), shape="depth")),
         ("length predictor", "knowledge distillation", "datastore", "decoder", "shared vocabulary", "alignment module"),
         ("iterative mask refinement", "glancing training", "k-nearest-neighbour decoding", "layer dropping",
          "latent alignment", "data diversification"),
         ("low-latency translation", "low-resource translation", "document-level translation", "domain adaptation"),
         ("out-of-domain medical text", "noisy user-generated text", "long documents"),
         "sentence pairs", "", "a source sentence", "a target sentence", "decoding latency (ms)",
         ("autoregressive decoding latency grows with output length", "parallel corpora are small for most language pairs",
          "translation quality drops sharply out of the training domain"),
         ("ACL", "EMNLP", "NAACL", "TACL", "ICLR", "NeurIPS"), ("nouns", "verbs", "named entities", "numbers", "idioms", "rare words")),
)

AREA_BY_NAME = {a.name: a for a in AREAS}
VENUE_LONG = {
    "CVPR": "IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
    "ICCV": "IEEE/CVF International Conference on Computer Vision (ICCV)",
    "ECCV": "European Conference on Computer Vision (ECCV)",
    "WACV": "IEEE/CVF Winter Conference on Applications of Computer Vision (WACV)",
    "BMVC": "British Machine Vision Conference (BMVC)",
    "NeurIPS": "Advances in Neural Information Processing Systems (NeurIPS)",
    "ICML": "International Conference on Machine Learning (ICML)",
    "ICLR": "International Conference on Learning Representations (ICLR)",
    "AISTATS": "International Conference on Artificial Intelligence and Statistics (AISTATS)",
    "TMLR": "Transactions on Machine Learning Research (TMLR)",
    "AAAI": "AAAI Conference on Artificial Intelligence (AAAI)",
    "KDD": "ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD)",
    "WWW": "The ACM Web Conference (WWW)",
    "Interspeech": "Annual Conference of the International Speech Communication Association (Interspeech)",
    "ICASSP": "IEEE International Conference on Acoustics, Speech and Signal Processing (ICASSP)",
    "ASRU": "IEEE Automatic Speech Recognition and Understanding Workshop (ASRU)",
    "ACL": "Annual Meeting of the Association for Computational Linguistics (ACL)",
    "EMNLP": "Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    "NAACL": "Conference of the North American Chapter of the ACL (NAACL)",
    "TACL": "Transactions of the Association for Computational Linguistics (TACL)",
}
FIRST_YEAR, LAST_YEAR = 2017, 2025

# method names: pronounceable stems with suffixes any area uses, or acronyms; neither hints at the area
STEM_HEADS = ("Zar", "Tel", "Qui", "Vor", "Lum", "Kes", "Mir", "Ost", "Pel", "Dra", "Fen", "Gal", "Hal", "Jun", "Kor",
              "Lys", "Nor", "Obi", "Pra", "Ryn", "Sol", "Tav", "Ulm", "Vel", "Wyn", "Xan", "Yor", "Zel", "Bre", "Cal",
              "Dun", "Eri", "Ard", "Bel", "Cor", "Del", "Eno", "Fal", "Gri", "Hes")
STEM_TAILS = ("vo", "mi", "ra", "den", "lix", "tor", "ka", "ven", "sa", "rin", "to", "lo", "na", "quin", "bel", "dra",
              "mos", "tis")
NAME_SUFFIXES = ("", "", "", "", "-S", "-B", "-L", "++", "v2", "-X", "Lite", "+")

GIVEN_NAMES = ("Amara", "Bao", "Chiara", "Dmitri", "Esi", "Farid", "Greta", "Hiroshi", "Ines", "Jae-won", "Kavya",
               "Lars", "Mei", "Nikhil", "Olumide", "Priya", "Quentin", "Rania", "Sven", "Tomasz", "Uzma", "Valeria",
               "Wen", "Xavier", "Yusuf", "Zeynep", "Aiko", "Bruno", "Chen", "Daria", "Emeka", "Fatima", "Gustavo",
               "Hana", "Ivan", "Joon", "Kofi", "Leila", "Mateo", "Nadia", "Oskar", "Paulina", "Ravi", "Sakura",
               "Tariq", "Ulrike", "Vikram", "Yara", "Ana", "Bilal", "Camille", "Diego", "Elif", "Femi", "Giulia",
               "Hamid", "Ingrid", "Jun", "Katarzyna", "Luca", "Maryam", "Noah", "Olga", "Pedro", "Rui", "Sofia")
FAMILY_NAMES = ("Okafor", "Lin", "Moreau", "Haddad", "Kowalski", "Nakamura", "Osei", "Petrov", "Quispe", "Rahman",
                "Silva", "Tanaka", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Abebe", "Brandt", "Castillo", "Dubois",
                "Eriksen", "Fischer", "Gupta", "Horvath", "Iyer", "Jansen", "Kim", "Lindqvist", "Mensah", "Novak",
                "Oliveira", "Park", "Rossi", "Sato", "Teo", "Usman", "Vance", "Wang", "Yamada", "Zhou", "Adeyemi",
                "Bianchi", "Chaudhry", "Demir", "Ferreira", "Gallo", "Hoffmann", "Ibrahim", "Jovanovic", "Kaplan",
                "Li", "Martins", "Nguyen", "Ortiz", "Pereira", "Qureshi", "Reyes", "Schmidt", "Takahashi", "Ueda",
                "Volkov", "Wiśniewski", "Yadav", "Ziegler", "Achebe", "Berg", "Costa", "Das", "Engel", "Fujita",
                "Grant", "Huang", "Ito", "Jensen", "Kumar", "Liu", "Mori", "Nowak", "Popescu", "Rao", "Suzuki",
                "Tran", "Umar", "Vogel", "Wu", "Yang", "Zapata", "Alvarez", "Bose", "Chen", "Dimitrov", "Ekström")
AFFILIATIONS = ("Northfield Institute of Technology", "University of Lakeshore", "Meridian AI Lab", "Eastbrook University",
                "Coastal Institute for Learning Systems", "Halvorsen Research", "Ridgeview University",
                "Institute for Visual Computing, Arlen", "Summit Vision Group", "Westmoor College of Engineering",
                "Pinecrest University", "Orchard Labs", "Harbourview Technical University", "Kestrel Speech Lab",
                "Granite Peak Institute", "Lowland University of Science", "Aurora Language Technologies",
                "Silverbirch Research Centre")
