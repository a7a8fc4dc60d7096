# -*- coding: utf-8 -*-
"""A module's payload is built with the garbage collector paused, and the collector is put back as it was
(that every module's action does so: tests/unit/plugins/modules/test_every_module.py)."""

import gc

import pytest
from ansible.plugins.action import ActionBase

from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._module_action import CollectorPausedPayload
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._progress import ProgressAction


class Building(ActionBase):
    """ActionBase._configure_module as CollectorPausedPayload finds it: notes whether the collector ran while it
    built."""

    def __init__(self, error=None):  # pylint: disable=super-init-not-called
        # No task, connection nor loader: only _configure_module is called.
        self.error = error
        self.collector_enabled = []

    def _configure_module(self, module_name, module_args, task_vars):
        self.collector_enabled.append(gc.isenabled())
        if self.error:
            raise self.error
        return ('built', module_name, module_args, task_vars)


class Action(CollectorPausedPayload, Building):
    def run(self, tmp=None, task_vars=None):
        raise NotImplementedError('only the payload build is tested here')


@pytest.fixture
def collector():
    """The collector as the test found it, put back after."""
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


def test_the_payload_is_built_with_the_collector_paused_and_it_runs_again_after(collector):
    gc.enable()
    action = Action()
    assert action._configure_module('baremetal_node', {'name': 'n1'}, {}) == ('built', 'baremetal_node',
                                                                              {'name': 'n1'}, {})
    assert action.collector_enabled == [False]
    assert gc.isenabled()


def test_a_failed_build_puts_the_collector_back_too(collector):
    gc.enable()
    action = Action(error=RuntimeError('no such module_utils file'))
    with pytest.raises(RuntimeError, match='no such module_utils file'):
        action._configure_module('baremetal_node', {}, {})
    assert action.collector_enabled == [False] and gc.isenabled()


def test_a_collector_paused_before_the_build_stays_paused(collector):
    gc.disable()
    action = Action()
    action._configure_module('baremetal_node', {}, {})
    assert action.collector_enabled == [False] and not gc.isenabled()


def test_the_progress_action_pauses_the_collector_too():
    assert ProgressAction._configure_module is CollectorPausedPayload._configure_module
