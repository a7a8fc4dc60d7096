# -*- coding: utf-8 -*-
"""A clouds.yaml, for the tests of the connection and of its configuration."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import yaml


def write_clouds(tmp_path, monkeypatch, clouds):
    path = tmp_path / 'clouds.yaml'
    path.write_text(yaml.safe_dump({'clouds': clouds}), encoding='utf-8')
    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(path))
    return path
