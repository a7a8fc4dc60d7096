# -*- coding: utf-8 -*-
"""Fixtures of the ironic layer's tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import transport as _transport

from .scripted import ScriptedIronic


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(_transport, 'RETRY_BASE_DELAY', 0.001)
    scripted = ScriptedIronic()
    yield scripted
    scripted.close()


@pytest.fixture
def sleeps(monkeypatch):
    """The delays the client slept before trying again, none of them slept."""
    slept = []
    monkeypatch.setattr(_transport.time, 'sleep', slept.append)
    return slept
