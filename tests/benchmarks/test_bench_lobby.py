"""The lobby benchmark's code path, tiny: a real SQLite study filled to two sizes, joins timed at each."""

import importlib.util
import sys
from pathlib import Path

from rich.console import Console

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_lobby.py"
spec = importlib.util.spec_from_file_location("bench_lobby", SCRIPT)
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench
spec.loader.exec_module(bench)

from duologue.web.storage import Storage  # noqa: E402


def test_the_study_is_filled_to_each_size_and_every_join_is_a_real_pairing(tmp_path):
    db = tmp_path / "lobby.db"
    results = bench.run([20, 1500], pairs=3, repeats=2, task="casino-v0", pool=7, db=db, console=None)
    assert [r.stored for r in results] == [20, 1500]
    for r in results:
        assert 0 < r.join_ms_min <= r.join_ms <= r.join_ms_max and r.join_p95_ms > 0 and r.join_cpu_ms > 0
        assert r.quota_queries_ms > 0
    storage = Storage(f"sqlite:///{db}")
    try:
        counts = storage.count_by(bench.STUDY, "pairing")
        by_scenario = storage.count_pairs(bench.STUDY)
        joined = storage.dialogues(study_id=bench.STUDY)
        aside = storage.set_aside(bench.STUDY)
    finally:
        storage.close()
    # 1,500 stored plus the pairs seated at the last size (3 pairs x 2 rounds); the first size's joins are
    # within the 1,500. Finished dialogues without a message are set aside and count toward no quota.
    assert set(aside.values()) <= {"no messages"}
    assert counts == {bench.PAIRING: 1500 + 6 - len(aside)}
    assert len({key for key, _ in by_scenario}) == 7
    seated = [d for d in joined if len(d.id.rsplit("-", 1)[1]) != 7]  # stored ones are numbered with 7 digits
    assert len(seated) == 12  # every join of every round started a dialogue of two new people
    console = Console(width=300, record=True)
    console.print(bench.table(results, 3, 2, "casino-v0"))
    text = console.export_text()
    assert "1,500" in text and "join x 20" in text
