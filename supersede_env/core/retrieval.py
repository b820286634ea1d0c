"""BM25 retrieval over archived passages, within a character budget (the ``rag`` system's one skill).

Scoring is the maintained ``bm25s`` package (Lucene's BM25 variant, its defaults k1 = 1.5,
b = 0.75), over English tokens with its stopword list and Snowball stems. :func:`select` takes the
passages in score order (ties: the earlier passage first), keeping each one that still fits in the
budget and skipping one that does not; when not even the best passage fits, it is cut to the
budget, so the answer never sees nothing while something was archived. Passages with no query term
(score 0) are never taken. The chosen passages are returned in archive (date) order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import threading

SEPARATOR = "\n\n"  # between passages in the context; counted in the budget


@dataclass(frozen=True)
class Passage:
    position: int  # order in the archive: sessions and turns as they came
    text: str


_LOCAL = threading.local()


def _stem_words():  # noqa: ANN202
    """This thread's stemmer: a Snowball stemmer keeps its working state in itself (not thread-safe),
    and memory-system pairs run in threads."""
    stem = getattr(_LOCAL, "stem", None)
    if stem is None:
        import snowballstemmer

        stem = _LOCAL.stem = snowballstemmer.stemmer("english").stemWords
    return stem


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", stemmer=_stem_words(), show_progress=False,
                          return_ids=False)


def scores(passages: Sequence[Passage], query: str) -> list[float]:
    """The BM25 score of every passage for ``query`` (0.0 where no query term occurs)."""
    if not passages:
        return []
    import bm25s

    corpus = _tokens([p.text for p in passages])
    query_tokens = _tokens([query])[0]
    if not query_tokens or not any(corpus):
        return [0.0] * len(passages)
    index = bm25s.BM25()
    index.index(_ids(corpus), show_progress=False)
    return [float(s) for s in index.get_scores(query_tokens)]


def _ids(corpus: list[list[str]]):  # noqa: ANN202
    """``bm25s``'s tokenized form (ids and vocabulary) of a corpus already split into words."""
    from bm25s.tokenization import Tokenized

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(word, len(vocab)) for word in doc] for doc in corpus]
    return Tokenized(ids=ids, vocab=vocab)


def select(passages: Sequence[Passage], query: str, budget: int) -> list[Passage]:
    """The best passages for ``query`` that fit in ``budget`` characters together, in archive order."""
    scored = sorted(zip(scores(passages, query), passages, strict=True), key=lambda sp: (-sp[0], sp[1].position))
    chosen: list[Passage] = []
    used = 0
    for score, passage in scored:
        if score <= 0:
            break
        cost = len(passage.text) + (len(SEPARATOR) if chosen else 0)
        if used + cost <= budget:
            chosen.append(passage)
            used += cost
    if not chosen and scored and scored[0][0] > 0:
        best = scored[0][1]
        chosen = [Passage(best.position, best.text[:budget])]
    return sorted(chosen, key=lambda p: p.position)


def render(passages: Sequence[Passage]) -> str:
    return SEPARATOR.join(p.text for p in passages)
