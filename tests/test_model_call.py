"""The model-call types and the one batching rule (in-process generation and the lockstep runner)."""

from supersede_env.core.model_call import ChatRequest, ModelReply, limit_batches


def test_batches_hold_one_token_limit_similar_lengths_and_balanced_sizes():
    items = [(limit, length) for limit in (64, 100) for length in (9, 3, 7, 1, 5)] + [(100, 2)]
    batches = limit_batches(items, limit=lambda i: i[0], length=lambda i: i[1], max_size=4)
    assert [len(b) for b in batches] == [3, 2, 3, 3]  # 5 -> 3 + 2 and 6 -> 3 + 3, never 4 + 1 or 4 + 2
    assert all(len({limit for limit, _ in b}) == 1 for b in batches)
    assert [[length for _, length in b] for b in batches] == [[1, 3, 5], [7, 9], [1, 2, 3], [5, 7, 9]]


def test_a_padded_token_cap_cuts_a_batch_further():
    items = [(10, n) for n in (1, 2, 3, 40)]
    batches = limit_batches(items, limit=lambda i: i[0], length=lambda i: i[1], max_size=4, max_padded=60)
    assert [[n for _, n in b] for b in batches] == [[1, 2, 3], [40]]  # 4 x 40 padded tokens would be 160


def test_a_request_is_only_the_call_and_a_failed_reply_has_no_text():
    request = ChatRequest(({"role": "user", "content": "hello"},), 8)
    assert request.temperature is None and request.prompt_chars == 5  # sampling: the backend's own setting
    failed = ModelReply.failed("HTTP 500", latency_s=0.1)
    assert failed.text is None and failed.error == "HTTP 500"
