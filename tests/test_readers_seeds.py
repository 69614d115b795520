"""Every reader on its whole real seed dump, checked against values read from the raw text.

The expected values below were established by reading the dumps themselves (sed/grep over
seeds/), not by running the readers: record counts come from counting the lines that open a
record, and the irregular records were found by scanning each dump for records whose line
pattern differs from the regular one. Where a test derives expectations from the raw file at run
time (`raw_lines`), it does so with a rule stated next to it that does not use the reader's code.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass

import pytest
from conftest import SEED_FILES, SEEDS, raw_lines, read_seed

from confsite.readers import sniff
from confsite.readers.base import RawRecord
from confsite.readers.sources import load_source_text

SEP = " · "  # the author separator of the program pages
LONG = 200  # in the 2023/2024 pages every title is <= 134 chars and every abstract >= 480


@functools.cache
def records(key: str) -> tuple[RawRecord, ...]:
    return tuple(read_seed(key))


def record_at_line(key: str, line: int) -> RawRecord:
    found = [record for record in records(key) if record.loc.line == line]
    assert len(found) == 1, f"{key}: {len(found)} records start at line {line}, expected 1"
    return found[0]


def names(text: str) -> tuple[str, ...]:
    """A hand-written author list, `", "`-separated (no author in these dumps has a comma)."""
    return tuple(text.split(", ")) if text else ()


@dataclass(frozen=True)
class Want:
    """What the raw dump says about one record: first/last line, fields, abstract start and end."""

    line: int
    end_line: int
    title: str | None
    authors: tuple[str, ...]
    abstract: tuple[str, str] | None  # (start of first paragraph, end of last); None: no abstract
    paragraphs: int = 1
    presentation: str | None = None
    decision: str | None = None
    attendance: str | None = None
    awards: tuple[str, ...] = ()
    session: str | None = None
    room: str | None = None


def observed(record: RawRecord, want: Want) -> Want:
    """The record in `Want` form, its abstract cut to the lengths of the expected fragments."""
    abstract = None
    if record.abstract:
        start, end = want.abstract or ("", "")
        last = record.abstract[-1]
        abstract = (record.abstract[0][: len(start)], last[len(last) - len(end) :])
    return Want(
        line=record.loc.line,
        end_line=record.loc.end_line,
        title=record.title,
        authors=record.authors,
        abstract=abstract,
        paragraphs=len(record.abstract),
        presentation=record.presentation,
        decision=record.decision,
        attendance=record.attendance,
        awards=record.awards,
        session=record.session,
        room=record.room,
    )


def check(key: str, want: Want) -> None:
    assert asdict(observed(record_at_line(key, want.line), want)) == asdict(want)


# --- sniffing and counts ----------------------------------------------------------------------

# How each count was established from the raw text:
# 2023: 135 lines match "<In-Person Poster|Virtual> presentation / <decision>", one per record.
# 2024: 286 author lines (" · ") + 4 single-author lines (100, 410, 464, 1435) + 1 record without
#       authors (1079) = 291; equally 290 title lines + 1 untitled record (1558).
# markdown: 860 "## " lines and 860 "- abstract@" lines, one each per record.
# awards: 20 award lines (14 "Outstanding Paper", 6 "Honorable Mention"), one per record.
# listing: 536 lines, no blank ones: 2 junk lines, then 267 title/abstract pairs.
SEED_TABLE = [
    ("2023", "session-2023", 135),
    ("2024", "session-2024", 291),
    ("markdown", "markdown-list", 860),
    ("awards", "awards", 20),
    ("listing", "paper-listing", 267),
]


@pytest.mark.parametrize(("key", "reader", "count"), SEED_TABLE)
def test_sniffer_picks_the_reader(key: str, reader: str, count: int) -> None:
    path = SEEDS / SEED_FILES[key]
    assert sniff(load_source_text(path, f"seeds/{path.name}")).reader.name == reader


@pytest.mark.parametrize(("key", "reader", "count"), SEED_TABLE)
def test_record_count(key: str, reader: str, count: int) -> None:
    assert len(records(key)) == count


# --- 2023 poster session ----------------------------------------------------------------------

S23 = "Poster Session 3"  # the page's first line; the page names no room
WANT_2023 = [
    pytest.param(Want(
        3, 8, "Few-shot Backdoor Attacks via Neural Tangent Kernels",
        names("Jonathan Hayase, Sewoong Oh"),
        ("In a backdoor attack, an attacker injects corrupted examples",
         "revealed by the shape of the neural tangent kernel."),
        presentation=None, decision="poster accept", attendance="virtual", session=S23,
    ), id="first-record-virtual-no-kind"),
    pytest.param(Want(
        94, 99, "Limitless Stability for Graph Convolutional Networks", ("Christian Koke",),
        ("This work establishes rigorous, novel and widely applicable",
         "response of filters and networks to such perturbations."),
        presentation="Poster", decision="poster accept", attendance="in person", session=S23,
    ), id="single-author-94"),
    pytest.param(Want(
        101, 106, "The Asymmetric Maximum Margin Bias of Quasi-Homogeneous Neural Networks",
        names("Daniel Kunin, Atsushi Yamamura, Chao Ma, Surya Ganguli"),
        ("In this work, we explore the maximum-margin bias of quasi-ho",
         "the empirical phenomenon of Neural Collapse."),
        presentation="Poster", decision="top 25% paper", attendance="in person", session=S23,
    ), id="after-single-author-94"),
    pytest.param(Want(
        108, 114, "Rethinking the Expressive Power of GNNs via Graph Biconnectivity",
        names("Bohang Zhang, Shengjie Luo, Liwei Wang, Di He"),
        ("Designing expressive Graph Neural Networks (GNNs) is a central topic",
         "can consistently outperform prior GNN architectures."),
        presentation="Poster", decision="top 5% paper", attendance="in person",
        awards=("Outstanding Paper",), session=S23,
    ), id="outstanding-paper-108"),
    pytest.param(Want(
        116, 121, "Anti-Symmetric DGN: a stable architecture for Deep Graph Networks",
        names("Alessio Gravina, Davide Bacciu, Claudio Gallicchio"),
        ("Deep Graph Networks (DGNs) currently dominate the research",
         "effectively even when dozens of layers are used."),
        presentation="Poster", decision="poster accept", attendance="in person", session=S23,
    ), id="after-outstanding-paper"),
    pytest.param(Want(
        837, 842, "Mini-batch $k$-means terminates within $O(d/\\epsilon)$ iterations",
        ("Gregory Schwartzman",),
        ('We answer the question: "Does \\emph{local} progress (on batches)',
         "implemented in the scikit-learn (sklearn) python library."),
        presentation="Poster", decision="poster accept", attendance="in person", session=S23,
    ), id="single-author-837"),
    pytest.param(Want(
        844, 849, "Fundamental limits on the robustness of image classifiers",
        names("Zheng Dai, David Gifford"),
        ("We prove that image classifiers are fundamentally sensitive",
         "discussion of their implications for vision systems."),
        presentation="Poster", decision="poster accept", attendance="in person", session=S23,
    ), id="after-single-author-837"),
    pytest.param(Want(
        928, 934, "On the duality between contrastive and non-contrastive self-supervised learning",
        names("Quentin Garrido, Yubei Chen, Adrien Bardes, Laurent Najman, Yann LeCun"),
        ("Recent approaches in self-supervised learning of image representations",
         "to build a better understanding of self-supervised learning."),
        presentation="Poster", decision="top 5% paper", attendance="in person",
        awards=("Honorable Mention",), session=S23,
    ), id="honorable-mention-928"),
    pytest.param(Want(
        936, 941,
        "The Trade-off between Universality and Label Efficiency of Representations from "
        "Contrastive Learning",
        names("Zhenmei Shi, Jiefeng Chen, Kunyang Li, Jayaram Raghuram, Xi Wu, Yingyu Liang, "
              "Somesh Jha"),
        ("Pre-training representations (a.k.a. foundation models) has",
         "experiments using real-world datasets and foundation models."),
        presentation="Poster", decision="top 25% paper", attendance="in person", session=S23,
    ), id="after-honorable-mention"),
    pytest.param(Want(
        943, 948, "Self-supervised learning with rotation-invariant kernels",
        names("Léon Zheng, Gilles Puy, Elisa Riccietti, Patrick Perez, Rémi Gribonval"),
        ("We introduce a regularization loss based on kernel mean embeddings",
         "in order to improve self-supervised learning methods."),
        presentation="Poster", decision="top 25% paper", attendance="in person", session=S23,
    ), id="last-record"),
]


@pytest.mark.parametrize("want", WANT_2023)
def test_2023_record(want: Want) -> None:
    check("2023", want)


def test_2023_every_record_matches_its_header_line() -> None:
    """Rule from the raw text: a record opens at each "... presentation / ..." line; the title is
    the next line, or the one after it when that next line is an award line."""
    lines = raw_lines("2023")
    headers = [n for n, text in enumerate(lines, 1) if " presentation / " in text]
    awards = {"Outstanding Paper", "Honorable Mention"}
    titles = [lines[n] if lines[n] not in awards else lines[n + 1] for n in headers]
    got = records("2023")
    assert [r.loc.line for r in got] == headers
    assert [r.title for r in got] == titles
    assert [r.decision for r in got] == [lines[n - 1].split(" / ", 1)[1] for n in headers]
    assert all(r.abstract and len(r.abstract) == 1 for r in got)


def test_2023_page_facts_and_tallies() -> None:
    got = records("2023")
    # 97 "poster accept" (96 in person + line 3), 27 "top 25% paper", 11 "top 5% paper"
    assert Counter(r.decision for r in got) == {
        "poster accept": 97, "top 25% paper": 27, "top 5% paper": 11
    }
    # one "Virtual presentation" header (line 3), 134 "In-Person Poster presentation"
    assert Counter(r.attendance for r in got) == {"in person": 134, "virtual": 1}
    assert {r.loc.line: r.awards for r in got if r.awards} == {
        108: ("Outstanding Paper",), 928: ("Honorable Mention",)
    }
    # line 1 "Poster Session 3" is page chrome: the session of every record, not a record
    assert {(r.session, r.room) for r in got} == {(S23, None)}
    assert all(r.title != S23 for r in got)
    assert Counter(len(r.authors) == 1 for r in got)[True] == 2  # lines 97 and 840


# --- 2024 poster session ----------------------------------------------------------------------

S24, ROOM = "Poster Session 3", "Halle B"  # page chrome, lines 5 and 7


def w24(*args, **kwargs) -> Want:
    return Want(*args, **kwargs, session=S24, room=ROOM)


SPOT = {"decision": "Spotlight", "presentation": "Poster"}
WANT_2024 = [
    pytest.param(w24(
        10, 15, "Improving Offline RL by Blending Heuristics",
        names("Sinong Geng, Aldo Pacchiano, Andrey Kolobov, Ching-An Cheng"),
        ("We propose Heuristic Blending (HUBL), a simple performance-improving",
         "27 datasets of the D4RL and Meta-World benchmarks."), **SPOT,
    ), id="first-record-spotlight"),
    pytest.param(w24(
        98, 102,
        "Calibrated Chaos: Variance Between Runs of Neural Network Training is Harmless and "
        "Inevitable",
        ("Keller Jordan",),
        ("Typical neural network trainings have substantial variance in test-set",
         "learning rate through the lens of variance between runs."),
    ), id="single-author-98"),
    pytest.param(w24(
        104, 108, "OpenWebMath: An Open Dataset of High-Quality Mathematical Web Text",
        names("Keiran Paster, Marco Dos Santos, Zhangir Azerbayev, Jimmy Ba"),
        ("There is growing evidence that pretraining on high quality,",
         "the reasoning abilities of large language models."),
    ), id="after-single-author-98"),
    pytest.param(w24(
        408, 412, "Automatic Functional Differentiation in JAX", ("Min Lin",),
        ("We extend JAX with the capability to automatically differentiate",
         "where functional derivatives are indispensable."),
    ), id="single-author-408"),
    pytest.param(w24(
        414, 418,
        "VersVideo: Leveraging Enhanced Temporal Diffusion Models for Versatile Video Generation",
        names("Jinxi Xiang, Ricong Huang, Jun Zhang, Guanbin Li, Xiao Han, Yang Wei"),
        ("Creating stable, controllable videos is a complex task",
         "videos generated by our model can be found at"),
    ), id="after-single-author-408"),
    pytest.param(w24(
        462, 466, "SetCSE: Set Operations using Contrastive Learning of Sentence Embeddings",
        ("Kang Liu",),
        ("Taking inspiration from Set Theory, we introduce SetCSE,",
         "cannot be achieved using existing search methods."),
    ), id="single-author-462"),
    pytest.param(w24(
        468, 472,
        "Separate and Diffuse: Using a Pretrained Diffusion Model for Better Source Separation",
        names("Shahar Lutati, Eliya Nachmani, Lior Wolf"),
        ("The problem of speech separation, also known as the cocktail",
         "previously considered the upper performance bound."),
    ), id="after-single-author-462"),
    pytest.param(w24(
        1073, 1077, "LoftQ: LoRA-Fine-Tuning-aware Quantization for Large Language Models",
        names("Yixiao Li, Yifan Yu, Chen Liang, Nikos Karampatziakis, Pengcheng He, Weizhu Chen, "
              "Tuo Zhao"),
        ("Quantization is an indispensable technique for serving Large",
         "mixed precision regimes. We will release our code."),
    ), id="before-missing-authors"),
    pytest.param(w24(
        1079, 1082,
        "GNeRP: Gaussian-guided Neural Reconstruction of Reflective Objects with Noisy "
        "Polarization Priors",
        (),
        ("Learning surfaces from neural radiance field (NeRF) became a rising topic",
         "reconstruction methods in reflective scenes by a large margin."),
    ), id="missing-authors-1079"),
    pytest.param(w24(
        1084, 1089,
        "How Many Pretraining Tasks Are Needed for In-Context Learning of Linear Regression?",
        names("Jingfeng Wu, Difan Zou, Zixiang Chen, vladimir braverman, Quanquan Gu, "
              "Peter Bartlett"),
        ("Transformers pretrained on diverse tasks exhibit remarkable",
         "shed light on the statistical foundations of ICL."), **SPOT,
    ), id="after-missing-authors"),
    pytest.param(w24(
        1333, 1335, "Improved baselines for vision-language pre-training",
        names("Jakob Verbeek, Enrico Fini, Michal Drozdzal, Pietro Astolfi, "
              "Adriana Romero-Soriano"),
        None, paragraphs=0,
    ), id="missing-abstract-1333"),
    pytest.param(w24(
        1337, 1341,
        "Approximating Nash Equilibria in Normal-Form Games via Stochastic Optimization",
        names("Ian Gemp, Luke Marris, Georgios Piliouras"),
        ("We propose the first loss function for approximate Nash equilibria",
         "can outperform previous state-of-the-art approaches."),
    ), id="after-missing-abstract-1333"),
    pytest.param(w24(
        1417, 1419, "LEAD: Min-Max Optimization from a Physical Perspective",
        names("Guillaume Lajoie, Amartya Mitra, Reyhane Askari Hemmat, Ioannis Mitliagkas"),
        None, paragraphs=0,
    ), id="missing-abstract-1417"),
    pytest.param(w24(
        1421, 1425, "Fully Hyperbolic Convolutional Neural Networks for Computer Vision",
        names("Ahmad Bdeir, Kristian Schwethelm, Niels Landwehr"),
        ("Real-world visual data exhibit intrinsic hierarchical structures",
         "in image data. Our code is publicly available at"),
    ), id="after-missing-abstract-1417"),
    pytest.param(w24(
        1433, 1437, "MAP IT to Visualize Representations", ("Robert Jenssen",),
        ("MAP IT visualizes representations by taking a fundamentally different",
         "state of the art while being inherently scalable."),
    ), id="single-author-1433"),
    pytest.param(w24(
        1439, 1443,
        "Self-Supervised Heterogeneous Graph Learning: a Homophily and Heterogeneity View",
        names("YUJIE MO, Feiping Nie, Ping Hu, Heng Tao Shen, Zheng Zhang, Xinchao Wang, "
              "Xiaofeng Zhu"),
        ("Self-supervised heterogeneous graph learning has achieved",
         "the proposed method on different downstream tasks."),
    ), id="after-single-author-1433"),
    pytest.param(w24(
        1551, 1555, "Set Learning for Accurate and Calibrated Models",
        names("Lukas Muttenthaler, Robert A Vandermeulen, Qiuyi Zhang, Thomas Unterthiner, "
              "Klaus R Muller"),
        ("Model overconfidence and poor calibration are common",
         "significant run-time overhead or architecture changes."),
    ), id="before-missing-title"),
    pytest.param(w24(
        1558, 1560, None,
        names("Dejiao Zhang, Wasi Ahmad, Ming Tan, Hantian Ding, Ramesh Nallapati, Dan Roth, "
              "Xiaofei Ma, Bing Xiang"),
        ("Recent studies have shown that code language model at scale",
         "downstream task performance scales with the model size."),
    ), id="missing-title-1558"),
    pytest.param(w24(
        1562, 1566, "Who to imitate: Imitating desired behavior from divserse multi-agent datasets",
        names("Tim Franzmeyer, Jakob Foerster, Edith Elkind, Philip Torr, Joao F. Henriques"),
        ("AI agents are commonly trained with large datasets of demonstrations",
         "imitation policies that outperform relevant baselines."),
    ), id="after-missing-title"),
    pytest.param(w24(
        1788, 1792,
        "Random Sparse Lifts: Construction, Analysis and Convergence of finite sparse networks",
        names("David Robin, Kevin Scaman, marc lelarge"),
        ("We present a framework to define a large class of neural networks",
         "to any precision for these large sparse models."),
    ), id="last-record"),
]


@pytest.mark.parametrize("want", WANT_2024)
def test_2024_record(want: Want) -> None:
    check("2024", want)


SINGLE_AUTHOR_LINES_2024 = {100, 410, 464, 1435}


def test_2024_fields_in_file_order() -> None:
    """Rule from the raw text, below the page chrome (lines 1-8): a "Spotlight Poster" line is a
    badge; a line with " · " or one of the four lone-name lines lists authors; a line of 200+
    characters is an abstract; any other line is a title. Read in order, the readers' titles,
    authors and abstracts must be exactly these, none dropped, duplicated or moved."""
    body = list(enumerate(raw_lines("2024"), 1))[9:]
    titles, authors, abstracts = [], [], []
    for n, text in body:
        if not text or text == "Spotlight Poster":
            continue
        if SEP in text or n in SINGLE_AUTHOR_LINES_2024:
            authors.append(tuple(text.split(SEP)))
        elif len(text) >= LONG:
            abstracts.append((text,))
        else:
            titles.append(text)
    got = records("2024")
    assert (len(titles), len(authors), len(abstracts)) == (290, 290, 289)
    assert [r.title for r in got if r.title is not None] == titles
    assert [r.authors for r in got if r.authors] == authors
    assert [r.abstract for r in got if r.abstract] == abstracts
    assert [r.loc.line for r in got if r.title is None] == [1558]
    assert [r.loc.line for r in got if not r.authors] == [1079]
    assert [r.loc.line for r in got if not r.abstract] == [1333, 1417]


def test_2024_badges_and_page_chrome() -> None:
    lines = raw_lines("2024")
    badges = [n for n, text in enumerate(lines, 1) if text == "Spotlight Poster"]
    assert len(badges) == 45 and badges[:2] == [3, 10]  # line 3 is in the page chrome
    got = records("2024")
    spotlight = [r.loc.line for r in got if r.decision == "Spotlight"]
    assert spotlight == badges[1:]
    assert {(r.decision, r.presentation) for r in got if r.loc.line in spotlight} == {
        ("Spotlight", "Poster")
    }
    assert {(r.decision, r.presentation) for r in got if r.loc.line not in spotlight} == {
        (None, None)
    }
    assert {(r.session, r.room) for r in got} == {(S24, ROOM)}
    assert min(r.loc.line for r in got) == 10
    chrome = {lines[n - 1] for n in range(1, 9)} - {""}
    assert not any(r.title in chrome or set(r.authors) & chrome for r in got)


# --- 2021 Markdown list -----------------------------------------------------------------------

WANT_MARKDOWN = [
    pytest.param(Want(
        3, 6, "Net-DNF: Effective Deep Modeling of Tabular Data",
        names("Liran Katzir, Gal Elidan, Ran El-Yaniv"),
        ("A challenging open question in deep learning is how to handle tabular data.",
         "namely, Boolean formulation, locality, and feature selection."),
        presentation="Poster",
    ), id="first-record"),
    pytest.param(Want(
        33, 38, "On the Transfer of Disentangled Representations in Realistic Settings",
        names("Andrea Dittadi, Frederik Träuble, Francesco Locatello, Manuel Wuthrich, "
              "Vaibhav Agrawal, Ole Winther, Stefan Bauer, Bernhard Schölkopf"),
        ("Learning meaningful representations that disentangle the underlying",
         "good predictor for out-of-distribution (OOD) task performance."),
        paragraphs=2, presentation="Poster",
    ), id="two-paragraphs-33"),
    pytest.param(Want(
        40, 43,
        "Robust Reinforcement Learning on State Observations with Learned Optimal Adversary",
        names("Huan Zhang, Hongge Chen, Duane S Boning, Cho-Jui Hsieh"),
        ("We study the robustness of reinforcement learning (RL) with adversarially",
         "(https://github.com/huanzhang12/ATLA_robust_RL)."),
        presentation="Poster",
    ), id="after-two-paragraphs-33"),
    pytest.param(Want(
        72, 75, "Modeling the Second Player in Distributionally Robust Optimization",
        names("Paul Michel, Tatsunori Hashimoto, Graham Neubig"),
        ("Distributionally robust optimization (DRO) provides a framework",
         "yields models that are more robust than comparable baselines."),
        presentation="Poster",
    ), id="unlinked-title-72"),
    pytest.param(Want(
        97, 102, "DEBERTA: DECODING-ENHANCED BERT WITH DISENTANGLED ATTENTION",
        names("Pengcheng He, Xiaodong Liu, Jianfeng Gao, Weizhu Chen"),
        ("Recent progress in pre-trained neural language models",
         "source code were released at: <https://github.com/microsoft/DeBERTa>."),
        paragraphs=2, presentation="Poster",
    ), id="unlinked-title-two-paragraphs-97"),
    pytest.param(Want(
        209, 216, "SALD: Sign Agnostic Learning with Derivatives",
        names("Matan Atzmon, Yaron Lipman"),
        ("Learning 3D geometry directly from raw data, such as point clouds",
         "On both these datasets, we present state-of-the-art results."),
        paragraphs=3, presentation="Poster",
    ), id="three-paragraphs-209"),
    pytest.param(Want(
        2428, 2435,
        "Rethinking the Role of Gradient-based Attribution Methods for Model Interpretability",
        names("Suraj Srinivas, Francois Fleuret"),
        ("Current methods for the interpretability of discriminative deep neural",
         "we need to re-think their use for interpreting discriminative models."),
        paragraphs=3, presentation="Oral",
    ), id="oral-unlinked-three-paragraphs-2428"),
    pytest.param(Want(
        3024, 3031, "Deciphering and Optimizing Multi-Task Learning: a Random Matrix Approach",
        names("Malik Tiomoko, Hafiz Tiomoko Ali, Romain Couillet"),
        ("This article provides theoretical insights into the inner workings",
         "elaborate state-of-the-art multi-task and transfer learning techniques."),
        paragraphs=3, presentation="Spotlight",
    ), id="spotlight-three-paragraphs-3024"),
    pytest.param(Want(
        4258, 4265, "Perceptual Adversarial Robustness: Defense Against Unseen Threat Models",
        names("Cassidy Laidlaw, Sahil Singla, Soheil Feizi"),
        ("A key challenge in adversarial robustness is the lack of a precise",
         "Code and data are available at <https://github.com/cassidylaidlaw/perceptual-advex>"),
        paragraphs=3, presentation="Poster",
    ), id="three-paragraphs-4258"),
    pytest.param(Want(
        4267, 4270, "Better Fine-Tuning by Reducing Representational Collapse",
        names("Armen Aghajanyan, Akshat Shrivastava, Anchit Gupta, Naman Goyal, "
              "Luke Zettlemoyer, Sonal Gupta"),
        ("Although widely adopted, existing approaches for fine-tuning",
         "more generalizable representations every time they are fine-tuned."),
        presentation="Poster",
    ), id="after-three-paragraphs-4258"),
    pytest.param(Want(
        4529, 4532,
        "BRECQ: Pushing the Limit of Post-Training Quantization by Block Reconstruction",
        names("Yuhang Li, Ruihao Gong, Xu Tan, Yang Yang, Peng Hu, Qi Zhang, Fengwei Yu, "
              "Wei Wang, Shi Gu"),
        ("We study the challenging task of neural network quantization",
         "Codes are available at <https://github.com/yhhhli/BRECQ>."),
        presentation="Poster",
    ), id="last-record"),
]


@pytest.mark.parametrize("want", WANT_MARKDOWN)
def test_markdown_record(want: Want) -> None:
    check("markdown", want)


# The eight titles with a backslash in the raw heading, as the raw text writes them (`\$`, `\\$`,
# `\\\$`, `\_`, `\(`) and as they read with the Markdown escapes removed.
ESCAPED_TITLES = [
    (285, r"## [Temporally-Extended \$\epsilon\$ -Greedy Exploration](#)",
     r"Temporally-Extended $\epsilon$ -Greedy Exploration", "Poster"),
    (1431, r"## [Improved Estimation of Concentration Under \$\ell\_p\$ -Norm Distance Metrics "
     r"Using Half Spaces](#)",
     r"Improved Estimation of Concentration Under $\ell_p$ -Norm Distance Metrics Using Half "
     r"Spaces", "Poster"),
    (1900, r"## [Class Normalization for \(Continual\)? Generalized Zero-Shot Learning](#)",
     "Class Normalization for (Continual)? Generalized Zero-Shot Learning", "Poster"),
    (2637, r"## [When Optimizing \$f\$ -Divergence is Robust with Label Noise](#)",
     "When Optimizing $f$ -Divergence is Robust with Label Noise", "Poster"),
    (3161, r"## [Coupled Oscillatory Recurrent Neural Network \(coRNN\): An accurate and "
     r"\(gradient\) stable architecture for learning long time dependencies](#)",
     "Coupled Oscillatory Recurrent Neural Network (coRNN): An accurate and (gradient) stable "
     "architecture for learning long time dependencies", "Oral"),
    (3307, r"## [Beyond Fully-Connected Layers with Quaternions: Parameterization of Hypercomplex "
     r"Multiplications with \\$1/n\\$ Parameters](#)",
     "Beyond Fully-Connected Layers with Quaternions: Parameterization of Hypercomplex "
     "Multiplications with $1/n$ Parameters", "Spotlight"),
    (3396, r"## [VA-RED\\$^2\\$: Video Adaptive Redundancy Reduction](#)",
     "VA-RED$^2$: Video Adaptive Redundancy Reduction", "Poster"),
    (3593, r"## [\\$i\\\$-Mix: A Domain-Agnostic Strategy for Contrastive Representation "
     r"Learning](#)",
     "$i$-Mix: A Domain-Agnostic Strategy for Contrastive Representation Learning", "Poster"),
]


@pytest.mark.parametrize(("line", "raw", "title", "kind"), ESCAPED_TITLES,
                         ids=[str(row[0]) for row in ESCAPED_TITLES])
def test_markdown_escaped_title(line: int, raw: str, title: str, kind: str) -> None:
    assert raw_lines("markdown")[line - 1] == raw  # the table quotes the dump exactly
    record = record_at_line("markdown", line)
    assert record.title == title
    assert record.presentation == kind
    assert record.authors and record.abstract  # the title did not eat the following fields


def test_markdown_escaped_title_list_is_complete() -> None:
    headings = [n for n, text in enumerate(raw_lines("markdown"), 1) if text.startswith("## ")]
    escaped = [n for n in headings if "\\" in raw_lines("markdown")[n - 1]]
    assert escaped == [row[0] for row in ESCAPED_TITLES]
    # no Markdown escape is left in any title (TeX such as `\\epsilon` keeps its backslash)
    left = re.compile(r"\\[$_*()#`]")
    assert not any(left.search(r.title or "") for r in records("markdown"))


def test_markdown_every_record_against_raw_lines() -> None:
    """Rule from the raw text: a record opens at each "## " line; the next "- " line holds the
    authors, split at ", " (no author line has a backslash); the "- abstract@[open-review\\(TYPE
    \\)](#): " line opens the abstract and every other non-blank line up to the next heading is
    one more paragraph. Titles without a backslash are the heading text, unwrapped from [..](#)."""
    lines = raw_lines("markdown")
    expected = []
    for n, text in enumerate(lines, 1):
        if text.startswith("## "):
            title = text[3:]
            if title.startswith("[") and title.endswith("](#)"):
                title = title[1:-4]
            expected.append({"line": n, "title": title, "authors": None, "kind": None,
                             "paragraphs": 0})
        elif text.startswith("- abstract@"):
            expected[-1]["kind"] = re.match(r"- abstract@\[open-review\\\((\w+)\\\)\]", text)[1]
            expected[-1]["paragraphs"] += 1
        elif text.startswith("- "):
            expected[-1]["authors"] = tuple(text[2:].split(", "))
        elif text.strip() and expected:
            expected[-1]["paragraphs"] += 1
    got = records("markdown")
    assert [r.loc.line for r in got] == [e["line"] for e in expected]
    for record, want in zip(got, expected, strict=True):
        assert (record.authors, record.presentation, len(record.abstract)) == (
            want["authors"], want["kind"], want["paragraphs"]
        ), f"record at line {want['line']}"
        if "\\" not in want["title"]:
            assert record.title == want["title"], f"record at line {want['line']}"
    # raw tallies: open-review(Poster) 693, (Spotlight) 114, (Oral) 53; 762 one-paragraph
    # abstracts, 91 with one continuation paragraph, 7 with two
    assert Counter(r.presentation for r in got) == {"Poster": 693, "Spotlight": 114, "Oral": 53}
    assert Counter(len(r.abstract) for r in got) == {1: 762, 2: 91, 3: 7}
    assert all(r.session is None and r.room is None and r.awards == () for r in got)


def test_markdown_abstract_escapes_removed() -> None:
    # line 43 writes the link text as `ATLA\\_robust\\_RL` (doubly escaped `_`)
    assert "ATLA\\\\_robust" in raw_lines("markdown")[42]
    abstract = record_at_line("markdown", 40).abstract[0]
    assert "[https://github.com/huanzhang12/ATLA_robust_RL](" in abstract
    assert "\\_" not in abstract


# --- 2022 awards page -------------------------------------------------------------------------

OUT, HON = "Outstanding Paper", "Honorable Mention"
# award line -> (award, first author): one record per award line
AWARD_LINES = {
    4: (OUT, "Fan Bao"), 7: (OUT, "Nicolas Papernot"), 12: (OUT, "Fan Bao"),
    15: (OUT, "Rachid Riad"), 20: (OUT, "Rachid Riad"), 25: (OUT, "Sebastian Flennerhag"),
    30: (OUT, "Shengjia Zhao"), 35: (OUT, "Sebastian Flennerhag"),
    40: (OUT, "Nicolas Papernot"), 45: (OUT, "X.Y. Han"), 50: (OUT, "Floris Geerts"),
    55: (OUT, "Shengjia Zhao"), 60: (OUT, "X.Y. Han"), 65: (OUT, "Floris Geerts"),
    70: (HON, "Jake Topping"), 73: (HON, "Haobo Wang"), 78: (HON, "Haobo Wang"),
    85: (HON, "Albert Gu"), 88: (HON, "Albert Gu"), 91: (HON, "Jake Topping"),
}
# the same paper printed twice, identical authors and abstract text in the raw file
AWARD_REPEATS = [(4, 12), (7, 40), (15, 20), (25, 35), (30, 55), (45, 60), (50, 65), (70, 91),
                 (73, 78), (85, 88)]
WANG = names("Haobo Wang, Ruixuan Xiao, Yixuan Li, Lei Feng, Gang Niu, Gang Chen, Junbo Zhao")
PICO = ("Partial label learning (PLL) is an important problem",
        "Code and data available: https://github.com/hbzju/PiCO.")
WANT_AWARDS = [
    pytest.param(Want(
        4, 6, None, names("Fan Bao, Chongxuan Li, Jun Zhu, Bo Zhang"),
        ("Diffusion probabilistic models (DPMs) represent a class",
         "enjoys a $20\\times$ to $80\\times$ speed up."), awards=(OUT,),
    ), id="first-record-no-blank-lines"),
    pytest.param(Want(
        7, 10, None, names("Nicolas Papernot, Thomas Steinke"),
        ("For many differentially private algorithms, such as the prominent",
         "to select hyperparameters is itself differentially private."), awards=(OUT,),
    ), id="after-unspaced-record"),
    pytest.param(Want(73, 76, None, WANG, PICO, awards=(HON,)), id="haobo-wang-in-person"),
    pytest.param(Want(78, 83, None, WANG, PICO, awards=(HON,), attendance="virtual"),
                 id="virtual-marker-81"),
    pytest.param(Want(
        85, 87, None, names("Albert Gu, Karan Goel, Christopher Re"),
        ("A central goal of sequence modeling is designing a single principled",
         "results across a diverse range of established benchmarks, …"), awards=(HON,),
    ), id="after-virtual-marker"),
    pytest.param(Want(
        91, 93, None,
        names("Jake Topping, Francesco Di Giovanni, Benjamin Chamberlain, Xiaowen Dong, "
              "Michael Bronstein"),
        ("Most graph neural networks (GNNs) use the message passing paradigm",
         "curvature-based graph rewiring method to alleviate the over-squashing."),
        awards=(HON,),
    ), id="last-record"),
]


@pytest.mark.parametrize("want", WANT_AWARDS)
def test_awards_record(want: Want) -> None:
    check("awards", want)


def test_awards_every_award_line_is_one_record() -> None:
    lines = raw_lines("awards")
    assert {n for n, text in enumerate(lines, 1) if text in (OUT, HON)} == set(AWARD_LINES)
    got = records("awards")
    assert {r.loc.line: (r.awards, r.authors[:1]) for r in got} == {
        n: ((award, ), (author,)) for n, (award, author) in AWARD_LINES.items()
    }
    assert all(r.title is None and len(r.abstract) == 1 for r in got)
    assert {r.loc.line for r in got if r.attendance is not None} == {78}  # "[ Virtual ]" at 81
    # line 1 "Skip to yearly menu bar Skip to main content" is chrome; the page has no session
    assert all(r.session is None and r.room is None for r in got)
    assert not any("Skip to" in " ".join(r.authors + r.abstract) for r in got)


@pytest.mark.parametrize(("first", "second"), AWARD_REPEATS)
def test_awards_exact_repeat(first: int, second: int) -> None:
    lines = raw_lines("awards")
    body = [[text for text in lines[n:n + 5] if text and text != "[ Virtual ]"][:2]
            for n in (first, second)]
    assert body[0] == body[1]  # authors line and abstract line equal in the raw text
    a, b = record_at_line("awards", first), record_at_line("awards", second)
    assert (a.authors, a.abstract, a.awards) == (b.authors, b.abstract, b.awards)
    assert a.authors == tuple(body[0][0].split(SEP)) and a.abstract == (body[0][1],)


# --- trending paper listing -------------------------------------------------------------------

CREST = (
    "CREST: Cross-modal Resonance through Evidential Deep Learning for Enhanced Zero-Shot Learning"
)
WANT_LISTING = [
    pytest.param(Want(
        3, 4, CREST, (),
        ("Zero-shot learning (ZSL) enables the recognition of novel classes",
         "Our code and data are available at: https://github.com/JethroJames/CREST"),
    ), id="first-record-glued-subscribe"),
    pytest.param(Want(
        5, 6, "Causal isotonic calibration for heterogeneous treatment effects", (),
        ("We propose causal isotonic calibration, a novel nonparametric method",
         "calibration guarantees while preserving predictive performance."),
    ), id="second-record"),
    pytest.param(Want(
        535, 536, "Composing Global Optimizers to Reasoning Tasks via Algebraic Objects in Neural "
        "Nets", (),
        ("We prove rich algebraic structures of the solution space for 2-layer",
         "global optimizers such as perfect memorization are unfavorable."),
    ), id="last-record"),
]


@pytest.mark.parametrize("want", WANT_LISTING)
def test_listing_record(want: Want) -> None:
    check("listing", want)


def test_listing_every_record_is_a_line_pair() -> None:
    """Rule from the raw text: no blank lines; lines 1-2 are page text ("Get trending papers in
    your email inbox ..."); then odd lines are titles and even lines their abstracts."""
    lines = raw_lines("listing")
    assert len(lines) == 536 and all(lines)
    assert lines[0].startswith("Get trending papers") and lines[1].startswith("Get trending")
    assert lines[2] == "Subscribe" + CREST
    got = records("listing")
    expected = [(n, lines[n - 1], (lines[n],)) for n in range(3, 536, 2)]
    expected[0] = (3, CREST, (lines[3],))
    assert [(r.loc.line, r.title, r.abstract) for r in got] == expected
    assert all(r.loc.end_line == r.loc.line + 1 and r.authors == () for r in got)
    assert not any((r.title or "").startswith(("Subscribe", "Get trending")) for r in got)


# --- merged output ----------------------------------------------------------------------------

PATHS = {key: f"seeds/{name}" for key, name in SEED_FILES.items()}


def raw_titles() -> list[tuple[str, int, str]]:
    """(path, line, title) of every title line in the raw dumps, found by the rules stated in
    the per-dump tests above; the Markdown titles with escapes use ESCAPED_TITLES."""
    found = []
    lines = raw_lines("2023")
    for n, text in enumerate(lines, 1):
        if " presentation / " in text:
            t = n + 1 if lines[n] not in (OUT, HON) else n + 2
            found.append((PATHS["2023"], t, lines[t - 1]))
    for n, text in list(enumerate(raw_lines("2024"), 1))[9:]:
        if (text and text != "Spotlight Poster" and SEP not in text and len(text) < LONG
                and n not in SINGLE_AUTHOR_LINES_2024):
            found.append((PATHS["2024"], n, text))
    clean = {row[0]: row[2] for row in ESCAPED_TITLES}
    for n, text in enumerate(raw_lines("markdown"), 1):
        if text.startswith("## "):
            title = clean.get(n, text[3:].removeprefix("[").removesuffix("](#)"))
            found.append((PATHS["markdown"], n, title))
    lines = raw_lines("listing")
    for n in range(3, 536, 2):
        found.append((PATHS["listing"], n, lines[n - 1].removeprefix("Subscribe")))
    return found


def title_key(title: str) -> str:
    return " ".join(title.casefold().split())


# Pairs of raw titles that are the same paper but differ in more than case: the listing drops
# the TeX `$...$` of the other dump's title.
SAME_PAPER = [
    ((PATHS["markdown"], 3307), (PATHS["listing"], 399)),  # "... with $1/n$ Parameters"
    ((PATHS["2024"], 799), (PATHS["listing"], 379)),  # "Cross$Q$: Batch Normalization ..."
]


def paper_of(papers: list[dict], path: str, line: int) -> list[str]:
    return [
        paper["id"] for paper in papers for source in paper["sources"]
        if source["path"] == path and source["first_line"] <= line <= source["last_line"]
    ]


def test_merged_every_raw_title_in_exactly_one_paper(papers_json: list[dict]) -> None:
    titles = raw_titles()
    assert len(titles) == 135 + 290 + 860 + 267
    groups: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for path, line, title in titles:
        groups[title_key(title)].add((path, line))
    # 1548 case-insensitive title groups; 4 of them hold two records (2024 + listing)
    assert len(groups) == 1548
    assert sorted(len(g) for g in groups.values() if len(g) > 1) == [2, 2, 2, 2]
    by_id = {paper["id"]: paper for paper in papers_json}
    paper_ids = {}
    for key, members in groups.items():
        ids = {pid for path, line in members for pid in paper_of(papers_json, path, line)}
        assert len(ids) == 1, f"title {key!r}: in papers {sorted(ids)}"
        paper_ids[key] = ids.pop()
    for pair in SAME_PAPER:
        assert len({pid for path, line in pair for pid in paper_of(papers_json, path, line)}) == 1
    # distinct titled papers: the groups, less one for each same-paper pair
    assert len(set(paper_ids.values())) == 1548 - len(SAME_PAPER)
    for key, pid in paper_ids.items():
        keys_of_paper = {k for k, p in paper_ids.items() if p == pid}
        assert title_key(by_id[pid]["title"]) in keys_of_paper, key
    # 2023 line 908 has a no-break space in "Rank Differential\u00a0Mechanism": the reader keeps
    # the raw text, the merged title has a plain space
    nbsp = "Towards a Unified Theoretical Understanding of Non-contrastive Learning via Rank " \
        "Differential{}Mechanism"
    assert raw_lines("2023")[907] == nbsp.format("\u00a0") == record_at_line("2023", 907).title
    assert by_id[paper_ids[title_key(nbsp.format(" "))]]["title"] == nbsp.format(" ")


def test_merged_paper_count(papers_json: list[dict]) -> None:
    # 1546 titled papers + the untitled 2024 record at line 1558 + 10 untitled award papers
    assert len(papers_json) == 1546 + 1 + 10
    untitled = [p for p in papers_json if not p["title"]]
    assert len(untitled) == 11
    assert [s["first_line"] for p in untitled for s in p["sources"]
            if s["path"] == PATHS["2024"]] == [1558]


def test_merged_award_papers(papers_json: list[dict]) -> None:
    from_awards = [p for p in papers_json
                   if any(s["path"] == PATHS["awards"] for s in p["sources"])]
    assert len(from_awards) == 10
    got = {
        (p["authors"][0], tuple(p["awards"]), p["title"],
         tuple(sorted(s["first_line"] for s in p["sources"])),
         tuple({s["path"] for s in p["sources"]}))
        for p in from_awards
    }
    assert got == {
        (AWARD_LINES[a][1], (AWARD_LINES[a][0],), None, (a, b), (PATHS["awards"],))
        for a, b in AWARD_REPEATS
    }
    # the "[ Virtual ]" marker of the second copy (line 81) survives the merge
    wang = next(p for p in from_awards if p["authors"][0] == "Haobo Wang")
    assert wang["attendance"] == "virtual"


CROSS_DUMP = [
    ("Beyond Fully-Connected Layers with Quaternions", "Accepted papers", "markdown", 3307, 399),
    ("Cross$Q$: Batch Normalization", "Poster Session 3", "2024", 798, 379),
    ("Unpaired Image-to-Image Translation via Neural Schr", "Poster Session 3", "2024", 192, 145),
    ("Learning to Reject with a Fixed Predictor", "Poster Session 3", "2024", 371, 99),
    ("Set Learning for Accurate and Calibrated Models", "Poster Session 3", "2024", 1551, 315),
    ("Learning Conditional Invariances through Non-Commutativity", "Poster Session 3", "2024",
     1688, 49),
]


@pytest.mark.parametrize(("start", "session", "key", "line", "listing_line"), CROSS_DUMP,
                         ids=[row[0][:20] for row in CROSS_DUMP])
def test_merged_paper_in_two_dumps(papers_json: list[dict], start: str, session: str, key: str,
                                   line: int, listing_line: int) -> None:
    matches = [p for p in papers_json if (p["title"] or "").casefold().startswith(
        start.casefold()) or (p["title"] or "").replace("$", "").startswith(start)]
    assert len(matches) == 1
    paper = matches[0]
    assert sorted(paper["sessions"]) == sorted([session, "Trending papers"])
    assert sorted((s["path"], s["first_line"]) for s in paper["sources"]) == sorted(
        [(PATHS[key], line), (PATHS["listing"], listing_line)]
    )
