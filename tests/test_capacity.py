"""The model's capacity shared by many readers: slots granted fairly, calls waiting their turn with their place
said, Stop leaving the line, and a model swapped only when no call runs."""

from __future__ import annotations

import threading
import time

import pytest

from elite_ui.errors import Cancelled
from elite_ui.methods.registry import METHODS, Tools
from elite_ui.methods.trace import Kind
from elite_ui.models import ScriptedLLM
from elite_ui.models.base import finished
from elite_ui.models.capacity import SHORT_CALLS, Capacity, Share

from .conftest import trigram_embed


def test_slots_are_granted_up_to_the_capacity_and_freed_on_leaving():
    capacity = Capacity(2)
    first, second, third = (Share(capacity, v).line_up() for v in "abc")
    assert first.granted and second.granted and not third.granted
    assert third.ahead == 0 and capacity.busy == 2 and capacity.waiting() == 1
    first.leave()
    assert third.wait(1) and capacity.busy == 2 and capacity.peak == 2
    first.leave()
    assert capacity.busy == 2, "leaving twice frees one slot once"


def test_a_question_keeps_the_model_between_its_calls_so_questions_end_in_the_order_asked():
    capacity = Capacity(1)
    first, second = Share(capacity, "first"), Share(capacity, "second")
    running = first.line_up()
    waiting = second.line_up()
    running.done()
    assert not waiting.granted, "the slot is kept for the first question's next call"
    first_next = first.line_up()
    assert first_next is running and first_next.granted
    first_next.done()
    first.finish()
    assert waiting.granted and capacity.busy == 1


def test_a_long_run_cannot_push_ahead_of_a_short_question():
    capacity = Capacity(1)
    builder = Share(capacity, "builder")
    for _ in range(SHORT_CALLS):
        builder.line_up().done()
    running = builder.line_up()
    builder_next = [builder.line_up() for _ in range(3)]
    reader = Share(capacity, "reader").line_up()
    assert reader.ahead == 0, "the reader's short question goes before the builder's next calls"
    assert builder_next[0].ahead == 1
    running.done()
    assert reader.granted and not any(p.granted for p in builder_next), "a long run keeps no slot"
    reader.leave()
    assert builder_next[0].granted


def test_the_model_is_swapped_only_once_running_calls_end():
    capacity = Capacity(1)
    running = Share(capacity, "a").line_up()
    swapped = threading.Event()

    def swap():
        with capacity.exclusive():
            swapped.set()
            time.sleep(0.2)

    thread = threading.Thread(target=swap)
    thread.start()
    time.sleep(0.2)
    assert not swapped.is_set()
    running.leave()
    assert swapped.wait(2)
    during = Share(capacity, "b").line_up()
    assert not during.granted, "no call starts while the model is swapped"
    thread.join()
    assert during.wait(1)


def test_a_waiting_call_gives_up_its_place_when_stopped():
    capacity = Capacity(1)
    Share(capacity, "a").line_up()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    with pytest.raises(Cancelled), Share(capacity, "b").held(cancel):
        pass
    assert capacity.waiting() == 0


def engine(capacity: Capacity, visitor: str, cancel: threading.Event | None = None):
    llm = ScriptedLLM(replies={"terms": ["Toad\nToad Hall"], "answer": ["Toad lives at Toad Hall."]})
    tools = Tools(trigram_embed, cancel or threading.Event(), share=Share(capacity, visitor))
    return METHODS["elite"].engine(llm, None, tools)


def test_a_question_waits_its_turn_and_says_where_it_stands(willows):
    capacity = Capacity(1)
    other = Share(capacity, "another reader").line_up()
    events = engine(capacity, "me").ask(willows, "Where does Toad live?")
    first = [next(events) for _ in range(2)]
    assert [e.kind for e in first] == [Kind.START, Kind.QUEUE]
    assert first[1].data.busy == 1 and first[1].data.slots == 1 and first[1].data.ahead == 0
    threading.Timer(0.3, other.leave).start()
    rest = list(events)
    calls = [e.data for e in rest if e.kind == Kind.LLM_CALL]
    assert calls[0].waited >= 0.2 and calls[1].waited < 0.2
    assert capacity.busy == 0 and capacity.waiting() == 0
    assert rest[-1].kind == Kind.DONE


def test_stop_while_waiting_leaves_the_line(willows):
    capacity, cancel = Capacity(1), threading.Event()
    Share(capacity, "another reader").line_up()
    events = engine(capacity, "me", cancel).ask(willows, "Where does Toad live?")
    assert [next(events).kind for _ in range(2)] == [Kind.START, Kind.QUEUE]
    cancel.set()
    with pytest.raises(Cancelled):
        list(events)
    assert capacity.waiting() == 0


def test_a_run_abandoned_mid_call_frees_its_slot(willows):
    """A page that goes away mid-answer drops its run; closing the run's generator gives the slot back."""
    capacity = Capacity(1)
    llm = ScriptedLLM(replies={"terms": ["Toad"], "answer": ["Toad lives at Toad Hall, by the river, in a house."]})
    engine_ = METHODS["elite"].engine(llm, None, Tools(trigram_embed, share=Share(capacity, "me")))
    events = engine_.ask(willows, "Where does Toad live?")
    while next(events).kind != Kind.ANSWER_DELTA:
        pass
    assert capacity.busy == 1, "the answer is being written"
    events.close()
    assert capacity.busy == 0


def test_a_short_question_preempts_long_work_which_gives_its_slot_up():
    capacity = Capacity(1)
    running = Share(capacity, "builder", background=True).line_up()
    reader = Share(capacity, "reader").line_up()
    assert running.preempted.is_set() and not reader.granted
    running.done()
    assert reader.granted, "the preempted call kept no slot"


def question_arrives(capacity: Capacity, served: list) -> None:
    """A reader's short question lines up now, and is answered (``served``) once its slot is granted."""
    reader = Share(capacity, "reader").line_up()

    def answer():
        assert reader.wait(5)
        served.append(True)
        reader.leave()

    threading.Thread(target=answer).start()


def test_preempted_work_runs_again_once_the_question_is_answered():
    capacity, attempts, served = Capacity(1), [], []
    build = Share(capacity, "builder", background=True)

    def work(stop, outlived):
        attempts.append(stop.is_set())
        if len(attempts) == 1:
            question_arrives(capacity, served)
            assert stop.is_set(), "a question arrived: the call is told to stop"
            raise Cancelled("stopped.")
        assert served, "the question went first"
        return "written"

    assert build.call(work) == "written" and attempts == [False, False]
    assert capacity.busy == 0


def test_a_readers_stop_is_not_taken_for_a_preemption():
    capacity, cancel = Capacity(1), threading.Event()
    build = Share(capacity, "builder", background=True)

    def work(stop, outlived):
        cancel.set()
        raise Cancelled("stopped.")

    with pytest.raises(Cancelled):
        build.call(work, cancel)
    assert capacity.busy == 0


def test_a_place_taken_when_the_question_is_asked_serves_its_first_call():
    capacity = Capacity(1)
    first, second = Share(capacity, "first"), Share(capacity, "second")
    first.kept = capacity.line_up(first)
    second.kept = capacity.line_up(second)
    assert first.kept.granted and not second.kept.granted
    first.line_up().done()
    first.finish()
    place = second.line_up()
    assert place.granted and place is not None and capacity.busy == 1
    place.done()
    assert second.calls == 1 and capacity.busy == 1, "kept for the question's next call"
    second.finish()
    assert capacity.busy == 0


def test_a_question_that_ends_before_its_first_model_call_gives_its_place_back():
    """An M-RAG question without an index ends before any call: the place it took when asked is given back."""
    from elite_ui.app.config import Config
    from elite_ui.app.state import Model, Session

    model, session = Model(Config()), Session()
    session.reserve(model)
    assert model.capacity.busy == 1
    taken = session.share(model)
    assert taken is session.share(model) and taken.kept is not None, "an engine took it, then failed"
    session.unreserve()
    assert model.capacity.busy == 0 and session.reserved is None


def test_stop_leaves_the_status_to_a_run_that_says_how_far_it_got():
    """Stop ends a build and a question alike; only a build says itself how far it got (Stop's own sentence would
    race its)."""
    from elite_ui.app.state import Session

    session = Session()
    for says in (True, False):
        with session.run(says_stop=says) as started:
            assert started
            run = session.cancel
            assert session.stop() is says and run.is_set()
    assert session.stop() is False, "nothing runs"


def test_a_run_that_ends_leaves_stop_to_the_run_begun_after_it(monkeypatch):
    """A run disables Stop once it ends, unless the visitor's next run began in between (a build clicked as the
    question's last sentence showed): that one enabled Stop for itself, and it stays enabled."""
    from types import SimpleNamespace

    from elite_ui.app.answering import BUSY, one_at_a_time
    from elite_ui.app.state import Session

    page = SimpleNamespace(chat=SimpleNamespace(stop="stop", status="status"))

    def run():
        yield {"status": "Done."}
        return "answered"

    def steps(session):
        return list(one_at_a_time(page, session, run()))

    assert steps(Session())[-1] == {"stop": {"__type__": "update", "interactive": False}}
    session = Session()
    ended = session.end
    monkeypatch.setattr(session, "end", lambda flag: (ended(flag), session.begin()))
    assert steps(session) == [{"status": "Done."}], "the build begun after the question keeps Stop"
    with pytest.warns(UserWarning, match="still running"):  # outside Gradio, what its page shows as a toast
        assert steps(session) == [{"status": BUSY}], "refused while that build runs: Stop is left to it"


def test_a_stopped_question_shows_nothing_more_than_that_it_stopped():
    """Once Stop is pressed, a question's run shows none of its updates (one late would overwrite what Stop
    showed): its last says it stopped; a build's updates all show (it says itself how far it got)."""
    from types import SimpleNamespace

    from elite_ui.app.answering import STOPPED, one_at_a_time
    from elite_ui.app.state import Session

    page = SimpleNamespace(chat=SimpleNamespace(stop="stop", status="status", conversation="chat"))
    session = Session()

    def run():
        yield {"status": "Iteration 1: terms…"}
        session.stop()
        yield {"status": "Iteration 1: importance, 0 of 6 calls…"}
        return None

    stopped = list(one_at_a_time(page, session, run()))
    assert [u.get("status") for u in stopped] == ["Iteration 1: terms…", STOPPED] and "chat" in stopped[-1]
    built = list(one_at_a_time(page, session, run(), says_stop=True))
    assert [u.get("status") for u in built] == ["Iteration 1: terms…", "Iteration 1: importance, 0 of 6 calls…",
                                                None]


def test_long_works_streamed_call_gives_way_to_a_question_and_runs_again():
    """An index build streams its replies (shown as progress); a question arriving mid-reply stops it, and the
    build's call runs again once the question is answered (a reader's own streamed answer is never stopped)."""
    capacity, served = Capacity(1), []

    def reply(request):
        if not served:
            question_arrives(capacity, served)
            assert request.cancel.is_set(), "the build's call is told to give way"
            raise Cancelled("stopped.")
        return "markers"

    builder = Share(capacity, "builder", background=True)
    engine = METHODS["elite"].engine(ScriptedLLM(reply), None, Tools(trigram_embed, share=builder))
    calls = engine.call("extract", [{"role": "user", "content": "the window"}], 1, stream=True)
    assert finished(calls) == "markers" and served
    assert capacity.busy == 0


def test_a_visitors_stopped_calls_still_on_the_server_are_bounded():
    """A reader pressing Ask then Stop again and again: each stopped call keeps its slot while the server runs it,
    and past STOPPED_CALLS of them the reader's next call waits for one to end; another reader's call does not."""
    from elite_ui.models.capacity import STOPPED_CALLS

    capacity = Capacity(8)
    ends = []
    for _ in range(STOPPED_CALLS + 1):
        place = Share(capacity, "stopper").line_up()
        assert place.wait(0.1)
        ends.append(place.outlived())
        place.leave()
    assert capacity.busy == STOPPED_CALLS + 1, "stopped calls still on the server keep their slots"
    again, other = Share(capacity, "stopper").line_up(), Share(capacity, "other").line_up()
    assert other.wait(0.1) and not again.wait(0.1), "the stopper waits; the other reader does not"
    ends.pop()()
    assert again.wait(0.1), "one stopped call ended: the stopper's next call goes"
    for end in ends:
        end()
    again.leave()
    other.leave()
    assert capacity.busy == 0


def test_slots_are_shared_fairly_between_addresses_not_only_sessions():
    """Issue 36 item 4: one address with four sessions asking cannot take four turns before another address's
    one question: a freed slot goes to the address holding the fewest, then to the one served longest ago."""
    capacity = Capacity(1)
    running = Share(capacity, "crowd 1", address="198.51.100.1").line_up()
    assert running.wait(0.1)
    crowd = [Share(capacity, f"crowd {n}", address="198.51.100.1").line_up() for n in range(2, 5)]
    alone = Share(capacity, "alone", address="203.0.113.9").line_up()
    assert alone.ahead == 0 and [place.ahead for place in crowd] == [1, 2, 3]
    running.leave()
    assert alone.wait(0.1) and not any(place.granted for place in crowd)
    alone.leave()
    for place in crowd:
        place.leave()
    assert capacity.busy == 0
