"""A small hand-written catalog (30 papers) with citation-cue and indirect-hint queries for retrieval tests.

Papers deliberately overlap: several share a venue and year, some share authors, several are on graphs
or on speech, and papers cite each other, so a cue must combine fields to pick the right one.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    authors: tuple[str, ...]
    venue: str
    year: int
    abstract: str
    cites: tuple[str, ...] = field(default_factory=tuple)


PAPERS: list[Paper] = [
    Paper("P001", "GraphMix: Mixing Node Features for Semi-Supervised Graph Learning", ("Adaeze Okafor", "Liam Brandt"), "CVPR", 2021,
          "We introduce GraphMix, a regularizer that interpolates hidden node features along edges. On citation graphs it improves label efficiency by a wide margin over plain graph convolutional networks."),
    Paper("P002", "Sparse Attention Routing for Long Document Summarization", ("Mei Tanaka", "Adaeze Okafor"), "ACL", 2022,
          "Long inputs overwhelm dense attention. We route each token to a few learned buckets, cutting memory quadratically, and report ROUGE gains on scientific article summarization.", ("P011",)),
    Paper("P003", "Contrastive Pretraining of Protein Sequence Encoders", ("Rafael Duarte", "Ines Moreau"), "NeurIPS", 2020,
          "We learn protein representations by contrasting augmented views of amino acid sequences. The encoder transfers to secondary structure and stability prediction with little labelled data."),
    Paper("P004", "Okapi Ranking Revisited: Term Saturation in Neural Retrieval", ("Jonas Feld",), "SIGIR", 2019,
          "We study term frequency saturation as used by classic probabilistic ranking functions and show that neural rerankers implicitly learn a similar saturation curve."),
    Paper("P005", "Self-Supervised Depth Estimation from Monocular Driving Video", ("Chen Wei", "Sara Lindqvist"), "CVPR", 2021,
          "Without ground-truth depth, we train a network to predict depth and ego-motion by reconstructing neighbouring frames of dashcam footage, handling occlusions with a minimum reprojection loss."),
    Paper("P006", "Equivariant Message Passing for Molecular Property Prediction", ("Ines Moreau", "Tomas Novak"), "ICML", 2021,
          "We propose message passing layers that respect rotations in three dimensions, predicting quantum chemical properties of small molecules with state-of-the-art accuracy.", ("P001",)),
    Paper("P007", "Learning to Detect Birdsong in Noisy Field Recordings", ("Hannah Osei", "Peter Walsh"), "ICASSP", 2022,
          "Bioacoustic monitoring needs robust detectors. We train a convolutional recurrent network on spectrograms of forest recordings and release annotations for thirty species."),
    Paper("P008", "Federated Averaging under Heterogeneous Client Drift", ("Lukas Meyer", "Aisha Rahman"), "ICLR", 2021,
          "When clients hold non-identically distributed data, local updates drift apart. We add a control variate that corrects drift and prove faster convergence of federated optimization."),
    Paper("P009", "Vision Transformers Need Registers of Memory", ("Sara Lindqvist", "Chen Wei"), "ICCV", 2023,
          "Attention maps of large vision transformers show artifacts in background patches. Adding a few extra learnable tokens removes the artifacts and improves dense prediction."),
    Paper("P010", "Curriculum Sampling for Imbalanced Node Classification", ("Liam Brandt",), "KDD", 2022,
          "Rare classes in graphs are under-represented during training. We schedule neighbour sampling from easy to hard examples and improve minority-class recall.", ("P001",)),
    Paper("P011", "Hierarchical Transformers for Legal Judgment Prediction", ("Mei Tanaka",), "EMNLP", 2020,
          "Court decisions are long and structured. We encode paragraphs separately and aggregate them with a second transformer, predicting case outcomes from facts."),
    Paper("P012", "Low-Resource Speech Recognition with Phoneme Transfer", ("Hannah Osei", "Kwame Mensah"), "Interspeech", 2021,
          "For languages with a few hours of transcribed audio, we transfer a multilingual phoneme recognizer and fine-tune with a lexicon, halving word error rate for Twi and Ewe."),
    Paper("P013", "Diffusion Models for Inpainting Satellite Imagery", ("Oliver Grant", "Chen Wei"), "CVPR", 2023,
          "Clouds hide parts of satellite images. A denoising diffusion model conditioned on cloud-free observations from other dates fills in the occluded land cover."),
    Paper("P014", "Pruning Large Language Models without Retraining", ("Aisha Rahman", "Jonas Feld"), "ICML", 2023,
          "We remove half of the weights of large language models in one shot, using second-order information computed layer by layer, with little loss in perplexity."),
    Paper("P015", "Causal Discovery from Irregularly Sampled Clinical Time Series", ("Ines Moreau", "Nadia Haddad"), "AISTATS", 2022,
          "Electronic health records are sampled at irregular times. We extend constraint-based causal discovery with continuous-time models and recover known drug interactions."),
    Paper("P016", "Robust Reinforcement Learning for Quadruped Locomotion", ("Tomas Novak", "Peter Walsh"), "CoRL", 2021,
          "Legged robots trained in simulation fail on real terrain. Domain randomization over friction and payload with an adversarial disturbance policy yields gaits that transfer to hardware."),
    Paper("P017", "Tabular Data Synthesis with Copula Flows", ("Nadia Haddad",), "AISTATS", 2020,
          "Releasing sensitive tables needs synthetic data that preserves dependencies. We combine Gaussian copulas with normalizing flows for mixed discrete and continuous columns."),
    Paper("P018", "Graph Contrastive Learning with Adaptive Augmentation", ("Liam Brandt", "Adaeze Okafor"), "NeurIPS", 2021,
          "Random edge dropping destroys important structure. We drop edges and mask features with probabilities tied to node centrality, learning better unsupervised graph representations.", ("P001", "P003")),
    Paper("P019", "Efficient Keyword Spotting on Microcontrollers", ("Kwame Mensah",), "ICASSP", 2020,
          "Always-on voice interfaces run on tiny chips. We design depthwise separable networks under 50 kilobytes that detect wake words with low latency and power."),
    Paper("P020", "Optical Flow Estimation with Recurrent All-Pairs Matching", ("Sara Lindqvist", "Oliver Grant"), "ECCV", 2020,
          "We build a 4D correlation volume for all pairs of pixels and iteratively update a flow field with a recurrent unit, reducing end-point error on driving benchmarks."),
    Paper("P021", "Fairness Constraints in Credit Scoring Models", ("Nadia Haddad", "Lukas Meyer"), "FAccT", 2022,
          "Loan approval models can disadvantage protected groups. We compare equalized odds post-processing with in-training constraints on real lending data."),
    Paper("P022", "Neural Radiance Fields from Sparse Views", ("Oliver Grant",), "CVPR", 2022,
          "Novel view synthesis usually needs dozens of photos. We regularize the geometry and appearance of a radiance field so that three input views suffice."),
    Paper("P023", "Retrieval-Augmented Question Answering over Scientific Papers", ("Mei Tanaka", "Jonas Feld"), "ACL", 2023,
          "Answers to questions about papers hide in figures and tables. We retrieve passages and table cells with a hybrid of lexical and dense retrievers before reading.", ("P004", "P002")),
    Paper("P024", "Weather Forecasting with Graph Neural Networks", ("Tomas Novak", "Rafael Duarte"), "ICLR", 2023,
          "We forecast global atmospheric states on an icosahedral mesh with a learned message passing simulator that rolls out ten days ahead faster than numerical models.", ("P006",)),
    Paper("P025", "Membership Inference Attacks on Diffusion Models", ("Aisha Rahman",), "USENIX Security", 2023,
          "We show that an adversary can tell whether an image was in the training set of a diffusion model from its denoising loss, and evaluate defenses."),
    Paper("P026", "Active Learning for Semantic Segmentation of Medical Scans", ("Rafael Duarte", "Sara Lindqvist"), "MICCAI", 2021,
          "Annotating organs voxel by voxel is expensive. We select the most uncertain image regions for labelling, reaching full-supervision accuracy on abdominal CT with a fifth of the labels."),
    Paper("P027", "Mixture of Experts for Multilingual Machine Translation", ("Kwame Mensah", "Mei Tanaka"), "EMNLP", 2022,
          "A single model translating two hundred languages suffers interference. Sparsely gated expert layers routed by language family recover quality for low-resource pairs."),
    Paper("P028", "Counterfactual Explanations for Recommender Systems", ("Lukas Meyer",), "RecSys", 2021,
          "Why was this item recommended? We search for the smallest change to a user's history that removes the item from the list and present it as an explanation."),
    Paper("P029", "Point Cloud Completion with Transformers", ("Chen Wei",), "ICCV", 2021,
          "Lidar scans are partial. We predict missing points of objects with a transformer encoder-decoder over point proxies and a folding-based refinement."),
    Paper("P030", "Energy-Based Models for Anomaly Detection in Industrial Sensors", ("Peter Walsh", "Hannah Osei"), "KDD", 2020,
          "Factory machines fail rarely. We fit an energy-based model to normal vibration signals and flag windows with high energy, detecting bearing faults days in advance."),
]

BY_ID = {p.id: p for p in PAPERS}


def reference_string(p: Paper) -> str:
    first = p.authors[0].split()[-1]
    who = f"{first} et al." if len(p.authors) > 1 else first
    return f"{who} {p.title}. {p.venue} {p.year}."


# (query, the paper it means); citation cues combine author, year and venue, hints paraphrase.
CUE_QUERIES: list[tuple[str, str]] = [
    ("the 2021 CVPR paper by Okafor et al. that introduced a feature mixing regularizer", "P001"),
    ("Okafor and Brandt, CVPR 2021", "P001"),
    ("the NeurIPS 2021 work by Brandt et al. on augmenting graphs by centrality", "P018"),
    ("Lindqvist's ICCV 2023 paper about extra tokens in vision transformers", "P009"),
    ("the 2021 CVPR paper by Chen Wei on depth from dashcam video", "P005"),
    ("Grant, CVPR 2022, novel views from three photos", "P022"),
    ("Haddad 2020 AISTATS synthetic tables", "P017"),
    ("Osei et al. Interspeech 2021", "P012"),
    ("the ICML 2023 paper by Rahman and Feld on one-shot pruning", "P014"),
    ("Tanaka's 2020 EMNLP paper on court decisions", "P011"),
]
HINT_QUERIES: list[tuple[str, str]] = [
    ("sparsifying a chatbot's neural net in a single shot, no extra tuning", "P014"),
    ("can an attacker tell if my photo was used to teach an image generator", "P025"),
    ("filling in cloudy regions of earth observation photos", "P013"),
    ("four-legged robot walking outdoors after practice in a simulator", "P016"),
    ("why did the shop suggest this product to me", "P028"),
    ("hey-siri style trigger phrase recognition on tiny low-power chips", "P019"),
    ("predicting machine breakdowns from vibration data", "P030"),
    ("bank lending algorithms that discriminate against minorities", "P021"),
    ("medium-range global weather prediction with learned simulators", "P024"),
    ("asking doctors to annotate only the confusing parts of abdominal CT", "P026"),
    ("birds singing in the woods, automatic recognition", "P007"),
    ("estimating pixel motion between consecutive video frames", "P020"),
]


def paper_docs(with_references: bool = True) -> list[tuple[str, str]]:
    """(id, text) documents in the layout the sandbox uses: own metadata first, then cited references."""
    from tools.search_index import paper_document_text

    docs = []
    for p in PAPERS:
        refs = [reference_string(BY_ID[c]) for c in p.cites] if with_references else []
        docs.append((p.id, paper_document_text(p.title, list(p.authors), p.venue, p.year, p.abstract, refs)))
    return docs
