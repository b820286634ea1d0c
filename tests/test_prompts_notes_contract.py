import pytest

from supersede_env.core.conditions import parse_condition
from supersede_env.core.contract import answer_form, well_formed
from supersede_env.core.grader.place import answer_place
from supersede_env.core.notes import apply_budget, clean_notes, short_date, strip_reasoning
from supersede_env.core.prompts import answer_messages, memo_step_messages, render_full_history
from tests.builders import make_episode


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("<think>Denver or Portland?</think>Portland", "Portland"),
        ("<think>still thinking, cut off by the token limit", ""),
        ("reasoning the template opened</think>\nPortland", "Portland"),
        ("Portland", "Portland"),
    ],
)
def test_reasoning_is_stripped(raw, kept):
    assert strip_reasoning(raw) == kept


def test_notes_lose_fences_and_tags_but_keep_content():
    assert clean_notes("```\nlives in Portland\n```") == "lives in Portland"
    assert clean_notes("<notes>\nlives in Portland\n</notes>") == "lives in Portland"


def test_budget_cuts_to_the_first_b_characters():
    assert apply_budget("x" * 310, 300) == ("x" * 300, 10)
    assert apply_budget("short", 300) == ("short", 0)


def test_memo_prompt_shows_only_notes_and_the_new_session():
    episode = make_episode()
    messages = memo_step_messages(parse_condition("memo:300"), "lives in Denver", episode.sessions[1])
    text = messages[0]["content"]
    assert "lives in Denver" in text and "Since the move to Portland" in text
    assert "I live in Denver." not in text  # earlier raw sessions are never shown again
    assert "2024/02/01" not in text  # no dates by default
    assert "300 characters" in text
    dated = memo_step_messages(parse_condition("memo:300+dates"), "", episode.sessions[1])[0]["content"]
    assert "2024/02/01 (Thu) 10:00" in dated


def test_answer_prompt_from_notes_never_contains_sessions_or_gold():
    episode = make_episode()
    text = answer_messages(parse_condition("memo:300"), episode, "city: Portland")[0]["content"]
    assert "city: Portland" in text and episode.question in text
    assert "Since the move" not in text


def test_full_history_uses_longmemeval_layout():
    episode = make_episode()
    history = render_full_history(episode)
    assert history.startswith("### Session 1:\nSession Date: 2024/01/01 (Mon) 10:00\nSession Content:\nuser: I live")
    assert "### Session 3:\nSession Content:" in history  # no date line when the session has none
    prompt = answer_messages(parse_condition("full"), episode, "")[0]["content"]
    assert history in prompt and prompt.rstrip().endswith("Answer:")


def test_contract_answer_field_is_what_gets_graded():
    contract, plain = parse_condition("memo:300+contract"), parse_condition("memo:300")
    reply = ("STATUS: FOUND\nEVIDENCE: \"city: Portland\"\nANSWER: Portland\nMISSING: nothing\nLIMITS: nothing\n"
             "NEXT: nothing")
    assert answer_place(reply, answer_form(contract)).text == "Portland" and well_formed(contract, reply)
    assert answer_place(reply, answer_form(contract)).evidence == '"city: Portland"'
    # FTA's four fields alone are no longer the whole form: LIMITS and NEXT are asked for too
    assert not well_formed(contract, reply.rsplit("\nLIMITS", 1)[0])
    # a reply that ignores the format has no answer, and is flagged
    assert answer_place("Portland", answer_form(contract)).missing is not None
    assert not well_formed(contract, "Portland")
    no_field = "STATUS: FOUND\nEVIDENCE: Portland\nMISSING: nothing"
    assert answer_place(no_field, answer_form(contract)).missing is not None and not well_formed(contract, no_field)
    # the plain policy reads a contract-shaped reply by the same reader, and never calls it malformed
    assert answer_place(reply, answer_form(plain)).text == "Portland" and well_formed(plain, "Portland")


def test_contract_fields_tolerate_markdown():
    reply = ("**STATUS:** NOT FOUND\n**EVIDENCE:** none\n**ANSWER:**\nnot in my notes\n**MISSING:** the city\n"
             "**LIMITS:** none\n- Next: ask where they live now")
    place = answer_place(reply, "contract")
    assert place.text == "not in my notes" and place.doubt == "STATUS: NOT FOUND"
    assert well_formed(parse_condition("full+contract"), reply)


def test_short_date():
    assert short_date("2023/05/20 (Sat) 02:21") == "2023/05/20"
    assert short_date(None) is None
