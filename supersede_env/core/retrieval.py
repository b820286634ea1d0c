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
# word -> stem, shared by every episode of the process: a conversation's words recur across episodes
# (LongMemEval's _s histories share most of their sessions), and the pure-Python stemmer was most of
# rag's CPU. Entries are never removed from a dict; a full one is replaced, so a thread that holds
# the old one still reads it whole.
MAX_CACHED_STEMS = 500_000
_stems: dict[str, str] = {}


def _stemmer():  # noqa: ANN202
    """This thread's stemmer: a Snowball stemmer keeps its working state in itself (not thread-safe),
    and memory-system pairs run in threads."""
    stem = getattr(_LOCAL, "stem", None)
    if stem is None:
        import snowballstemmer

        stem = _LOCAL.stem = snowballstemmer.stemmer("english").stemWords
    return stem


def stem_words(words: Sequence[str]) -> list[str]:
    """The Snowball stem of each word, remembered across calls."""
    global _stems
    cache = _stems
    missing = [w for w in dict.fromkeys(words) if w not in cache]
    fresh = dict(zip(missing, _stemmer()(missing), strict=True)) if missing else {}
    stems = [fresh[w] if w in fresh else cache[w] for w in words]
    if len(cache) + len(fresh) > MAX_CACHED_STEMS:
        _stems = fresh
    else:
        cache.update(fresh)
    return stems


def _tokens(texts: Sequence[str], *, ids: bool = False):  # noqa: ANN202
    """Each text's stems, stopwords left out: as strings, or (``ids``) as ``bm25s``'s ids and vocabulary."""
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", stemmer=stem_words, show_progress=False,
                          return_ids=ids)


def scores(passages: Sequence[Passage], query: str) -> list[float]:
    """The BM25 score of every passage for ``query`` (0.0 where no query term occurs)."""
    if not passages:
        return []
    import bm25s

    corpus = _tokens([p.text for p in passages], ids=True)
    query_tokens = _tokens([query])[0]
    if not query_tokens or not any(corpus.ids):
        return [0.0] * len(passages)
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    return [float(s) for s in index.get_scores(query_tokens)]


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
