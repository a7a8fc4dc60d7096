# -*- coding: utf-8 -*-
"""bench_all's before and after: two checkouts take turns round by round on one Ironic, each row with its spread."""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import bench_all  # noqa: E402


class FakeBench(object):
    """A Bench whose of_checkout names the checkout it measures."""

    def __init__(self, checkout='this'):
        self.checkout = checkout

    def of_checkout(self, checkout):
        return FakeBench(checkout)


def test_spread_is_the_median_and_range_of_the_rounds_ratios_or_of_their_seconds_without_a_floor():
    rounds = [('x', 3.0, 2.0, 't'), ('x', 2.0, 2.0, 't'), ('x', 4.0, 2.0, 't')]
    assert bench_all.spread(rounds) == '1.50 (1.00-2.00)'
    assert bench_all.spread([('rerun', 4.5, None, 't'), ('rerun', 4.1, None, 't'), ('rerun', 5.0, None, 't')]) \
        == '4.50 (4.10-5.00)'


def test_the_checkouts_take_turns_one_round_at_a_time_and_which_goes_first_alternates(monkeypatch):
    calls = []
    seconds = {'this': iter([2.0, 2.2, 2.4]), 'old': iter([3.0, 3.3, 3.6])}

    def measurement(bench, rounds, options):
        calls.append((bench.checkout, rounds))
        return [('a row', next(seconds[bench.checkout]), 1.0, '<= 1.2x'), ('a rerun', 4.0, None, '< 5 s')]

    monkeypatch.setattr(bench_all, 'MEASUREMENTS', (('a', measurement),))
    options = argparse.Namespace(repeat=3, old_checkout='old', only=None)
    rows = bench_all.two_checkouts(FakeBench(), options)
    assert calls == [('this', 1), ('old', 1), ('old', 1), ('this', 1), ('this', 1), ('old', 1)]
    assert rows == [('a row', '2.20 (2.00-2.40)', '3.30 (3.00-3.60)', '<= 1.2x'),
                    ('a rerun', '4.00 (4.00-4.00)', '4.00 (4.00-4.00)', '< 5 s')]


def test_the_import_row_comes_from_one_call_that_measures_both_checkouts(monkeypatch):
    asked = []

    def import_rounds(bench, rounds, old_checkout):
        asked.append((rounds, old_checkout))
        return {'this': [[('import CPU: m', 0.8, 0.5, '<= 1.6x')]] * 5,
                'old': [[('import CPU: m', 0.7, 0.5, '<= 1.6x')]] * 5}

    monkeypatch.setattr(bench_all, 'MEASUREMENTS', (('imports', 'imports'),))
    monkeypatch.setattr(bench_all, 'import_rounds', import_rounds)
    rows = bench_all.two_checkouts(FakeBench(), argparse.Namespace(repeat=3, old_checkout='old', only=None))
    assert asked == [(5, 'old')]
    assert rows == [('import CPU: m', '1.60 (1.60-1.60)', '1.40 (1.40-1.40)', '<= 1.6x')]


def test_only_runs_the_measurements_it_names_in_the_tables_order():
    chosen = bench_all.chosen(argparse.Namespace(only=['role', 'imports']))
    assert chosen == ['imports', bench_all.fleet_role]
    assert len(bench_all.chosen(argparse.Namespace(only=None))) == len(bench_all.MEASUREMENTS)
