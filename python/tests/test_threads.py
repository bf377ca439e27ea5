"""The GIL is released while a kernel runs: Python threads make progress during a call, and
concurrent calls from several threads give the single-threaded results."""

import threading
import time

import numpy as np

import gridops


def test_set_and_get_num_threads():
    old = gridops.get_num_threads()
    try:
        gridops.set_num_threads(1)
        assert gridops.get_num_threads() == 1
        gridops.set_num_threads(0)  # hardware default
        assert gridops.get_num_threads() >= 1
    finally:
        gridops.set_num_threads(old)


def test_concurrent_calls_give_the_same_results(rng):
    x = rng.standard_normal((2, 3, 64, 64)).astype(np.float32)
    grids = [rng.uniform(-1, 1, (2, 48, 48, 2)).astype(np.float32) for _ in range(4)]
    expected = [gridops.grid_sample(x, g, "bicubic", "reflection") for g in grids]
    plan = gridops.ResamplePlan(x.shape, (50, 70), "linear")
    expected_rs = plan(x)
    errors = []

    def worker(k):
        try:
            for _ in range(10):
                for g, e in zip(grids, expected):
                    np.testing.assert_array_equal(gridops.grid_sample(x, g, "bicubic", "reflection"), e)
                np.testing.assert_array_equal(plan(x), expected_rs)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_python_threads_run_while_a_kernel_runs(rng):
    # One large call (~0.1-0.5 s) in a worker thread; the main thread counts loop
    # iterations while it runs. Holding the GIL would allow at most a switch interval or
    # two (5 ms each) of counting; released, the main thread counts for the whole call.
    old = gridops.get_num_threads()
    gridops.set_num_threads(1)
    try:
        x = rng.standard_normal((1, 8, 256, 256)).astype(np.float32)
        g = rng.uniform(-1, 1, (1, 512, 512, 2)).astype(np.float32)
        t0 = time.perf_counter()
        gridops.grid_sample(x, g, "bicubic")
        call_s = time.perf_counter() - t0
        reps = max(1, int(0.3 / max(call_s, 1e-3)))

        def rate():  # iterations per second of the counting loop alone
            n, t_end = 0, time.perf_counter() + 0.02
            while time.perf_counter() < t_end:
                n += 1
            return n / 0.02

        per_s = rate()
        done = threading.Event()

        def work():
            for _ in range(reps):
                gridops.grid_sample(x, g, "bicubic")
            done.set()

        worker = threading.Thread(target=work)
        counted = 0
        worker.start()
        t0 = time.perf_counter()
        while not done.is_set():
            counted += 1
            time.perf_counter()
        elapsed = time.perf_counter() - t0
        worker.join()
        # at least 40 ms worth of counting (8 switch intervals) during >= 0.3 s of kernels
        assert elapsed > 0.1
        assert counted > per_s * 0.04, (counted, per_s, elapsed)
    finally:
        gridops.set_num_threads(old)
