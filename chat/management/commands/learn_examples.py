"""`manage.py learn_examples`: write the built-in model's learned examples from the blind set's
dev half, with their vectors for the bundled e5 model (chat/builtin_model/understanding/learned.py).

Run it after a case file joins ``chat/evals/blind/dev/``; a test fails while the stored examples
and the dev half disagree. It takes about 40 seconds on two cores and needs no database.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand

from chat.builtin_model.understanding.learned import EXAMPLES_FILE, write_learned
from chat.evals.learning import dev_half_examples
from knowledge.embeddings import LocalE5Embedder


class Command(BaseCommand):
    help = "Store the dev half's labelled messages as the built-in model's learned examples."

    def handle(self, *args: Any, **options: Any) -> None:
        examples = dev_half_examples()
        embedder = LocalE5Embedder()
        vectors = np.asarray(embedder.embed_passages([text for _, text in examples]))
        write_learned(examples, model=embedder.model_name, vectors=vectors)
        counts = ", ".join(
            f"{label} {n}" for label, n in Counter(label for label, _ in examples).items()
        )
        self.stdout.write(f"{len(examples)} examples ({counts}) written to {EXAMPLES_FILE}")
