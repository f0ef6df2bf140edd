"""How two texts that mean the same query become one cache key. Pure: no Django import.

NFKC folds compatibility forms (full-width letters, ligatures, composed and decomposed Hangul)
into one spelling, ``casefold`` is the Unicode-aware lower-casing (ß → ss), and runs of any
whitespace become one space. Punctuation is kept: "leave?" and "leave!" may be asked for
different reasons, and the embedding model sees punctuation too.
"""

from __future__ import annotations

import hashlib
import unicodedata


def normalise_query(text: str) -> str:
    """``text`` in the one spelling the caches key on."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def cache_digest(*parts: str) -> str:
    """A fixed-length key for any number of parts (the text may be thousands of characters);
    the NUL separator keeps ("ab", "c") and ("a", "bc") apart."""
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()
