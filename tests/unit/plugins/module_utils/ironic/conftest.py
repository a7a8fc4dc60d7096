# -*- coding: utf-8 -*-
"""Fixtures of the ironic layer's tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import clouds_file as _clouds_file, transport as _transport

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


@pytest.fixture
def clean_environment(monkeypatch, tmp_path):
    """No OS_* variable, CA bundle variable or clouds.yaml of the caller leaks into a test."""
    for name in list(os.environ):
        if name.startswith('OS_') or name in ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'):
            monkeypatch.delenv(name)
    monkeypatch.setattr(_clouds_file, 'CONFIG_DIRS', (str(tmp_path / 'nowhere'),))
