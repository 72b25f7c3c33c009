"""Rating-job assignment: the rules by example, then property tests over random arrival orders."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from duologue.web.rating_jobs import Assignment, JobClosed, RatingJobError, RatingJobs, UnknownJob

TIMEOUT = 100.0


def pool(k: int = 3, dialogues: int = 3) -> RatingJobs:
    jobs = RatingJobs(k, TIMEOUT)
    for i in range(dialogues):
        jobs.add_dialogue(f"d{i}", [f"p{i}a", f"p{i}b"], finished_at=10.0 * i)
    return jobs


# --------------------------------------------------------------------------- the rules by example


def test_oldest_dialogue_first_then_the_least_loaded():
    jobs = pool(k=3, dialogues=3)
    got = [jobs.assign(rater, now=0).dialogue_id for rater in ("r1", "r2", "r3", "r4")]
    assert got == ["d0", "d1", "d2", "d0"]


def test_older_dialogue_wins_a_tie_even_when_added_later():
    jobs = RatingJobs(3, TIMEOUT)
    jobs.add_dialogue("new", [], finished_at=50)
    jobs.add_dialogue("old", [], finished_at=5)
    assert jobs.assign("r", now=60).dialogue_id == "old"


def test_completed_and_pending_ratings_both_count_as_load():
    jobs = pool(k=3, dialogues=2)
    jobs.assign("r1", 0)  # d0 pending
    jobs.complete("d0", "r1", 1)  # d0 done 1
    assert jobs.assign("r2", 2).dialogue_id == "d1"
    assert jobs.assign("r3", 3).dialogue_id == "d0"  # both at 1: oldest first


def test_a_rater_never_gets_a_dialogue_they_took_part_in():
    jobs = pool(k=3, dialogues=2)
    assert jobs.assign("p0a", 0).dialogue_id == "d1"
    jobs.complete("d1", "p0a", 1)
    assert jobs.assign("p0a", 2) is None


def test_a_rater_never_gets_the_same_dialogue_twice():
    jobs = pool(k=3, dialogues=1)
    jobs.assign("r", 0)
    jobs.complete("d0", "r", 1)
    assert jobs.assign("r", 2) is None


def test_a_rater_with_a_job_in_progress_gets_it_back():
    jobs = pool(k=3, dialogues=3)
    first = jobs.assign("r", 0)
    assert jobs.assign("r", 5) is first
    assert jobs.current("r", 5) is first


def test_an_expired_job_goes_back_to_the_pool_but_not_to_its_rater():
    jobs = pool(k=1, dialogues=1)
    jobs.assign("slow", 0)
    assert jobs.assign("r2", TIMEOUT - 1) is None  # slot taken
    assert jobs.current("slow", TIMEOUT) is None
    assert jobs.assign("slow", TIMEOUT) is None  # never the same dialogue twice
    assert jobs.assign("r2", TIMEOUT).dialogue_id == "d0"
    assert jobs.summary(TIMEOUT)["expired"] == 1


def test_a_late_answer_is_taken_while_the_slot_is_still_free():
    jobs = pool(k=1, dialogues=1)
    jobs.assign("slow", 0)
    done = jobs.complete("d0", "slow", TIMEOUT + 50)
    assert done.status == "done" and done.done_at == TIMEOUT + 50
    assert jobs.progress("d0", TIMEOUT + 60).complete


def test_a_late_answer_is_refused_once_the_slot_went_to_someone_else():
    jobs = pool(k=1, dialogues=1)
    jobs.assign("slow", 0)
    jobs.assign("quick", TIMEOUT + 1)
    with pytest.raises(JobClosed, match="expired"):
        jobs.complete("d0", "slow", TIMEOUT + 2)
    jobs.complete("d0", "quick", TIMEOUT + 3)
    assert jobs.progress("d0", TIMEOUT + 3).done == 1


def test_a_dialogue_stops_being_assigned_at_k():
    jobs = pool(k=2, dialogues=1)
    for t, rater in enumerate(("r1", "r2")):
        jobs.assign(rater, t)
        jobs.complete("d0", rater, t + 0.5)
    assert jobs.assign("r3", 10) is None
    assert jobs.progress("d0", 10).done == 2


def test_declining_frees_the_slot_at_once():
    jobs = pool(k=1, dialogues=1)
    jobs.assign("r1", 0)
    assert jobs.assign("r2", 1) is None
    assert jobs.decline("d0", "r1", 2).status == "declined"
    assert jobs.assign("r2", 3).dialogue_id == "d0"
    assert jobs.assign("r1", 4) is None


def test_no_ratings_needed_means_no_jobs():
    jobs = pool(k=0, dialogues=2)
    assert jobs.assign("r", 0) is None


def test_errors_name_what_is_wrong():
    jobs = pool(k=2, dialogues=1)
    with pytest.raises(UnknownJob, match="never given"):
        jobs.complete("d0", "stranger", 0)
    with pytest.raises(UnknownJob, match="not in the rating pool"):
        jobs.progress("nope", 0)
    jobs.assign("r", 0)
    jobs.complete("d0", "r", 1)
    with pytest.raises(JobClosed, match="already completed"):
        jobs.complete("d0", "r", 2)
    with pytest.raises(JobClosed, match="already completed"):
        jobs.decline("d0", "r", 2)
    with pytest.raises(RatingJobError, match="needs an id"):
        jobs.assign("", 0)
    with pytest.raises(ValueError):
        RatingJobs(-1)
    with pytest.raises(ValueError):
        RatingJobs(3, timeout=0)


def test_adding_a_dialogue_again_is_harmless_but_other_facts_are_refused():
    jobs = pool(k=2, dialogues=1)
    assert jobs.add_dialogue("d0", ["p0b", "p0a", None], 0.0).dialogue_id == "d0"
    with pytest.raises(RatingJobError, match="other facts"):
        jobs.add_dialogue("d0", ["someone"], 0.0)


def test_state_round_trips_through_json_and_keeps_behaving_the_same():
    jobs = pool(k=2, dialogues=3)
    jobs.assign("r1", 0)
    jobs.complete("d0", "r1", 1)
    jobs.assign("r2", 2)
    jobs.assign("r3", 3)
    jobs.decline("d2", "r3", 4)
    state = json.loads(json.dumps(jobs.state()))
    again = RatingJobs.from_state(state)
    assert again.state() == jobs.state()
    assert again.assign("r4", 5) == jobs.assign("r4", 5)


def test_records_rebuild_a_pool_as_a_database_would():
    jobs = pool(k=2, dialogues=2)
    jobs.assign("r1", 0)
    rows_d = [d.model_dump() for d in jobs.dialogues]
    rows_a = [a.model_dump() for a in jobs.assignments]
    rebuilt = RatingJobs(2, TIMEOUT, dialogues=rows_d, assignments=rows_a)
    assert rebuilt.current("r1", 1) == Assignment(dialogue_id="d0", rater_id="r1", assigned_at=0)
    with pytest.raises(UnknownJob):
        RatingJobs(2, TIMEOUT, dialogues=rows_d, assignments=[{"dialogue_id": "zz", "rater_id": "r", "assigned_at": 0}])
    with pytest.raises(RatingJobError, match="two assignments"):
        RatingJobs(2, TIMEOUT, dialogues=rows_d, assignments=rows_a + rows_a)


# --------------------------------------------------------------------------- properties


class RatingPoolMachine(RuleBasedStateMachine):
    """Dialogues finish, raters arrive, answer, give up or decline, time passes: the rules always hold."""

    def __init__(self) -> None:
        super().__init__()
        self.k = 2
        self.jobs = RatingJobs(self.k, TIMEOUT)
        self.now = 0.0
        self.participants: dict[str, set[str]] = {}
        self.ever_given: set[tuple[str, str]] = set()

    @rule(k=st.integers(min_value=1, max_value=3))
    @precondition(lambda self: not self.jobs.dialogues)
    def choose_k(self, k):
        self.k = k
        self.jobs = RatingJobs(k, TIMEOUT)

    @rule(people=st.sets(st.sampled_from([f"r{i}" for i in range(8)] + ["x", "y"]), max_size=2))
    def finish_dialogue(self, people):
        dialogue_id = f"d{len(self.participants)}"
        self.jobs.add_dialogue(dialogue_id, people, self.now)
        self.participants[dialogue_id] = set(people)

    @rule(rater=st.sampled_from([f"r{i}" for i in range(8)]))
    def rater_arrives(self, rater):
        ongoing = self.jobs.current(rater, self.now)
        eligible = {
            d: self.jobs.progress(d, self.now)
            for d in self.participants
            if rater not in self.participants[d] and (d, rater) not in self.ever_given
        }
        open_ = {d: p.done + p.in_progress for d, p in eligible.items() if p.done + p.in_progress < self.k}
        got = self.jobs.assign(rater, self.now)
        if ongoing is not None:
            assert got is ongoing
            return
        if not open_:
            assert got is None
            return
        assert got is not None and got.dialogue_id in open_
        fewest = min(open_.values())
        assert open_[got.dialogue_id] == fewest, "a less-rated dialogue was passed over"
        oldest = min(self.jobs._dialogues[d].finished_at for d, load in open_.items() if load == fewest)
        assert self.jobs._dialogues[got.dialogue_id].finished_at == oldest, "an older dialogue was passed over"
        self.ever_given.add((got.dialogue_id, rater))

    @rule(data=st.data())
    def rater_answers(self, data):
        pending = [a for a in self.jobs.assignments if a.status == "assigned"]
        if not pending:
            return
        job = data.draw(st.sampled_from(pending))
        try:
            self.jobs.complete(job.dialogue_id, job.rater_id, self.now)
        except JobClosed:
            assert job.expired(self.now, TIMEOUT)

    @rule(data=st.data())
    def rater_declines(self, data):
        pending = [a for a in self.jobs.assignments if a.active(self.now, TIMEOUT)]
        if pending:
            job = data.draw(st.sampled_from(pending))
            self.jobs.decline(job.dialogue_id, job.rater_id, self.now)

    @rule(seconds=st.sampled_from([1.0, 30.0, TIMEOUT, 2 * TIMEOUT]))
    def time_passes(self, seconds):
        self.now += seconds

    @invariant()
    def nobody_rates_their_own_dialogue(self):
        for a in self.jobs.assignments:
            assert a.rater_id not in self.participants[a.dialogue_id]

    @invariant()
    def never_the_same_dialogue_twice(self):
        pairs = [(a.dialogue_id, a.rater_id) for a in self.jobs.assignments]
        assert len(pairs) == len(set(pairs))

    @invariant()
    def never_more_than_k(self):
        for d in self.participants:
            progress = self.jobs.progress(d, self.now)
            assert progress.done + progress.in_progress <= self.k

    @invariant()
    def one_job_in_progress_per_rater(self):
        active = [a.rater_id for a in self.jobs.assignments if a.active(self.now, TIMEOUT)]
        assert len(active) == len(set(active))

    @invariant()
    def state_survives_a_round_trip(self):
        assert RatingJobs.from_state(json.loads(json.dumps(self.jobs.state()))).state() == self.jobs.state()


TestRatingPoolMachine = RatingPoolMachine.TestCase
TestRatingPoolMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=200, deadline=None)
@given(
    k=st.integers(min_value=1, max_value=3),
    dialogues=st.lists(st.sets(st.integers(min_value=0, max_value=9), max_size=2), min_size=1, max_size=8),
    arrivals=st.lists(st.integers(min_value=0, max_value=9), min_size=0, max_size=200),
    abandon=st.sets(st.integers(min_value=0, max_value=9), max_size=3),
)
def test_every_dialogue_reaches_k_when_enough_raters_come(k, dialogues, arrivals, abandon):
    """Raters arrive in any order (some give up on their first job); then everyone keeps coming until
    nobody gets a job. With 10 raters, at most 2 of them in a dialogue and at most 3 abandoning,
    at least 5 distinct raters can rate each dialogue, so every dialogue must reach k (k <= 3)."""
    jobs = RatingJobs(k, TIMEOUT)
    for i, people in enumerate(dialogues):
        jobs.add_dialogue(f"d{i}", [f"r{p}" for p in people], finished_at=float(i % 3))
    now = 0.0
    gave_up: set[int] = set()

    def visit(rater: int) -> bool:
        nonlocal now
        now += 1.0
        job = jobs.assign(f"r{rater}", now)
        if job is None:
            return False
        if rater in abandon and rater not in gave_up:
            gave_up.add(rater)
            now += TIMEOUT  # walks away; the job expires
            return True
        jobs.complete(job.dialogue_id, job.rater_id, now)
        return True

    for rater in arrivals:
        visit(rater)
    while any([visit(rater) for rater in range(10)]):
        pass
    for i in range(len(dialogues)):
        assert jobs.progress(f"d{i}", now).done == k
    for a in jobs.assignments:
        assert a.rater_id not in {f"r{p}" for p in dialogues[int(a.dialogue_id[1:])]}
