"""FEB-30's update diagnostics on hand-built episodes whose expected values are worked out by hand.

Episode A (L1, one slot): Denver is created, then updated to Portland; the store updates its fact in
place (reported as add, then update): the update is caught and both operations are right.

Episode B (L2, two slots, three sessions): city Denver -> Portland, car Malibu throughout.
- session 1 creates both; the store adds both (2 right ops);
- session 2 updates the city; the store ADDs "lives in Portland" and keeps "lives in Denver": the
  update is missed (the old value is still asserted), the op is wrong (create for update), and the
  store is fragmented (3 facts for 2 slots); the car is steady and kept (no false update);
- session 3 repeats the car (reinforce); the store DELETEs the car fact: a false update and a wrong
  op (delete for reinforce); the city is steady and kept.
At the end B's store holds one stale fact (Denver) and is wrong for the asked city (Portland, but
Denver too) although the answer was right.
"""

from supersede_env.core.episode import Episode, GoldState, Session, Turn
from supersede_env.core.memory_system import MemoryOp
from supersede_env.core.records import VerdictRecord
from supersede_env.core.verdict import Verdict
from supersede_env.evaluation.store_diagnostics import condition_store_diagnostics, predicted_op, store_episode
from supersede_env.evaluation.store_stores import StoreAfter


def episode(eid, states, difficulty):
    sessions = tuple(Session((Turn("user", f"session {i}"),)) for i in range(len(states)))
    return Episode(id=eid, source="custom", sessions=sessions, question="Which city do I live in now?",
                   answer="Portland", stale_values=("Denver",), slot="city", states=tuple(states),
                   meta={"difficulty": difficulty})


def right(eid, correct=True):
    return VerdictRecord(eid, "facts:300", "ok", "Portland", False, answer="Portland",
                         grader=Verdict("current" if correct else "wrong", float(correct), 0.0, ""))


A = episode("a", [GoldState({"city": "Denver"}, {"city": "create"}),
                  GoldState({"city": "Portland"}, {"city": "update"})], "L1")
A_STORES = [StoreAfter(("lives in Denver",), (MemoryOp("add", "f1", None, "lives in Denver"),)),
            StoreAfter(("lives in Portland",), (MemoryOp("update", "f1", "lives in Denver", "lives in Portland"),))]

B = episode("b", [GoldState({"city": "Denver", "car": "Chevy Malibu"}, {"city": "create", "car": "create"}),
                  GoldState({"city": "Portland", "car": "Chevy Malibu"}, {"city": "update", "car": "none"}),
                  GoldState({"city": "Portland", "car": "Chevy Malibu"}, {"city": "none", "car": "reinforce"})], "L2")
B_STORES = [
    StoreAfter(("lives in Denver", "drives a Chevy Malibu"),
               (MemoryOp("add", "f1", None, "lives in Denver"), MemoryOp("add", "f2", None, "drives a Chevy Malibu"))),
    StoreAfter(("lives in Denver", "drives a Chevy Malibu", "lives in Portland"),
               (MemoryOp("add", "f3", None, "lives in Portland"),)),
    StoreAfter(("lives in Denver", "lives in Portland"), (MemoryOp("delete", "f2", "drives a Chevy Malibu", None),)),
]


def test_an_update_caught_and_operations_classified_right():
    d = store_episode(A, A_STORES, right("a"))
    assert (d.updates, d.updates_caught, d.steady, d.false_updates) == (1, 1, 0, 0)
    assert d.ops == (("create", "create"), ("update", "update"))
    assert d.facts_per_session == (1, 1) and d.gold_slots == 1 and d.stale_facts == 0 and d.store_right


def test_a_missed_update_a_false_update_wrong_ops_and_a_fragmented_store():
    d = store_episode(B, B_STORES, right("b"))
    assert (d.updates, d.updates_caught) == (1, 0)  # Denver still asserted after the update
    assert (d.steady, d.false_updates) == (3, 1)  # car kept in session 2; city kept, car deleted in session 3
    assert d.ops == (("create", "create"), ("create", "create"), ("update", "create"), ("none", "none"),
                     ("none", "none"), ("reinforce", "delete"))
    assert d.facts_per_session == (2, 3, 2) and d.gold_slots == 2
    assert d.stale_facts == 1 and d.store_right is False and d.answer_right is True


def test_a_condition_aggregates_over_episodes_and_by_difficulty():
    items = [store_episode(A, A_STORES, right("a", correct=False)), store_episode(B, B_STORES, right("b"))]
    diag = condition_store_diagnostics("facts:300", items)
    overall, l1, l2 = diag.scopes
    assert (overall.scope, l1.scope, l2.scope) == ("all", "L1", "L2")
    assert (overall.update_recall.k, overall.update_recall.n, overall.update_recall.rate) == (1, 2, 0.5)
    assert (overall.false_update.k, overall.false_update.n) == (1, 3)
    assert (overall.op_accuracy.k, overall.op_accuracy.n) == (4, 6)  # A: 2/2; B: 2/4 (gold none left out)
    assert l1.op_accuracy.rate == 1.0 and l2.op_accuracy.rate == 0.5
    assert overall.mean_facts_end == 1.5 and overall.mean_gold_slots == 1.5 and overall.stale_facts_end == 1
    assert diag.confusion["update"] == {"create": 1, "update": 1, "reinforce": 0, "delete": 0, "none": 0}
    assert diag.confusion["none"]["none"] == 2 and diag.confusion["reinforce"]["delete"] == 1
    assert diag.facts_per_session == (1.5, 2.0, 2.0)
    assert diag.store_vs_answer == {"store right, answer right": 0, "store right, answer wrong": 1,
                                    "store wrong, answer right": 1, "store wrong, answer wrong": 0}


def test_a_store_without_reported_ops_gets_no_op_accuracy():
    stores = [StoreAfter(s.facts, None) for s in A_STORES]
    diag = condition_store_diagnostics("memo:300", [store_episode(A, stores, right("a"))])
    assert diag.scopes[0].op_accuracy is None and not diag.reports_ops and diag.scopes[0].update_recall.rate == 1.0


def test_a_delete_with_an_add_is_an_update_and_evictions_are_not_the_systems():
    ops = [MemoryOp("delete", "f1", "lives in Denver", None), MemoryOp("add", "f2", None, "lives in Portland")]
    assert predicted_op(ops, ["Denver", "Portland"]) == "update"
    assert predicted_op([MemoryOp("evict", "f1", "lives in Denver", None)], ["Denver"]) == "none"
    assert predicted_op([MemoryOp("noop", "f1", "lives in Denver", "lives in Denver")], ["Denver"]) == "reinforce"


def test_ledger_ops_operations_are_recomputed_from_the_recorded_replies():
    from supersede_env.core.conditions import parse_condition
    from supersede_env.core.rollout import StepRecord
    from supersede_env.evaluation.store_stores import stores_for

    def step(i, reply, after):
        return StepRecord(i, "memo", "ok", "h", 1, reply, after, "", after)

    steps = [step(0, "SET city: Denver\nSET car: Chevy Malibu", "city: Denver\ncar: Chevy Malibu"),
             step(1, "SET city: Portland\nDEL car\nSET car: Chevy Malibu", "city: Portland\ncar: Chevy Malibu"),
             step(2, "NONE", "city: Portland\ncar: Chevy Malibu")]
    stores = stores_for(B, parse_condition("ledger-ops:300"), steps, ())
    assert [(o.op, o.fact_id) for o in stores[1].ops] == [("update", "city"), ("delete", "car"), ("add", "car")]
    assert stores[1].ops[0].before == "city: Denver" and stores[2].ops == ()
    d = store_episode(B, stores, right("b"))
    # session 2: city updated in place (caught, right op); car deleted and added again: an update where
    # nothing changed (a wrong op) but the value is kept (no false update)
    assert (d.updates, d.updates_caught, d.false_updates) == (1, 1, 0)
    assert d.ops[2:4] == (("update", "update"), ("none", "update"))
