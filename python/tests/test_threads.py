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


def test_python_threads_run_while_a_kernel_runs():
    # A long call (half a second or more) in a worker thread; the main thread counts loop
    # iterations until it returns. Were the GIL held through the kernel, the main thread
    # would count only around the call's start and end (a switch interval or two: 5-17 ms
    # worth, measured with sorted(), which holds it), however long the call; released, it
    # counts through the whole call. A loaded machine can starve the counting thread for a
    # while, so up to four attempts, each twice as long as the last, and one must pass.
    # The kernel: affine_grid_backward, a reduction over a broadcast (zero-stride, no
    # memory) grad_grid of rows x 4096 points, so a long call needs no large buffers.
    old = gridops.get_num_threads()
    gridops.set_num_threads(1)

    def grad_grid(rows):
        return np.broadcast_to(np.ones((1, 1, 1, 2), np.float32), (1, rows, 4096, 2))

    try:
        rows = 256
        gridops.affine_grid_backward(grad_grid(rows), (1, 1, rows, 4096))  # warm-up
        per_row = float("inf")
        for _ in range(2):  # the faster of two calibration calls
            t0 = time.perf_counter()
            gridops.affine_grid_backward(grad_grid(rows), (1, 1, rows, 4096))
            per_row = min(per_row, (time.perf_counter() - t0) / rows)
        rows = int(min(max(0.5 / per_row, 256), 1 << 22))

        def rate():  # iterations per second of the counting loop alone
            n, t_end = 0, time.perf_counter() + 0.05
            while time.perf_counter() < t_end:
                n += 1
            return n / 0.05

        attempts = []
        for _ in range(4):
            gg = grad_grid(rows)
            per_s = rate()
            done = threading.Event()

            def work():
                gridops.affine_grid_backward(gg, (1, 1, rows, 4096))
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
            counted_s = counted / per_s  # seconds of counting at the undisturbed rate
            attempts.append((round(counted_s, 3), round(elapsed, 3), rows))
            if elapsed >= 0.2 and counted_s > max(0.05, 0.1 * elapsed):
                break
            rows = min(2 * rows, 1 << 22)
        else:
            raise AssertionError(f"no Python progress during the kernels: (counted s, call s, rows) {attempts}")
    finally:
        gridops.set_num_threads(old)
