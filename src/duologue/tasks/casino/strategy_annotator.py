"""`duologue annotate strategies`: the CaSiNo strategy tagger as an annotator (tag, annotate, evaluate, train).

The model and its features are `strategies`; fitting one is `strategy_training`; this module joins
them behind the `Annotator` interface, so neither of them imports the other back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from duologue.core.annotator import Annotator, Evaluation, label_scores
from duologue.core.schema import Annotation, Dialogue
from duologue.tasks.casino.rules import STRATEGY_LABELS
from duologue.tasks.casino.strategies import DEFAULT_MODEL, MODEL_VERSION, STRATEGY_LAYER, StrategyModel, gold_strategies, message_contexts, shipped_model


class StrategyAnnotator(Annotator):
    """Labels every message of a CaSiNo dialogue with its negotiation strategies (multi-label)."""

    name = "strategies"
    task = "casino"
    layer = STRATEGY_LAYER
    source = f"duologue.strategies-v{MODEL_VERSION}"
    training_data = "casino/split/casino_train.json"
    model_file = DEFAULT_MODEL.name

    @classmethod
    def train(cls, data: Path, out: Path | None, *, seed: int, progress: Callable[[str, int, int], None] | None = None) -> str:
        """Fit the linear tagger on a CaSiNo file's annotated dialogues (`duologue train annotator strategies`)."""
        from duologue.tasks.casino.strategy_training import train as train_tagger  # scikit-learn's code, only when training

        if out is None:
            raise ValueError("give the model file to write (the shipped model is never written over)")
        model = train_tagger(data, out, seed=seed, progress=progress)
        return f"wrote {out}: {model.info['trained_on']}, {model.space.size} features"

    def __init__(self, model: StrategyModel | Path | str | None = None) -> None:
        if isinstance(model, StrategyModel):
            self.model = model
        else:
            self.model = shipped_model(None if model is None else str(model))

    def tag(self, texts: Sequence[str], previous: Sequence[str | None] | None = None) -> list[list[str]]:
        """Strategy labels for bare utterances (optionally with the message before each)."""
        return self.model.predict(texts, previous)

    def annotate(self, dialogue: Dialogue) -> list[Annotation]:
        contexts = message_contexts(dialogue)
        if not contexts:
            return []
        probabilities = self.model.probabilities([t for _, t, _ in contexts], [p for _, _, p in contexts])
        decided = self.model.decide(probabilities)
        return [
            Annotation(
                event=index,
                layer=self.layer,
                labels=labels,
                value={label: round(float(p), 3) for label, p in zip(self.model.labels, row, strict=True)},
                source=self.source,
            )
            for (index, _, _), labels, row in zip(contexts, decided, probabilities, strict=True)
        ]

    def evaluate(self, dialogues: Sequence[Dialogue]) -> Evaluation | None:
        """Per-label precision/recall/F1 on the messages the corpus annotated, plus exact-match accuracy."""
        pairs: list[tuple[frozenset[str], frozenset[str]]] = []
        for dialogue in dialogues:
            gold = gold_strategies(dialogue)
            if not gold:
                continue
            predicted = {a.event: frozenset(a.labels) for a in self.annotate(dialogue)}
            pairs.extend((labels, predicted.get(event, frozenset())) for event, labels in sorted(gold.items()))
        if not pairs:
            return None
        per_label, summary = label_scores(pairs)
        ordered = {label: per_label[label] for label in STRATEGY_LABELS if label in per_label}
        ordered.update({label: score for label, score in per_label.items() if label not in ordered})
        summary["exact_match"] = sum(g == p for g, p in pairs) / len(pairs)
        notes = [f"model: {self.source}, trained on {self.model.info.get('trained_on', 'unknown data')}"]
        return Evaluation(annotator=self.name, items=len(pairs), metrics=summary, per_label=ordered, notes=notes)
