"""The ground-truth suite's instruments, checked against allocations whose sizes are known: the
heap counter (memcount.c) and the saved-tensor census (saved.py). Sizes are MiBs so glibc's
per-block overhead (a page header for mmapped blocks) stays under 0.1%."""
import pytest

torch = pytest.importorskip("torch")

import memcount  # noqa: E402
from saved import Saved  # noqa: E402

MiB = 1 << 20
pytestmark = pytest.mark.skipif(not memcount.available(), reason="run with memcount in LD_PRELOAD")


def close(measured, expected, rel=1e-3):
    assert abs(measured - expected) <= rel * expected, (measured, expected)


def test_counter_sees_a_tensor_come_and_go():
    before = memcount.current()
    t = torch.empty(16 * MiB, dtype=torch.uint8)
    close(memcount.current() - before, 16 * MiB)
    del t
    assert abs(memcount.current() - before) < 64 * 1024


def test_peak_is_the_highest_point_not_the_sum():
    base = memcount.current()
    memcount.reset_peak()
    a = torch.empty(8 * MiB, dtype=torch.float32)  # 32 MiB
    del a
    b = torch.empty(2 * MiB, dtype=torch.float32)  # 8 MiB, after a is gone
    close(memcount.peak() - base, 32 * MiB)
    del b


def test_threads_are_counted():
    # a matmul large enough to run on PyTorch's worker threads: its output is 4 MiB of fp32
    x = torch.ones(1024, 1024)
    before = memcount.current()
    y = x @ x
    close(memcount.current() - before, 4 * MiB, rel=0.01)
    del y


def test_saved_counts_storages_once_and_skips_parameters():
    w = torch.nn.Parameter(torch.ones(MiB))  # 4 MiB, a parameter: not an activation
    x = torch.ones(MiB, requires_grad=True)
    with Saved([w]) as s:
        y = x.exp()  # saves its output, y
        z = y * w  # saves y again (the same storage) and w (a parameter)
        u = z.view(1024, 1024).sum(0) + y.view(1024, 1024)[0]  # views: nothing new saved
    assert s.count == 1 and s.bytes == 4 * MiB
    del u
