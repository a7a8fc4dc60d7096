# -*- coding: utf-8 -*-
"""The controller half of live progress: what a person sees while a task waits."""

from ansible_collections.baremetal.lifecycle.plugins.plugin_utils import _progress
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._progress import ProgressView


def view(verbosity=0):
    lines = []
    return ProgressView('converge', verbosity, lines.append), lines


def record(node, state, step, seconds):
    return {'node': node, 'state': state, 'step': step, 'seconds': seconds}


def test_a_single_node_shows_every_change_with_its_step_and_time():
    progress, lines = view()
    progress.feed({'nodes': 1})
    progress.feed(record('n1', 'verifying', 'manage', 0.4))
    progress.feed(record('n1', 'available', None, 12.6))
    assert lines == ["converge: n1 verifying ('manage'), 0 s", 'converge: n1 available, 13 s']


def test_a_fleet_is_counted_by_state_every_summary_interval_even_while_nothing_changes():
    progress, lines = view()
    progress.feed({'nodes': 3})
    progress.tick(0.5)
    assert lines == []  # nothing known yet
    for name in ('n1', 'n2', 'n3'):
        progress.feed(record(name, 'cleaning', 'provide', 1.0))
    progress.tick(_progress.SUMMARY_INTERVAL - 1)
    assert lines == []
    progress.tick(_progress.SUMMARY_INTERVAL + 0.5)
    progress.feed(record('n1', 'available', None, _progress.SUMMARY_INTERVAL + 1))
    progress.tick(_progress.SUMMARY_INTERVAL + 1.5)
    assert lines == ['converge: 3 nodes, 3 cleaning, 10 s']
    progress.tick(2 * _progress.SUMMARY_INTERVAL + 1)  # no record since: the counts still come
    assert lines[1:] == ['converge: 3 nodes, 1 available, 2 cleaning, 21 s']


def test_a_fleet_shows_every_node_at_verbose():
    progress, lines = view(verbosity=1)
    progress.feed({'nodes': 2})
    progress.feed(record('n1', 'cleaning', 'provide', 1.0))
    progress.feed(record('n2', 'clean failed', None, 2.0))
    assert lines == ["converge: n1 cleaning ('provide'), 1 s", 'converge: n2 clean failed, 2 s']
