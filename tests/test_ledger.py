from supersede_env.core.ledger import LedgerLine, apply_ops, parse_ops, render, update


def test_ops_are_parsed_leniently_and_unknown_lines_counted():
    ops, ignored = parse_ops(
        "SET home city: Portland\n- set Employer: Acme Corp\nDEL car\n1. delete dog\nhome phone: none given\n"
        "I think the user moved.\nNONE\n```"
    )
    assert [(o.verb, o.topic, o.value) for o in ops] == [
        ("set", "home city", "Portland"),
        ("set", "Employer", "Acme Corp"),
        ("del", "car", ""),
        ("del", "dog", ""),
        ("set", "home phone", "none given"),
    ]
    assert ignored == 1


def test_set_replaces_a_topic_case_insensitively_and_moves_it_to_newest():
    lines = (LedgerLine("home city", "Denver"), LedgerLine("car", "Civic"))
    result = update(lines, "SET Home City: Portland", budget=300)
    assert render(result.lines) == "car: Civic\nHome City: Portland"
    assert result.chars_cut == 0


def test_budget_evicts_the_least_recently_set_lines_first():
    lines = (LedgerLine("a", "1" * 10), LedgerLine("b", "2" * 10), LedgerLine("c", "3" * 10))
    new_lines, cut = apply_ops(lines, [], budget=27)
    assert [line.topic for line in new_lines] == ["b", "c"]
    assert cut == len(render(lines)) - len(render(new_lines))
    assert len(render(new_lines)) <= 27


def test_a_single_line_longer_than_the_budget_is_cut_to_fit():
    result = update((), "SET job: senior engineer at a very large company", budget=20)
    assert len(render(result.lines)) <= 20
    assert render(result.lines).startswith("job: senior")


def test_dates_are_stamped_by_code():
    result = update((), "SET city: Lyon", budget=100, date="2024/02/01")
    assert render(result.lines) == "city: Lyon (2024/02/01)"
